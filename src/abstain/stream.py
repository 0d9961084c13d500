"""Answers as a stream of events, for SSE and other incremental clients.

Event order, always::

    meta  (evidence, confidence, checks)          exactly once, first
    refusal                                       on a refusal (then done); no LLM call
    sentence*                                     each one only after it passed verification
    retraction                                    if a later check withdraws the answer
    done                                          exactly once, last (carries the final Answer JSON)

The extractive answerer produces verified sentences at once. LLM generators
that stream (``streams = True``) are verified sentence by sentence (see
``abstain.verify``): each sentence is checked the moment it is complete and
yielded only if it stays in the answer; the final faithfulness check may still
withdraw what was shown (``retraction``: ``reason``, ``message``), and the
``done`` Answer is then a refusal. A generation that fails mid-way also ends
in ``retraction`` (or ``refusal`` when nothing was shown yet).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from abstain.answer import Answer
    from abstain.pipeline import Pipeline
    from abstain.respond import Prepared


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


def _prepared_meta(state: Prepared) -> Event:
    """The meta event of a question that passed the gate, before generation."""
    from abstain.answer import display_confidence, triage

    evidence = state.base["evidence"]
    return Event("meta", {
        "question": state.base["question"],
        "confidence": round(state.confidence, 4),
        "display_confidence": display_confidence(True, evidence),
        "triage": triage(state.confidence),
        "checks": [c.to_json() for c in (*state.base["checks"], *state.extra_checks)],
        "evidence": [e.to_json() for e in evidence],
        "language": state.language,
    })


def stream_answer(pipe: Pipeline, question: str, workspace: str | None = None
                  ) -> Iterator[Event]:
    """Events for one question. The gate runs before anything is generated."""
    if getattr(pipe.generator, "streams", False):
        yield from _stream_verified(pipe, question, workspace or pipe.workspace)
        return
    if pipe.generator.uses_llm:
        # meta comes before the LLM call, so that the first event never waits on it
        from abstain.answer import Answer
        from abstain.respond import generate, prepare

        state = prepare(pipe, question, workspace or pipe.workspace)
        if isinstance(state, Answer):
            yield from _finished(pipe.observe(state))
            return
        yield _prepared_meta(state)
        yield from _finished(pipe.observe(generate(pipe, state)), meta=False)
        return
    answer = pipe.ask(question, workspace=workspace)
    yield from _finished(answer)


def _finished(answer: Answer, *, meta: bool = True) -> Iterator[Event]:
    if meta:
        yield meta_event(answer)
    if not answer.answered:
        assert answer.refusal is not None
        yield Event("refusal", answer.refusal.to_json())
    else:
        back = {c.n: c.evidence_n or c.n for c in answer.citations}
        for n, citation_text in enumerate(_sentences(answer), start=1):
            sources = [{"n": k, "evidence_n": back.get(k, k)} for k in
                       dict.fromkeys(int(m) for m in re.findall(r"\[(\d+)\]", citation_text))]
            yield Event("sentence", {"n": n, "text": citation_text, "sources": sources})
    yield Event("done", answer.to_json())


def _stream_verified(pipe: Pipeline, question: str, workspace: str) -> Iterator[Event]:
    from abstain.answer import Answer
    from abstain.citations import Numbering
    from abstain.errors import LLMError
    from abstain.generate.prompts import context_texts
    from abstain.respond import finish, llm_failure, prepare
    from abstain.verify import SentenceVerdict, check_sentence, keeps

    state = prepare(pipe, question, workspace)
    if isinstance(state, Answer):
        yield from _finished(pipe.observe(state))
        return
    yield _prepared_meta(state)
    texts = context_texts(state.evidence)
    numbering = Numbering()
    verdicts: list[SentenceVerdict] = []
    shown = 0
    t_gen = time.perf_counter()
    sentences = pipe.generator.stream(state.text, state.evidence)  # type: ignore[attr-defined]
    try:
        while True:
            try:
                sentence = next(sentences)
            except StopIteration as stop:
                generation = stop.value
                break
            if pipe.verifier is None:
                text = f"{sentence.text} {''.join(f'[{n}]' for n in sentence.cites)}".strip()
            else:
                verdict = check_sentence(sentence, texts, pipe.verifier)
                verdicts.append(verdict)
                if not keeps(verdict, pipe.strictness):
                    continue
                text = verdict.rendered()
            shown += 1
            text = numbering.apply(text)
            yield Event("sentence", {"n": shown, "text": text,
                                     "sources": numbering.sources(text)})
        answer = finish(pipe, state, generation, t_gen,
                        verdicts if pipe.verifier is not None else None)
    except LLMError as exc:
        answer = llm_failure(state, exc, t_gen)
    finally:
        sentences.close()
    answer = pipe.observe(answer)
    if not answer.answered:
        assert answer.refusal is not None
        if shown:
            yield Event("retraction", {"reason": answer.refusal.reason,
                                       "message": answer.refusal.message,
                                       "faithfulness": answer.faithfulness})
        else:
            yield Event("refusal", answer.refusal.to_json())
    yield Event("done", answer.to_json())


def _sentences(answer: Answer) -> list[str]:
    """The answer's sentences with their [n] markers, as shown to the reader."""
    return [s for s in re.split(r"(?<=\])\s+", answer.text) if s]
