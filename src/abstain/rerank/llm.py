"""Optional LLM rerank: grade each source 0–3 for the question, keep the relevant ones.

It runs only after the retrieval gate has passed, so the LLM is never called for
a question the gate refuses, and it can only make the gate stricter (tier
``llm_rerank``: at least one source graded ≥ ``threshold``, else the refusal
``not_relevant``). A failed or unparseable rerank (or one past its timeout)
falls back to retrieval-score gating; the call is in the audit trail and a note
names the fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from abstain.errors import LLMError
from abstain.evidence import Evidence
from abstain.generate.base import ChatModel
from abstain.generate.prompts import RERANK_THRESHOLD, context_texts, parse_rerank, rerank_messages
from abstain.records import Check, CheckName, LLMCall, RefusalReason, Stage
from abstain.trace import Trace


@dataclass(frozen=True, slots=True)
class RerankConfig:
    threshold: int = RERANK_THRESHOLD
    """Grade (0–3) a source needs to count as relevant."""
    timeout_s: float = 15.0
    max_sources: int = 8


@dataclass(frozen=True, slots=True)
class Rerank:
    evidence: tuple[Evidence, ...] | None
    """Graded sources, best first, with ``rerank_score``; None on fallback."""
    calls: tuple[LLMCall, ...]
    note: str | None
    best: int | None = None


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


def rerank_gate(trace: Trace, model: ChatModel, config: RerankConfig) -> Trace:
    """Tier ``llm_rerank``: keep sources graded ≥ threshold, refuse when none is; an ended
    trace passes through."""
    if trace.ended:
        return trace
    outcome = llm_rerank(model, trace.text, trace.evidence, config)
    if outcome.evidence is None:
        return trace.then(Stage("llm_rerank", calls=outcome.calls,
                                notes=(outcome.note or "LLM rerank failed",)), tier="retrieval")
    passed = bool(outcome.evidence)
    check = Check(CheckName.LLM_RERANK, passed, outcome.best, config.threshold,
                  f"{len(outcome.evidence)} of {min(len(trace.evidence), config.max_sources)} "
                  f"sources graded >= {config.threshold} (0–3)", RefusalReason.NOT_RELEVANT)
    stage = Stage("llm_rerank", checks=(check,), calls=outcome.calls)
    if not passed:
        return trace.refuse(stage, RefusalReason.NOT_RELEVANT, tier="llm_rerank")
    return trace.then(stage, tier="llm_rerank", evidence=outcome.evidence)
