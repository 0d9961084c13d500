"""The first stage: a question abstain can read, or the refusal that says why not.

The question is cleaned (:func:`abstain.text.clean`), its language detected for the
refusal messages, and the question read once (:class:`abstain.question.Question`) for the
later stages. An
empty question is refused ``invalid_question``, one longer than ``max_chars``
``question_too_long``, one that refers to something it does not name ("How do I fix it?",
:attr:`abstain.question.Question.refers_to`) or names nothing at all ("thanks!")
``needs_clarification``; none reaches retrieval.
"""

from __future__ import annotations

import time
from dataclasses import replace

from abstain.errors import InputError
from abstain.messages import detect_language, refusal_message
from abstain.question import Question
from abstain.records import Check, CheckName, Refusal, RefusalReason, Stage
from abstain.text import clean
from abstain.trace import Outcome, Trace

MAX_QUESTION_CHARS = 4000
"""Longer questions are refused before retrieval (``Pipeline(max_question_chars=…)``)."""
SHOWN_CHARS = 200
"""How much of a refused too-long question the answer repeats."""


def validate(question: str, workspace: str, *, generator: str,
             max_chars: int = MAX_QUESTION_CHARS) -> Trace:
    """The trace of a new question, ended when it cannot be read."""
    started = time.perf_counter()
    text = clean(question or "")
    language = detect_language(text) if text else "en"
    trace = Trace(question, workspace, generator, started, language=language, text=text,
                  query=text)
    reason = unreadable(text, max_chars)
    if reason is RefusalReason.INVALID_QUESTION:
        return _refuse(trace, reason)
    if reason is RefusalReason.QUESTION_TOO_LONG:
        return _refuse(replace(trace, question=question[:SHOWN_CHARS]), reason,
                       n=len(text), limit=max_chars)
    parsed = Question.parse(text, language)
    if parsed.refers_to is not None:
        return _refuse(replace(trace, parsed=parsed), RefusalReason.NEEDS_CLARIFICATION,
                       detail=f"refers to “{parsed.refers_to}” and names nothing it could be",
                       reference=parsed.refers_to)
    if not parsed.terms and not parsed.mentions:  # "thanks!", "ok", "Why?"
        return _refuse(replace(trace, parsed=parsed), RefusalReason.NEEDS_CLARIFICATION,
                       detail="no word of it names something to look up", nothing=True)
    return replace(trace, parsed=parsed)


def must_be_text(value: object, what: str) -> None:
    """InputError unless ``value`` is a string (``what`` names it in the message)."""
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, not {type(value).__name__}")


def question_text(question: object) -> str:
    """A question as ``Pipeline.ask`` takes one: a string, or None, which is refused as the
    empty question is (``invalid_question``); anything else is an InputError, not a refusal
    (a caller's bug). The framework adapters take their questions by it too."""
    if question is None:
        return ""
    must_be_text(question, "the question")
    assert isinstance(question, str)
    return question


def unreadable(text: str, max_chars: int = MAX_QUESTION_CHARS) -> RefusalReason | None:
    """Why a cleaned question cannot be read: ``invalid_question`` when it has no letter or
    digit ("", "¿?", "???": nothing asked), ``question_too_long`` past ``max_chars``; None
    when it can. Asking (:func:`validate`) and MCP's ``search`` judge questions by it."""
    if not any(ch.isalnum() for ch in text):
        return RefusalReason.INVALID_QUESTION
    if len(text) > max_chars:
        return RefusalReason.QUESTION_TOO_LONG
    return None


def _refuse(trace: Trace, reason: str, *, detail: str | None = None, **fields: object
            ) -> Trace:
    check = Check(CheckName.QUESTION, False, None, None, detail or reason.replace("_", " "),
                  reason)
    refusal = Refusal(reason, refusal_message(reason, trace.language, **fields))
    return trace.end(Outcome(refusal), Stage("validate", checks=(check,)))
