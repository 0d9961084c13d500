"""Clarifying questions: when the model asks one instead of answering, and the opt-in
clarify-only prompt when retrieval finds nothing (``Pipeline(clarify_on_empty=True)``).

Both are refusals that carry the question; every call is in ``llm_calls`` and
every fallback in ``notes``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from abstain.answer import Answer, Check, Refusal
from abstain.errors import LLMError
from abstain.generate.base import Generation, Generator
from abstain.generate.cited import is_question
from abstain.messages import refusal_message
from abstain.text import truncate

if TYPE_CHECKING:
    from abstain.respond import Prepared


def clarification(state: Prepared, generation: Generation) -> Answer:
    """The model asked a question instead of answering: a refusal that carries it."""
    question = " ".join(s.text for s in generation.sentences if is_question(s))
    base = refusal_message("needs_clarification", state.language)
    check = Check("clarifying_question", False, None, None,
                  "no source applied; the model asked a clarifying question",
                  "needs_clarification")
    return state.answer(answered=False, refusal=Refusal(
        "needs_clarification", f"{base} {question}".strip(), (question,) if question else ()),
        checks=(check,), calls=generation.calls, notes=generation.notes)


def ask_to_clarify(generator: Generator, question: str, refused: Answer) -> Answer:
    """Zero hits: the clarify-only prompt (no documents) turns the refusal into a question."""
    clarify = getattr(generator, "clarify", None)
    if clarify is None or refused.refusal is None:
        return refused
    try:
        generation: Generation = clarify(question)
    except LLMError as exc:
        return replace(refused, llm_called=True, llm_calls=(*refused.llm_calls, *exc.calls),
                       notes=(*refused.notes, f"clarify-only prompt failed: {exc}"))
    asked = [s.text for s in generation.sentences if is_question(s) and not s.cites]
    calls = (*refused.llm_calls, *generation.calls)
    if not asked:
        return replace(refused, llm_called=True, llm_calls=calls, notes=(
            *refused.notes, "clarify-only reply was not a question "
            f"({truncate(generation.raw, 80)!r}); kept the standard refusal"))
    text = " ".join(asked[:2])
    refusal = replace(refused.refusal, message=f"{refused.refusal.message} {text}",
                      suggestions=(*refused.refusal.suggestions, text))
    return replace(refused, refusal=refusal, llm_called=True, llm_calls=calls,
                   notes=(*refused.notes, "no hits: asked a clarifying question "
                                          "(clarify-only prompt, no documents shown)"))
