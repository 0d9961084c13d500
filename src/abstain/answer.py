"""The result of a question: an answer with its evidence, or a refusal with its reason.

A refusal is a normal :class:`Answer` with ``answered=False``; it always
carries a machine-readable reason, a human message and ``llm_called=False``
when the gate refused before generation. :func:`answer_of` is the one place an
Answer is built: from the finished :class:`~abstain.trace.Trace` of its question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from abstain.evidence import Evidence

if TYPE_CHECKING:
    from abstain.trace import Trace

TRIAGE_CONFIDENT = 0.75
TRIAGE_UNCERTAIN = 0.45


@dataclass(frozen=True, slots=True)
class Refusal:
    reason: str
    """Machine-readable code, e.g. ``no_evidence``, ``unknown_entity``, ``low_confidence``."""
    message: str
    """For people, in the question's language."""
    suggestions: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    """Terms or entities of the question that the evidence lacks."""

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "message": self.message,
                "suggestions": list(self.suggestions), "missing": list(self.missing)}


@dataclass(frozen=True, slots=True)
class Check:
    """One gate or verification check, as ``--debug`` prints it."""

    name: str
    passed: bool
    value: float | str | None
    threshold: float | str | None
    detail: str = ""
    reason: str | None = None
    """The refusal code this check produces when it fails."""

    def to_json(self) -> dict[str, Any]:
        value = round(self.value, 4) if isinstance(self.value, float) else self.value
        threshold = self.threshold
        if isinstance(threshold, float):
            threshold = round(threshold, 4)
        return {"name": self.name, "passed": self.passed, "value": value,
                "threshold": threshold, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Citation:
    n: int
    source: str
    chunk_id: str
    quote: str
    title: str = ""
    evidence_n: int | None = None
    """The number of the quoted source in the answer's ``evidence``, when ``n`` (the
    marker in the text, numbered by first use) differs from it."""

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "source": self.source, "chunk_id": self.chunk_id,
                "quote": self.quote, "title": self.title,
                "evidence_n": self.evidence_n or self.n}


@dataclass(frozen=True, slots=True)
class LLMCall:
    """One call to a language model, as the audit trail records it."""

    purpose: str
    model: str
    outcome: str
    latency_ms: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None
    attempts: int = 1
    """Tries made, retries after connect errors, 5xx and 429 included."""
    tokens_estimated: bool = False
    """The server reported no usage: the token counts are characters / 4 estimates."""

    def to_json(self) -> dict[str, Any]:
        return {"purpose": self.purpose, "model": self.model, "outcome": self.outcome,
                "latency_ms": self.latency_ms, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "error": self.error,
                "attempts": self.attempts, "tokens_estimated": self.tokens_estimated}


@dataclass(frozen=True, slots=True)
class AnswerSentence:
    """One sentence of an answer as the reader sees it: its text and its ``[n]`` markers."""

    text: str
    cites: tuple[int, ...] = ()
    """The markers, numbered by first use in the answer (as ``Answer.text`` shows them)."""
    evidence: tuple[int, ...] = ()
    """The same sources by their number in ``Answer.evidence`` (``Citation.evidence_n``)."""

    def rendered(self) -> str:
        """The sentence followed by its markers: ``text [1][2]``."""
        return f"{self.text} {''.join(f'[{n}]' for n in self.cites)}".strip()

    def sources(self) -> list[dict[str, int]]:
        """Each distinct marker as ``{n, evidence_n}`` (the stream's ``sentence`` event)."""
        pairs = dict.fromkeys(zip(self.cites, self.evidence, strict=True))
        return [{"n": n, "evidence_n": evidence_n} for n, evidence_n in pairs]


def display_confidence(answered: bool, evidence: tuple[Evidence, ...]) -> float:
    """The 0–100 number a user sees, in three bands that never overlap, so the number alone
    says what happened: answered 70–100, refused with evidence 20–50, no evidence 5–10."""
    scores = [e.confidence for e in evidence if e.confidence is not None]
    if not scores:
        return 10.0 if answered else 5.0
    best = max(scores)
    if not answered:
        return round(20 + (best / 100) * 30, 1)
    return round(70 + min(1.0, max(0.0, (best - 20) / 60)) * 30, 1)


def triage(confidence: float | None, *, verification_failed: bool = False) -> str:
    """A support-inbox tier: ``confident`` (send), ``uncertain`` (a person checks first),
    ``no_match`` (route to a person), ``verification_failed`` (the answer was retracted)."""
    if verification_failed:
        return "verification_failed"
    if confidence is None:
        return "no_match"
    if confidence >= TRIAGE_CONFIDENT:
        return "confident"
    if confidence >= TRIAGE_UNCERTAIN:
        return "uncertain"
    return "no_match"


