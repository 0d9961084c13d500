"""Clarifying questions: when the model asks one instead of answering, and the opt-in
clarify-only prompt when retrieval finds nothing (``Pipeline(clarify_on_empty=True)``).

Both are refusals that carry the question; every call is in ``llm_calls`` and
every fallback in ``notes``.
"""

from __future__ import annotations

from dataclasses import replace

from abstain.errors import LLMError
from abstain.generate.base import Generator, clarifies
from abstain.generate.cited import is_question
from abstain.messages import refusal_message
from abstain.records import Check, CheckName, Generation, Refusal, RefusalReason, Stage
from abstain.text import truncate
from abstain.trace import Outcome, Trace


def clarification(trace: Trace, generation: Generation) -> Trace:
    """The model asked a question instead of answering: a refusal that carries it."""
    question = " ".join(s.text for s in generation.sentences if is_question(s))
    base = refusal_message(RefusalReason.NEEDS_CLARIFICATION, trace.language)
    check = Check(CheckName.CLARIFYING_QUESTION, False, None, None,
                  "no source applied; the model asked a clarifying question",
                  RefusalReason.NEEDS_CLARIFICATION)
    refusal = Refusal(RefusalReason.NEEDS_CLARIFICATION, f"{base} {question}".strip(),
                      (question,) if question else ())
    return trace.end(Outcome(refusal), Stage("clarify", checks=(check,)))


def ask_to_clarify(trace: Trace, generator: Generator) -> Trace:
    """Zero hits: the clarify-only prompt (no documents) turns the gate's refusal into a
    question. Any other trace passes through, ``unknown_term`` too (it asks already)."""
    ended = trace.outcome
    if (not clarifies(generator) or ended is None or ended.refusal is None or trace.hits
            or not trace.ran("gate") or ended.refusal.reason == RefusalReason.UNKNOWN_TERM):
        return trace
    assert trace.parsed is not None
    try:
        generation = generator.clarify(trace.parsed)
    except LLMError as exc:
        return trace.then(Stage("clarify", calls=exc.calls,
                                notes=(f"clarify-only prompt failed: {exc}",)))
    asked = [s.text for s in generation.sentences if is_question(s) and not s.cites]
    if not asked:
        return trace.then(Stage("clarify", calls=generation.calls, notes=(
            "clarify-only reply was not a question "
            f"({truncate(generation.raw, 80)!r}); kept the standard refusal",)))
    text = " ".join(asked[:2])
    refusal = replace(ended.refusal, message=f"{ended.refusal.message} {text}",
                      suggestions=(*ended.refusal.suggestions, text))
    return trace.then(Stage("clarify", calls=generation.calls, notes=(
        "no hits: asked a clarifying question (clarify-only prompt, no documents shown)",)),
        outcome=replace(ended, refusal=refusal))
