"""The records that flow between the stages: frozen result types that import nothing.

The bottom layer of the package (docs/ARCHITECTURE.md, "Layers"): every stage, the trace,
the answer and the errors may import these; they import nothing from abstain. Each is
re-exported where it was first defined (``abstain.answer.Check``,
``abstain.generate.base.Generation``, …), so those import paths keep working.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class RefusalReason(StrEnum):
    """The machine-readable reason of a refusal (``Refusal.reason``), and the reason a check
    gives when it fails (``Check.reason``); docs/SCHEMA.md's table lists them all (a test
    keeps the two in step). A user rule's reason is its own string (``rule:NAME``)."""

    INVALID_QUESTION = "invalid_question"
    QUESTION_TOO_LONG = "question_too_long"
    NO_EVIDENCE = "no_evidence"
    WEAK_EVIDENCE = "weak_evidence"
    LOW_CONFIDENCE = "low_confidence"
    LOW_COVERAGE = "low_coverage"
    UNKNOWN_ENTITY = "unknown_entity"
    ENTITY_NOT_IN_EVIDENCE = "entity_not_in_evidence"
    ANSWER_TYPE_MISSING = "answer_type_missing"
    UNANSWERABLE = "unanswerable"
    UNKNOWN_TERM = "unknown_term"
    NO_CLEAR_WINNER = "no_clear_winner"
    NOT_RELEVANT = "not_relevant"
    NEEDS_CLARIFICATION = "needs_clarification"
    UNSUPPORTED = "unsupported"
    LOW_FAITHFULNESS = "low_faithfulness"
    VERIFICATION_FAILED = "verification_failed"
    LLM_ERROR = "llm_error"


NOT_ABOUT_THE_DOCUMENTS = frozenset({
    RefusalReason.INVALID_QUESTION, RefusalReason.QUESTION_TOO_LONG,
    RefusalReason.NEEDS_CLARIFICATION, RefusalReason.LLM_ERROR})
"""Refusals that say nothing of what the documents hold: a question abstain could not take,
one to clarify, an LLM that failed. Every other refusal is a finding about the documents."""


class CheckName(StrEnum):
    """The name of every check abstain runs (``Check.name``), in the order of a question's
    path; docs/SCHEMA.md's two check tables list them (a test keeps them in step). A user
    rule's check is named ``rule:NAME``."""

    QUESTION = "question"
    VOCABULARY = "vocabulary"
    # the gate, in the order it runs them
    EVIDENCE = "evidence"
    ENTITY_EXISTENCE = "entity_existence"
    BEST_DISTANCE = "best_distance"
    ANSWER_GATE = "answer_gate"
    TERM_COVERAGE = "term_coverage"
    INFORMATIVE_COVERAGE = "informative_coverage"
    PASSAGE_COVERAGE = "passage_coverage"
    ANSWER_TYPE = "answer_type"
    TOP_RATIO = "top_ratio"
    ANSWERABILITY = "answerability"
    CALIBRATED_CONFIDENCE = "calibrated_confidence"
    KNOWN_TERM = "known_term"
    # after the gate
    CLARIFYING_QUESTION = "clarifying_question"
    LLM_RERANK = "llm_rerank"
    GENERATION = "generation"
    QUOTE_READING = "quote_reading"
    ANSWER_SENTENCES = "answer_sentences"
    CITATIONS = "citations"
    SUPPORT = "support"
    FAITHFULNESS = "faithfulness"
    GENERATED_ANSWER_TYPE = "generated_answer_type"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a question was refused: a machine-readable reason and a message for people.
    Every reason is listed in docs/SCHEMA.md; a refusal decided by a check never called a
    language model."""

    reason: str
    """Machine-readable code: a :class:`RefusalReason` (``no_evidence``, ``unknown_entity``,
    ``low_confidence`` …) or a user rule's own."""
    message: str
    """For people, in the question's language."""
    suggestions: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    """Terms or entities of the question that the evidence lacks."""

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "message": self.message,
                "suggestions": list(self.suggestions), "missing": list(self.missing)}

    @property
    def did_you_mean(self) -> str:
        """"Did you mean: A, B?" for the suggestions, as the CLI and an agent's tool print
        them; "" without any, and for a clarifying question, which names its near terms
        itself in the question's language."""
        if not self.suggestions or self.reason == RefusalReason.UNKNOWN_TERM:
            return ""
        return f"Did you mean: {', '.join(self.suggestions)}?"


