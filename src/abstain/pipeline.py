"""The whole pipeline in one place: ingest, search, ask.

    retrieve (two arms, collapse, RRF) -> confidence -> gate -> generate -> verify -> Answer
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from abstain.answer import Answer
from abstain.config import RetrievalConfig, Settings
from abstain.embed import Embedder, load_embedder
from abstain.gate import Gate, GateThresholds, Rule
from abstain.generate import Generator
from abstain.confidence import DEFAULT_CALIBRATION, Calibration
from abstain.errors import ConfigError
from abstain.generate.extractive import ExtractiveGenerator
from abstain.ingest import Ingester, IngestReport, Paraphraser
from abstain.ingest.chunk import ChunkingConfig
from abstain.retrieve import Retrieval, Retriever
from abstain.stores.base import Store, open_store

MAX_QUESTION_CHARS = 4000

PRESETS: dict[str, GateThresholds] = {
    "lenient": GateThresholds(answer_gate=30.0, max_best_distance=0.65, min_term_coverage=0.1,
                              min_confidence=0.3),
    "balanced": GateThresholds(),
    "strict": GateThresholds(answer_gate=50.0, max_best_distance=0.5, min_term_coverage=0.4,
                             min_confidence=0.75),
}


class Pipeline:
    """A persistent store plus the stages that answer from it."""

    def __init__(self, store: Store, embedder: Embedder, *, workspace: str = "default",
                 retrieval: RetrievalConfig | None = None,
                 chunking: ChunkingConfig | None = None,
                 paraphraser: Paraphraser | None = None,
                 thresholds: GateThresholds | None = None,
                 rules: Sequence[tuple[str, Rule]] = (),
                 generator: Generator | None = None,
                 calibration: Calibration | None = None,
                 max_question_chars: int = MAX_QUESTION_CHARS) -> None:
        self.store = store
        self.embedder = embedder
        self.workspace = workspace
        self.retrieval = retrieval or RetrievalConfig()
        self.chunking = chunking or ChunkingConfig()
        self.paraphraser = paraphraser
        self.retriever = Retriever(store, embedder, self.retrieval)
        self.gate = Gate(thresholds, rules)
        self.generator: Generator = generator or ExtractiveGenerator()
        self.calibration = calibration or DEFAULT_CALIBRATION
        self.max_question_chars = max_question_chars

    @classmethod
    def preset(cls, name: str, *, store: str | None = None, **kwargs: Any) -> Pipeline:
        """A pipeline with named gate thresholds: ``lenient``, ``balanced`` or ``strict``."""
        if name not in PRESETS:
            raise ConfigError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
        return cls.from_settings(Settings(store=store), thresholds=PRESETS[name], **kwargs)

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

    def ask(self, question: str, *, workspace: str | None = None) -> Answer:
        """Answer from the workspace's documents, or refuse with the reason."""
        from abstain.respond import answer_question

        return answer_question(self, question, workspace or self.workspace)

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


def ask(question: str, docs: Sequence[str | Path], *, preset: str = "balanced",
        embedder: Embedder | None = None, **kwargs: Any) -> Answer:
    """One-shot: ingest ``docs`` (paths, or raw Markdown strings) into a temporary store, ask."""
    import tempfile

    from abstain.stores.sqlite import SQLiteStore

    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r}; choose from {', '.join(PRESETS)}")
    with tempfile.TemporaryDirectory(prefix="abstain-") as tmp:
        store = SQLiteStore(Path(tmp) / "oneshot.db")
        with Pipeline(store, embedder or load_embedder(), thresholds=PRESETS[preset],
                      **kwargs) as pipe:
            paths = [d for d in docs if isinstance(d, Path) or (len(str(d)) < 4096
                                                               and Path(str(d)).exists())]
            if paths:
                pipe.ingest(paths)
            for n, text in enumerate(d for d in docs if d not in paths):
                pipe.ingest_text(str(text), source=f"text-{n + 1}")
            return pipe.ask(question)
