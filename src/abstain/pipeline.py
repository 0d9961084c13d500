"""The whole pipeline in one place: ingest, search, ask.

    retrieve (two arms, collapse, RRF) -> confidence -> gate -> generate -> verify -> Answer
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from abstain.config import RetrievalConfig, Settings
from abstain.embed import Embedder, load_embedder
from abstain.ingest import Ingester, IngestReport, Paraphraser
from abstain.ingest.chunk import ChunkingConfig
from abstain.retrieve import Retrieval, Retriever
from abstain.stores.base import Store, open_store


class Pipeline:
    """A persistent store plus the stages that answer from it."""

    def __init__(self, store: Store, embedder: Embedder, *, workspace: str = "default",
                 retrieval: RetrievalConfig | None = None,
                 chunking: ChunkingConfig | None = None,
                 paraphraser: Paraphraser | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.workspace = workspace
        self.retrieval = retrieval or RetrievalConfig()
        self.chunking = chunking or ChunkingConfig()
        self.paraphraser = paraphraser
        self.retriever = Retriever(store, embedder, self.retrieval)

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> Pipeline:
        store = open_store(settings.store)
        try:
            embedder = load_embedder(settings.embedder or _stored_embedder(store))
            return cls(store, embedder, workspace=settings.workspace, **kwargs)
        except BaseException:
            store.close()
            raise

    # -- documents ---------------------------------------------------------
    def ingest(self, paths: Sequence[str | Path], *, workspace: str | None = None,
               on_progress: Callable[[str, int], None] | None = None) -> IngestReport:
        return self._ingester(workspace, on_progress).ingest_paths(paths)

    def ingest_text(self, text: str, *, source: str, fmt: str = "md", title: str | None = None,
                    workspace: str | None = None) -> IngestReport:
        return self._ingester(workspace, None).ingest_text(text, source=source, fmt=fmt,
                                                           title=title)

    def _ingester(self, workspace: str | None,
                  on_progress: Callable[[str, int], None] | None) -> Ingester:
        return Ingester(self.store, self.embedder, workspace or self.workspace, self.chunking,
                        self.paraphraser, on_progress)

    # -- questions ---------------------------------------------------------
    def search(self, question: str, *, workspace: str | None = None,
               top_k: int | None = None) -> Retrieval:
        from abstain.errors import InputError

        text = question.strip()
        if not text:
            raise InputError("the question is empty")
        return self.retriever.retrieve(text, workspace=workspace or self.workspace, top_k=top_k)

    # -- lifecycle ---------------------------------------------------------
    def close(self) -> None:
        self.retriever.close()
        self.store.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _stored_embedder(store: Store) -> str | None:
    """Reopen a store with the embedder it was built with, when abstain knows it."""
    info = store.embedder()
    if info is None:
        return None
    if info.name.startswith("hashing-"):
        return "hashing"
    return None