@dataclass(frozen=True, slots=True)
class Check:
    """One gate or verification check, as ``--debug`` prints it."""

    name: str
    """A :class:`CheckName`, or ``rule:NAME`` for a user rule."""
    passed: bool
    value: float | str | None
    threshold: float | str | None
    detail: str = ""
    reason: str | None = None
    """The refusal code this check produces when it fails (a :class:`RefusalReason`, or a
    user rule's own)."""

    def to_json(self) -> dict[str, Any]:
        value = round(self.value, 4) if isinstance(self.value, float) else self.value
        threshold = self.threshold
        if isinstance(threshold, float):
            threshold = round(threshold, 4)
        return {"name": self.name, "passed": self.passed, "value": value,
                "threshold": threshold, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Citation:
    """One ``[n]`` of an answer: the passage it cites and the words of it that support the
    sentence."""

    n: int
    """The marker in the answer's text, numbered 1, 2, … by first use."""
    source: str
    """The cited document's source (a file's resolved path, or the name it was given)."""
    chunk_id: str
    quote: str
    """The exact supporting text of the chunk."""
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

    @property
    def is_block(self) -> bool:
        """A quoted code block: several lines, shown as they are."""
        return "\n" in self.text

    def rendered(self) -> str:
        """The sentence followed by its markers: ``text [1][2]``; a code block fenced, its
        markers on the line after it (so a copied command carries none)."""
        markers = "".join(f"[{n}]" for n in self.cites)
        if self.is_block:
            return f"```\n{self.text}\n```\n{markers}".rstrip()
        return f"{self.text} {markers}".strip()

    def sources(self) -> list[dict[str, int]]:
        """Each distinct marker as ``{n, evidence_n}`` (the stream's ``sentence`` event)."""
        pairs = dict.fromkeys(zip(self.cites, self.evidence, strict=True))
        return [{"n": n, "evidence_n": evidence_n} for n, evidence_n in pairs]


def render_sentences(sentences: Sequence[AnswerSentence]) -> str:
    """An answer's text: its sentences in order, a code block on lines of its own."""
    out = ""
    for i, sentence in enumerate(sentences):
        if i:
            out += "\n" if sentence.is_block or sentences[i - 1].is_block else " "
        out += sentence.rendered()
    return out


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    cites: tuple[int, ...]
    """1-based indexes into the evidence list handed to the generator."""


@dataclass(frozen=True, slots=True)
class Generation:
    sentences: tuple[Sentence, ...]
    model: str
    llm_called: bool = False
    logprob: float | None = None
    """Mean token log-probability, when the server returns logprobs."""
    calls: tuple[LLMCall, ...] = ()
    clarifying: bool = False
    """True when the generator asked a question instead of answering."""
    raw: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    checks: tuple[Check, ...] = ()
    """The checks the generator ran on its own answer (the extractive answerer's
    ``quote_reading``); the generate stage records them."""
    refusal: str | None = None
    """The reason the generator refuses its own answer (a check above failed), else None:
    the generate stage ends the trace in it."""

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)


@dataclass(frozen=True, slots=True)
class AnswerFeatures:
    """The signals the calibrated confidence is computed from; all exposed in the audit trail."""

    top_fused_norm: float
    """Top fused RRF score divided by its maximum 2/(k+1): 1.0 = rank 1 in both arms."""
    in_both: float
    """1.0 when the top hit was found by both arms."""
    best_cosine: float
    """1 - the best cosine distance among the evidence (0 when no vector hit)."""
    term_coverage: float
    """Share of the question's content terms found in the evidence."""
    missing_terms: tuple[str, ...] = ()
    answerability: float | None = None
    """The reader's P(the kept evidence answers the question); None when no reader ran."""

    def as_dict(self) -> dict[str, float]:
        return {k: v for k, v in asdict(self).items()
                if k != "missing_terms" and v is not None}


@dataclass(frozen=True, slots=True)
class TermCounts:
    """How many searchable chunks of a workspace hold each phrase, and how many there are."""

    total: int
    counts: dict[str, int]
    """Phrase -> chunks holding its words in order (stemmed, whole words). Exact up to
    :data:`TERM_COUNT_CAP`; a store may estimate beyond it (the SQLite store scales its
    store-wide vocabulary to the workspace) or report the cap."""

    def count(self, phrase: str) -> int:
        return self.counts.get(phrase, 0)


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage's record, as the audit trail shows it."""

    name: str
    """``validate``, ``vocabulary``, ``rewrite``, ``retrieve``, ``rerank``, ``score``, ``gate``,
    ``clarify``, ``llm_rerank``, ``generate`` or ``verify``."""
    timings_ms: tuple[tuple[str, float], ...] = ()
    """``(key, ms)`` pairs for the answer's ``timings_ms``; a key two stages share adds up
    (scoring counts in ``gate_ms``)."""
    checks: tuple[Check, ...] = ()
    calls: tuple[LLMCall, ...] = ()
    notes: tuple[str, ...] = ()