@dataclass(frozen=True, slots=True)
class Answer:
    question: str
    answered: bool
    text: str
    refusal: Refusal | None
    confidence: float
    display_confidence: float
    triage: str
    citations: tuple[Citation, ...] = ()
    checks: tuple[Check, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    llm_called: bool = False
    timings_ms: dict[str, float] = field(default_factory=dict)
    language: str = "en"
    workspace: str = "default"
    features: dict[str, float] = field(default_factory=dict)
    generator: str = "extractive"
    tier: str = "retrieval"
    """Which signal gated the answer: ``retrieval``, ``reranker``, ``llm_rerank``, or
    ``vocabulary`` (a concept's definition, cited to its URI)."""
    unsupported_claims: tuple[str, ...] = ()
    faithfulness: float | None = None
    faithfulness_components: dict[str, float | None] = field(default_factory=dict)
    llm_calls: tuple[LLMCall, ...] = ()
    notes: tuple[str, ...] = ()
    """Anything degraded or substituted on the way (a fallback is never silent)."""
    given_to_generator: bool = False
    """Whether ``evidence`` was handed to the generator (False for a gate refusal)."""
    sentences: tuple[AnswerSentence, ...] = ()
    """The answer's sentences, the structure behind ``text`` (the stream sends them one by
    one); () for a refusal."""

    @property
    def refused(self) -> bool:
        return not self.answered

    def to_json(self) -> dict[str, Any]:
        """The public schema of ``abstain ask --json`` and ``POST …/ask`` (docs/SCHEMA.md)."""
        return {
            "question": self.question,
            "answered": self.answered,
            "answer": self.text if self.answered else None,
            "refusal": self.refusal.to_json() if self.refusal else None,
            "confidence": round(self.confidence, 4),
            "display_confidence": self.display_confidence,
            "triage": self.triage,
            "citations": [c.to_json() for c in self.citations],
            "checks": [c.to_json() for c in self.checks],
            "llm_called": self.llm_called,
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
            "unsupported_claims": list(self.unsupported_claims),
            "faithfulness": None if self.faithfulness is None else round(self.faithfulness, 4),
            "faithfulness_components": self.faithfulness_components,
            "language": self.language,
            "tier": self.tier,
            "evidence": self.evidence_json(),
        }

    def evidence_json(self) -> list[dict[str, Any]]:
        """Each source as ``search --json`` prints it, plus ``n`` (its number in the
        answer's evidence), ``used`` (handed to the generator) and ``cited``."""
        cited = {c.evidence_n or c.n for c in self.citations}
        return [{"n": n, **e.to_json(), "used": self.given_to_generator, "cited": n in cited}
                for n, e in enumerate(self.evidence, start=1)]

    def audit_trail(self) -> dict[str, Any]:
        """Everything needed to reconstruct why this answer (or refusal) came out."""
        payload = self.to_json()
        payload.update({
            "workspace": self.workspace,
            "generator": self.generator,
            "features": self.features,
            "checks": [{**c.to_json(), "reason": c.reason} for c in self.checks],
            "llm_calls": [c.to_json() for c in self.llm_calls],
            "notes": list(self.notes),
        })
        return payload


def answer_of(trace: Trace) -> Answer:
    """The Answer of a finished trace (every Answer is built here).

    Its checks, LLM calls, notes and timings are the stages' records in order. The display
    confidence reads the evidence handed to the generator, or for a gate refusal what
    retrieval found; the triage tier is the confidence's unless the outcome set one.
    """
    outcome = trace.outcome
    if outcome is None:
        raise ValueError("the question's trace has not ended: no answer or refusal yet")
    answered = outcome.refusal is None
    calls = trace.calls
    shown = trace.evidence if trace.given_to_generator else trace.retrieved
    return Answer(
        question=trace.question, answered=answered,
        text=" ".join(s.rendered() for s in outcome.sentences), refusal=outcome.refusal,
        confidence=trace.confidence, display_confidence=display_confidence(answered, shown),
        triage=outcome.triage or triage(trace.confidence), citations=outcome.citations,
        checks=trace.checks, evidence=trace.evidence, llm_called=bool(calls),
        timings_ms=trace.timings_ms(), language=trace.language, workspace=trace.workspace,
        features=trace.features.as_dict() if trace.features is not None else {},
        generator=trace.generator, tier=trace.tier,
        unsupported_claims=outcome.unsupported_claims, faithfulness=outcome.faithfulness,
        faithfulness_components=dict(outcome.faithfulness_components), llm_calls=calls,
        notes=trace.notes, given_to_generator=trace.given_to_generator,
        sentences=outcome.sentences)
