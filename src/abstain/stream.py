"""Answers as a stream of events, for SSE and other incremental clients.

Event order, always::

    meta  (evidence, confidence, checks, read_as) exactly once, first
    refusal                                       on a refusal (then done); no LLM call
    sentence*                                     each one only after it passed verification
    retraction                                    if a later check withdraws the answer
    done                                          exactly once, last (carries the final Answer JSON)

The extractive answerer produces verified sentences at once. LLM generators
that stream (``can_stream = True``) are verified sentence by sentence (see
``abstain.verify``): each sentence is checked the moment it is complete and
yielded only if it stays in the answer; the final faithfulness check may still
withdraw what was shown (``retraction``: ``reason``, ``message``), and the
``done`` Answer is then a refusal. A generation that fails mid-way also ends
in ``retraction`` (or ``refusal`` when nothing was shown yet).

Each ``sentence`` event is one of the answer's structured sentences
(:class:`~abstain.answer.AnswerSentence`): its text with its markers, and ``sources``,
each marker's number and the number of the evidence it cites.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from abstain.answer import Answer
    from abstain.evidence import Evidence
    from abstain.pipeline import Pipeline
    from abstain.records import AnswerSentence, Check
    from abstain.trace import Trace


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    """``meta``, ``sentence``, ``refusal``, ``retraction`` or ``done``."""
    data: dict[str, Any] = field(default_factory=dict)


def meta_event(answer: Answer) -> Event:
    return _meta(answer.question, answer.confidence, answer.display_confidence, answer.triage,
                 answer.checks, answer.evidence, answer.language, answer.read_as)


def _gated_meta(trace: Trace) -> Event:
    """The meta event of a question that passed the gate, before generation."""
    from abstain.answer import display_confidence, triage
    from abstain.stated_confidence import gate_threshold, stated
    from abstain.trace import read_as

    confidence = stated(trace.confidence, trace.checks, answered=True)
    return _meta(trace.question, confidence, display_confidence(confidence),
                 triage(confidence, gate_threshold(trace.checks)), trace.checks,
                 trace.evidence, trace.language, read_as(trace))


def _meta(question: str, confidence: float, display: float, tier: str,
          checks: Sequence[Check], evidence: Sequence[Evidence], language: str,
          read_as: str | None) -> Event:
    return Event("meta", {
        "question": question,
        "read_as": read_as,
        "confidence": round(confidence, 4),
        "display_confidence": display,
        "triage": tier,
        "checks": [c.to_json() for c in checks],
        "evidence": [e.to_json() for e in evidence],
        "language": language,
    })


def sentence_event(n: int, sentence: AnswerSentence) -> Event:
    return Event("sentence", {"n": n, "text": sentence.rendered(),
                              "sources": sentence.sources()})


def stream_answer(pipe: Pipeline, question: str, workspace: str | None = None
                  ) -> Iterator[Event]:
    """Events for one question. The gate runs before anything is generated."""
    from abstain.generate.stage import generate
    from abstain.trace import answer_of
    from abstain.verify.outcome import verify

    streaming = pipe.generator.can_stream
    if not streaming and not pipe.generator.uses_llm:
        yield from _finished(pipe.ask(question, workspace=workspace))
        return
    # meta comes before the LLM call, so that the first event never waits on it
    trace = pipe.gate_question(question, workspace)
    if trace.ended:
        yield from _finished(pipe.observe(answer_of(trace)))
        return
    yield _gated_meta(trace)
    if streaming:
        yield from _stream_verified(pipe, trace)
        return
    trace = verify(generate(trace, pipe.generator), pipe.verifier, pipe.strictness)
    yield from _finished(pipe.observe(answer_of(trace)), meta=False)


def _finished(answer: Answer, *, meta: bool = True) -> Iterator[Event]:
    if meta:
        yield meta_event(answer)
    if not answer.answered:
        assert answer.refusal is not None
        yield Event("refusal", answer.refusal.to_json())
    else:
        for n, sentence in enumerate(answer.sentences, start=1):
            yield sentence_event(n, sentence)
    yield Event("done", answer.to_json())


def _stream_verified(pipe: Pipeline, trace: Trace) -> Iterator[Event]:
    from abstain.citations import Numbering
    from abstain.errors import ConfigError, LLMError
    from abstain.generate.base import streams
    from abstain.generate.prompts import context_texts
    from abstain.generate.stage import failed, generated
    from abstain.trace import answer_of
    from abstain.verify import SentenceVerdict, check_sentence, keeps
    from abstain.verify.outcome import as_written, verify

    texts = context_texts(trace.evidence)
    numbering = Numbering()
    verdicts: list[SentenceVerdict] = []
    shown = 0
    started = time.perf_counter()
    if not streams(pipe.generator):
        raise ConfigError(f"{pipe.generator.name} does not stream (can_stream is False)")
    assert trace.parsed is not None
    sentences = pipe.generator.stream(trace.parsed, trace.evidence)
    try:
        while True:
            try:
                sentence = next(sentences)
            except StopIteration as stop:
                generation = stop.value
                break
            if pipe.verifier is None:
                written = as_written(sentence)
            else:
                verdict = check_sentence(sentence, texts, pipe.verifier)
                verdicts.append(verdict)
                if not keeps(verdict, pipe.strictness):
                    continue
                written = verdict.shown
            shown += 1
            yield sentence_event(shown, numbering.sentence(written))
        trace = verify(generated(trace, generation, started), pipe.verifier, pipe.strictness,
                       verdicts if pipe.verifier is not None else None)
    except LLMError as exc:
        trace = failed(trace, exc, started)
    finally:
        sentences.close()
    answer = pipe.observe(answer_of(trace))
    if not answer.answered:
        assert answer.refusal is not None
        if shown:
            yield Event("retraction", {"reason": answer.refusal.reason,
                                       "message": answer.refusal.message,
                                       "faithfulness": answer.faithfulness})
        else:
            yield Event("refusal", answer.refusal.to_json())
    yield Event("done", answer.to_json())
