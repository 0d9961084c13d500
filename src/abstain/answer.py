"""The result of a question: an answer with its evidence, or a refusal with its reason.

A refusal is a normal :class:`Answer` with ``answered=False``; it always
carries a machine-readable reason, a human message and ``llm_called=False``
when the gate refused before generation. :func:`abstain.trace.answer_of` is the one
place an Answer is built: from the finished :class:`~abstain.trace.Trace` of its question.
The records an Answer holds (:class:`Check`, :class:`Citation`, …) are defined in
:mod:`abstain.records` and re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from abstain.answer_confidence import confident_at
from abstain.evidence import Evidence
from abstain.records import AnswerSentence as AnswerSentence
from abstain.records import Check as Check
from abstain.records import Citation as Citation
from abstain.records import LLMCall as LLMCall
from abstain.records import Refusal as Refusal

TRIAGE_TIERS = ("confident", "uncertain", "no_match", "verification_failed")


def display_confidence(confidence: float) -> float:
    """The 0–100 number a user sees: the answer's confidence in percent, nothing else."""
    return round(100.0 * confidence, 1)


def shown_confidence(confidence: float) -> str:
    """How the CLI writes it, everywhere: ``"64.4/100"``, ``"0.0/100"``."""
    return f"{display_confidence(confidence):.1f}/100"


def triage(confidence: float | None, threshold: float | None = None, *, answered: bool = True,
           verification_failed: bool = False) -> str:
    """A support-inbox tier (:data:`TRIAGE_TIERS`), from the answer's one confidence, the
    gate threshold it was decided at and the outcome alone:

    * ``verification_failed`` — a citation did not hold up;
    * ``no_match`` (route to a person) — below ``threshold``, which is every refusal (a
      refusal states at most the threshold, :mod:`abstain.stated_confidence`);
    * ``confident`` (send) — an answer at or above
      :func:`~abstain.answer_confidence.confident_at` (the strict preset's certified
      threshold: the strict gate would answer it too), and at or above ``threshold``;
    * ``uncertain`` (a person checks first) — an answer in between.

    ``threshold`` None: no confidence check ran (the question was settled before the gate).
    """
    if verification_failed:
        return "verification_failed"
    floor = 0.0 if threshold is None else threshold
    if confidence is None or not answered or confidence < floor:
        return "no_match"
    return "confident" if confidence >= max(floor, confident_at()) else "uncertain"


@dataclass(frozen=True, slots=True)
class Answer:
    """What :meth:`abstain.Pipeline.ask` returns for every question: an answer with its
    evidence, or a refusal with its reason — a refusal is a normal result, not an error.
    :meth:`to_json` is the public schema (docs/SCHEMA.md, which explains every field);
    :meth:`audit_trail` adds what was run to decide it."""

    question: str
    """The question as asked (a chat follow-up: as read, after the message before it)."""
    answered: bool
    """True for an answer, False for a refusal (see ``refusal``)."""
    text: str
    """The answer with its ``[n]`` citation markers; for a refusal, the refusal message."""
    refusal: Refusal | None
    """Why it was refused (``reason``, ``message``, ``suggestions``, ``missing``); None for
    an answer."""
    confidence: float
    """The one confidence, 0–1: for an answer P(it is right), for a refusal P(answering
    would have been right) (docs/SCHEMA.md, "One confidence")."""
    display_confidence: float
    """The same number in percent, as the CLI and the web page print it."""
    triage: str
    """``confident``, ``uncertain``, ``no_match`` or ``verification_failed``: from the
    confidence, its threshold and the verification alone."""
    citations: tuple[Citation, ...] = ()
    """Each ``[n]`` of ``text``: the source and the exact quote that supports it."""
    checks: tuple[Check, ...] = ()
    """Every check run, in order, with its value, threshold and detail."""
    evidence: tuple[Evidence, ...] = ()
    """The retrieved passages, in the order the gate judged them."""
    llm_called: bool = False
    """Whether a language model was called; never for a refusal decided by a check."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    """Milliseconds per stage (``embed_ms``, ``retrieve_ms``, ``read_ms``, ``total_ms`` …)."""
    language: str = "en"
    """The question's language (ISO 639-1), in which a refusal's message is written."""
    workspace: str = "default"
    features: dict[str, float] = field(default_factory=dict)
    """The confidence's inputs (retrieval, coverage, checks, reading) by name."""
    generator: str = "extractive"
    """What wrote the answer: ``extractive`` (quotes, no model) or the LLM generator."""
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
    read_as: str | None = None
    """The question as abstain read it when it put a misspelt word right ("how do i reset my
    password" for "… pasword": :mod:`abstain.align.spelling`); None when read as asked."""

    @property
    def refused(self) -> bool:
        return not self.answered

    def to_json(self) -> dict[str, Any]:
        """The public schema of ``abstain ask --json`` and ``POST …/ask`` (docs/SCHEMA.md)."""
        return {
            "question": self.question,
            "read_as": self.read_as,
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
