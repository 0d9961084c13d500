"""Hybrid retrieval: vector and keyword arms in parallel, collapsed, fused, hydrated.

:func:`retrieve` is the question path's stage: it searches deeper when the question names
identifiers or a reranker reorders the top hits, and runs that reranker.
"""

from __future__ import annotations

import contextvars
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from abstain.config import RetrievalConfig
from abstain.embed.base import Embedder
from abstain.errors import UnknownWorkspace
from abstain.evidence import ArmHit, Evidence
from abstain.fuse import collapse, rrf
from abstain.ingest.screen import audit_notes
from abstain.query import KeywordQuery
from abstain.records import Stage
from abstain.stores import notes as store_notes
from abstain.stores.base import EmbedderInfo, Store
from abstain.trace import Trace, ms_since

if TYPE_CHECKING:
    from abstain.rerank import Reranker

IDENTIFIER_DEPTH = 20
"""Fused hits, and keyword hits, searched for the chunks that hold a question's identifiers,
define its one-letter flags or are the section an option name it writes heads ("audit-command":
a document's own section may rank below the top k on cosine while the keyword arm has it
first, or below the option's examples)."""


@dataclass(frozen=True, slots=True)
class Retrieval:
    question: str
    workspace: str
    evidence: tuple[Evidence, ...]
    vector_hits: tuple[ArmHit, ...]
    """The vector arm after collapsing, ranks renumbered."""
    keyword_hits: tuple[ArmHit, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    """What the store noted while searching (a replica fallback: :mod:`abstain.stores.notes`)."""


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
                 check_workspace: bool = True, keyword_top: int = 0,
                 keywords: KeywordQuery | None = None) -> Retrieval:
        """The fused top k, plus (``keyword_top``) the keyword arm's best hits that fusion
        ranked below them: an exact identifier match that the vector arm missed.
        ``keywords``: the question's keyword query when already read (else read from
        ``question``)."""
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
            timings["embed_ms"] = ms_since(t0)
            t1 = time.perf_counter()
            hits = self.store.search_vector(query, workspace=workspace, limit=cfg.candidates,
                                            published_only=cfg.published_only)
            timings["vector_ms"] = ms_since(t1)
            return hits

        def keyword_arm() -> list[ArmHit]:
            t0 = time.perf_counter()
            hits = self.store.search_text(keywords or question, workspace=workspace,
                                          limit=cfg.candidates,
                                          published_only=cfg.published_only)
            timings["keyword_ms"] = ms_since(t0)
            return hits

        with store_notes.collecting() as noted:
            if cfg.parallel:
                keyword_future = self._pool.submit(contextvars.copy_context().run, keyword_arm)
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
        timings["retrieve_ms"] = ms_since(started)
        return Retrieval(question, workspace, evidence, tuple(vector), tuple(keyword), timings,
                         tuple(noted))


def retrieve(trace: Trace, retriever: Retriever, *, top_k: int,
             reranker: Reranker | None = None, rerank_depth: int = 0) -> Trace:
    """The retrieve stage: the question's hits (``trace.query`` searched), reordered by
    ``reranker`` over the first ``rerank_depth`` when one is given; an ended trace passes
    through. An unknown workspace raises :class:`~abstain.errors.UnknownWorkspace`."""
    if trace.ended:
        return trace
    assert trace.parsed is not None
    named = bool(trace.parsed.identifiers or trace.parsed.letter_flags
                 or any(n.heading_only for n in trace.parsed.asked_names))
    depth = None if reranker is None else max(rerank_depth, top_k)
    if named:  # look deeper for the chunks that hold what the question names
        depth = max(depth or top_k, IDENTIFIER_DEPTH)
    # The question's keyword query, read once; an LLM's rewrite of it is a text of its own.
    keywords = trace.parsed.keywords if trace.query == trace.parsed.text else None
    retrieval = retriever.retrieve(trace.query, workspace=trace.workspace, top_k=depth,
                                   keyword_top=IDENTIFIER_DEPTH if named else 0,
                                   keywords=keywords)
    screened = audit_notes((ev.source, ev.document.metadata)
                           for ev in retrieval.evidence[:top_k])
    trace = trace.then(Stage("retrieve", timings_ms=tuple(retrieval.timings_ms.items()),
                             notes=(*retrieval.notes, *screened)), hits=retrieval.evidence)
    if reranker is None:
        return trace
    from abstain.rerank import rerank

    started = time.perf_counter()
    hits = rerank(reranker, trace.text, trace.hits, depth=depth or 0)
    return trace.then(Stage("rerank", timings_ms=(("rerank_ms", ms_since(started)),)),
                      hits=hits, tier="reranker")
