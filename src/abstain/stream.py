"""Answers as a stream of events, for SSE and other incremental clients.

Event order, always::

    meta  (evidence, confidence, checks)          exactly once, first
    refusal                                       on a refusal (then done); no LLM call
    sentence*                                     each one only after it passed verification
    retraction                                    if a later check withdraws the answer
    done                                          exactly once, last (carries the final Answer JSON)

The extractive answerer produces verified sentences at once. LLM generators
that stream are verified sentence by sentence (see ``abstain.verify``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from abstain.answer import Answer
    from abstain.pipeline import Pipeline


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    """``meta``, ``sentence``, ``refusal``, ``retraction`` or ``done``."""
    data: dict[str, Any] = field(default_factory=dict)


def meta_event(answer: Answer) -> Event:
    return Event("meta", {
        "question": answer.question,
        "confidence": round(answer.confidence, 4),
        "display_confidence": answer.display_confidence,
        "triage": answer.triage,
        "checks": [c.to_json() for c in answer.checks],
        "evidence": [e.to_json() for e in answer.evidence],
        "language": answer.language,
    })


def stream_answer(pipe: Pipeline, question: str, workspace: str | None = None
                  ) -> Iterator[Event]:
    """Events for one question. The gate runs before anything is generated."""
    answer = pipe.ask(question, workspace=workspace)
    yield meta_event(answer)
    if not answer.answered:
        assert answer.refusal is not None
        yield Event("refusal", answer.refusal.to_json())
    else:
        for n, citation_text in enumerate(_sentences(answer), start=1):
            yield Event("sentence", {"n": n, "text": citation_text})
    yield Event("done", answer.to_json())


def _sentences(answer: Answer) -> list[str]:
    """The answer's sentences with their [n] markers, as shown to the reader."""
    import re

    return [s for s in re.split(r"(?<=\])\s+", answer.text) if s]
