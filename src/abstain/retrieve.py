"""Hybrid retrieval: vector and keyword arms in parallel, collapsed, fused, hydrated."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from abstain.config import RetrievalConfig
from abstain.embed.base import Embedder
from abstain.errors import UnknownWorkspace
from abstain.evidence import ArmHit, Evidence
from abstain.fuse import collapse, rrf
from abstain.stores.base import EmbedderInfo, Store


@dataclass(frozen=True, slots=True)
class Retrieval:
    question: str
    workspace: str
    evidence: tuple[Evidence, ...]
    vector_hits: tuple[ArmHit, ...]
    """The vector arm after collapsing, ranks renumbered."""
    keyword_hits: tuple[ArmHit, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)


class Retriever:
    def __init__(self, store: Store, embedder: Embedder,
                 config: RetrievalConfig | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="abstain-arm")
        store.check_embedder(EmbedderInfo(embedder.name, embedder.dim))

    def close(self) -> None:
        self._pool.shutdown(wait=False)

    def retrieve(self, question: str, *, workspace: str, top_k: int | None = None,
                 check_workspace: bool = True, keyword_top: int = 0) -> Retrieval:
        """The fused top k, plus (``keyword_top``) the keyword arm's best hits that fusion
        ranked below them: an exact identifier match that the vector arm missed."""
        if check_workspace:
            known = self.store.workspaces()
            if workspace not in known:
                names = ", ".join(known) or "none yet"
                raise UnknownWorkspace(
                    f"workspace {workspace!r} has no documents (workspaces: {names})",
                    workspace=workspace, location=str(self.store))
        cfg = self.config
        timings: dict[str, float] = {}
        started = time.perf_counter()

        def vector_arm() -> list[ArmHit]:
            t0 = time.perf_counter()
            query = self.embedder.embed_batch([question])[0]
            timings["embed_ms"] = _ms(t0)
            t1 = time.perf_counter()
            hits = self.store.search_vector(query, workspace=workspace, limit=cfg.candidates,
                                            published_only=cfg.published_only)
            timings["vector_ms"] = _ms(t1)
            return hits

        def keyword_arm() -> list[ArmHit]:
            t0 = time.perf_counter()
            hits = self.store.search_text(question, workspace=workspace, limit=cfg.candidates,
                                          published_only=cfg.published_only)
            timings["keyword_ms"] = _ms(t0)
            return hits

        if cfg.parallel:
            keyword_future = self._pool.submit(keyword_arm)
            vector_raw = vector_arm()
            keyword_raw = keyword_future.result()
        else:
            vector_raw, keyword_raw = vector_arm(), keyword_arm()
        vector, keyword = collapse(vector_raw), collapse(keyword_raw)
        ranked = rrf(vector, keyword, k=cfg.rrf_k)
        fused = ranked[: top_k or cfg.top_k]
        if keyword_top:
            wanted = {h.target for h in keyword[:keyword_top]} - {f.chunk_id for f in fused}
            fused += [f for f in ranked if f.chunk_id in wanted]
        stored = self.store.get_chunks([f.chunk_id for f in fused])
        evidence = tuple(
            Evidence(hit=f, chunk=s.chunk, document=s.document, parent_text=s.parent_text)
            for f in fused if (s := stored.get(f.chunk_id)) is not None
        )
        timings["retrieve_ms"] = _ms(started)
        return Retrieval(question, workspace, evidence, tuple(vector), tuple(keyword), timings)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
