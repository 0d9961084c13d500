"""The trace of one question: what each stage of the path decided, took, called and noted.

:meth:`abstain.pipeline.Pipeline.ask` threads one frozen :class:`Trace` through the
stages; each stage returns a new trace with its :class:`Stage` record appended and what it
decided set (the evidence, the confidence, the tier, …). The first stage that refuses sets
the :class:`Outcome`, and every later stage passes an ended trace through unchanged.
:func:`answer_of` builds the :class:`~abstain.answer.Answer` from the
finished trace, in one place: its checks, LLM calls, notes and timings are the stages'
records in order.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from abstain.answer import Answer, display_confidence, triage
from abstain.citations import number_by_first_use
from abstain.evidence import Evidence
from abstain.messages import refusal_message
from abstain.records import (
    AnswerFeatures,
    AnswerSentence,
    Check,
    Citation,
    Generation,
    LLMCall,
    Refusal,
    Sentence,
    render_sentences,
)
from abstain.records import Stage as Stage
from abstain.stated_confidence import gate_threshold, stated

if TYPE_CHECKING:
    from abstain.align import Focus
    from abstain.question import Question


VERIFICATION_FAILED = "verification_failed"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the question ended: the answer's sentences and citations, or the refusal."""

    refusal: Refusal | None = None
    sentences: tuple[AnswerSentence, ...] = ()
    """Numbered by first use, as the answer shows them."""
    citations: tuple[Citation, ...] = ()
    triage: str | None = None
    """:data:`VERIFICATION_FAILED` when a citation did not hold up; otherwise the tier is the
    confidence's own."""
    unsupported_claims: tuple[str, ...] = ()
    faithfulness: float | None = None
    faithfulness_components: Mapping[str, float | None] = field(default_factory=dict)

    def with_sentences(self, sentences: Sequence[Sentence], citations: Sequence[Citation]
                       ) -> Outcome:
        """This outcome answering with sentences and citations that cite evidence by its
        number; the markers are renumbered 1..n by first use (:mod:`abstain.citations`)."""
        shown, numbered = number_by_first_use(sentences, citations)
        return replace(self, refusal=None, sentences=shown, citations=numbered)


@dataclass(frozen=True, slots=True)
class Trace:
    """One question on its way through the stages; see the module docstring."""

    question: str
    """As asked (its first 200 characters when it is too long to read)."""
    workspace: str
    generator: str
    """The name of the pipeline's generator."""
    started: float
    """``time.perf_counter()`` when the question arrived; ``total_ms`` counts from here."""
    language: str = "en"
    text: str = ""
    """The cleaned question every stage reads."""
    parsed: Question | None = None
    """The question read once (:meth:`abstain.question.Question.parse`): what it names and
    asks for, its keyword query; every later stage reads it."""
    query: str = ""
    """What retrieval searches: ``text``, or the LLM's rewrite of it."""
    stages: tuple[Stage, ...] = ()
    hits: tuple[Evidence, ...] = ()
    """What retrieval found, best first (reordered when a reranker ran)."""
    retrieved: tuple[Evidence, ...] = ()
    """The top k of the hits with their chunk confidence: what the gate read."""
    evidence: tuple[Evidence, ...] = ()
    """The answer's evidence: kept by the gate (and the LLM rerank), numbered [1]..[n] for
    the generator; on a gate refusal, what was retrieved when nothing was kept."""
    focus: Focus | None = None
    features: AnswerFeatures | None = None
    confidence: float = 0.0
    """The calibrated answer confidence (0–1)."""
    tier: str = "retrieval"
    """Which signal gated the answer: ``retrieval``, ``reranker``, ``llm_rerank``, or
    ``vocabulary`` (a concept's definition, :mod:`abstain.terminology`)."""
    given_to_generator: bool = False
    generation: Generation | None = None
    outcome: Outcome | None = None
    """None while the question is on its way."""

    @property
    def ended(self) -> bool:
        return self.outcome is not None

    def then(self, stage: Stage, **decided: Any) -> Trace:
        """This trace with ``stage`` recorded and what it decided (fields of the trace) set."""
        return replace(self, stages=(*self.stages, stage), **decided)

    def end(self, outcome: Outcome, stage: Stage, **decided: Any) -> Trace:
        return self.then(stage, outcome=outcome, **decided)

    def refuse(self, stage: Stage, reason: str, **decided: Any) -> Trace:
        """End with the refusal ``reason`` and its standard message."""
        refusal = Refusal(reason, refusal_message(reason, self.language))
        return self.end(Outcome(refusal), stage, **decided)

    def ran(self, name: str) -> bool:
        return any(s.name == name for s in self.stages)

    @property
    def checks(self) -> tuple[Check, ...]:
        return tuple(c for s in self.stages for c in s.checks)

    @property
    def calls(self) -> tuple[LLMCall, ...]:
        return tuple(c for s in self.stages for c in s.calls)

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(n for s in self.stages for n in s.notes)

    def timings_ms(self) -> dict[str, float]:
        """Each stage's timings in order, then ``total_ms`` (until now)."""
        timings: dict[str, float] = {}
        for stage in self.stages:
            for key, value in stage.timings_ms:
                timings[key] = timings.get(key, 0.0) + value
        timings["total_ms"] = ms_since(self.started)
        return timings


def ms_since(started: float) -> float:
    """Milliseconds since ``started`` (a ``time.perf_counter()`` value), to the microsecond."""
    return round((time.perf_counter() - started) * 1000, 3)


def answer_of(trace: Trace) -> Answer:
    """The Answer of a finished trace (every Answer is built here).

    Its checks, LLM calls, notes and timings are the stages' records in order. Its one
    confidence is :func:`abstain.stated_confidence.stated` (P(the answer is right), or for a
    refusal P(answering would have been right)); the display is that number in percent and
    the triage tier a function of it and the verification outcome alone.
    """
    outcome = trace.outcome
    if outcome is None:
        raise ValueError("the question's trace has not ended: no answer or refusal yet")
    answered = outcome.refusal is None
    calls = trace.calls
    checks = trace.checks
    confidence = stated(trace.confidence, checks, answered=answered,
                        reason=outcome.refusal.reason if outcome.refusal else None)
    tier = triage(confidence, gate_threshold(checks), answered=answered,
                  verification_failed=outcome.triage == VERIFICATION_FAILED)
    return Answer(
        question=trace.question, answered=answered,
        text=render_sentences(outcome.sentences), refusal=outcome.refusal,
        confidence=confidence, display_confidence=display_confidence(confidence),
        triage=tier,
        citations=outcome.citations,
        checks=checks, evidence=trace.evidence, llm_called=bool(calls),
        timings_ms=trace.timings_ms(), language=trace.language, workspace=trace.workspace,
        features=trace.features.as_dict() if trace.features is not None else {},
        generator=trace.generator, tier=trace.tier,
        unsupported_claims=outcome.unsupported_claims, faithfulness=outcome.faithfulness,
        faithfulness_components=dict(outcome.faithfulness_components), llm_calls=calls,
        notes=trace.notes, given_to_generator=trace.given_to_generator,
        sentences=outcome.sentences,
        read_as=read_as(trace))


def read_as(trace: Trace) -> str | None:
    """The question as abstain read it when that differs from what was asked (a misspelt word
    put right), else None: ``Answer.read_as`` and the stream's ``meta`` event."""
    if trace.parsed is None or not trace.text or trace.parsed.text == trace.text:
        return None
    return trace.parsed.text
