"""Optional LLM steps around retrieval: query rewrite and a 0–3 reranker.

Both degrade instead of failing, and say so: a failed rewrite falls back to the
raw question; a failed or unparseable rerank (or one past its timeout) falls
back to retrieval-score gating. Either way the call is in the audit trail and a
note names the fallback.

The reranker runs only after the retrieval gate has passed, so the LLM is never
called for a question the gate refuses; it can only make the gate stricter
(tier ``llm_rerank``: at least one source graded ≥ ``threshold``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from abstain.answer import LLMCall
from abstain.errors import LLMError
from abstain.evidence import Evidence
from abstain.generate.base import ChatModel
from abstain.generate.prompts import (
    RERANK_THRESHOLD,
    context_texts,
    parse_rerank,
    parse_rewrite,
    rerank_messages,
    rewrite_messages,
)


@dataclass(frozen=True, slots=True)
class RerankConfig:
    threshold: int = RERANK_THRESHOLD
    """Grade (0–3) a source needs to count as relevant."""
    timeout_s: float = 15.0
    max_sources: int = 8


@dataclass(frozen=True, slots=True)
class Rewrite:
    query: str
    """The text retrieval searches with (the raw question on fallback)."""
    calls: tuple[LLMCall, ...]
    note: str | None


@dataclass(frozen=True, slots=True)
class Rerank:
    evidence: tuple[Evidence, ...] | None
    """Graded sources, best first, with ``rerank_score``; None on fallback."""
    calls: tuple[LLMCall, ...]
    note: str | None
    best: int | None = None


def rewrite_query(model: ChatModel, question: str) -> Rewrite:
    try:
        result = model.chat(rewrite_messages(question), purpose="rewrite", max_tokens=64)
    except LLMError as exc:
        return Rewrite(question, exc.calls, f"query rewrite failed ({exc}); searched the raw "
                                            "question")
    query = parse_rewrite(result.text, question)
    if query is None:
        return Rewrite(question, (result.call,), "query rewrite returned nothing usable; "
                                                 "searched the raw question")
    return Rewrite(query, (result.call,), f"searched the rewritten query {query!r}")


def llm_rerank(model: ChatModel, question: str, evidence: Sequence[Evidence],
               config: RerankConfig) -> Rerank:
    pool = tuple(evidence[: config.max_sources])
    try:
        result = model.chat(rerank_messages(question, context_texts(pool)), purpose="rerank",
                            max_tokens=12 * len(pool) + 16, timeout=config.timeout_s)
    except LLMError as exc:
        return Rerank(None, exc.calls, f"LLM rerank failed ({exc}); gated on retrieval scores")
    grades = parse_rerank(result.text, len(pool))
    if grades is None:
        return Rerank(None, (result.call,), "LLM rerank reply could not be read; gated on "
                                            "retrieval scores")
    graded = [ev.with_scores(rerank_score=float(grades[n])) for n, ev in enumerate(pool, 1)]
    ranked = sorted(graded, key=lambda e: -(e.rerank_score or 0))  # stable: fused order on ties
    relevant = tuple(e for e in ranked if (e.rerank_score or 0) >= config.threshold)
    return Rerank(relevant, (result.call,), None, max(grades.values()))
