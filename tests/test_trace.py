"""The question's trace: each stage's record in order, refusals that end it, one Answer from it."""

from __future__ import annotations

import dataclasses

import pytest

from abstain.generate.extractive import ExtractiveGenerator
from abstain.generate.stage import generate
from abstain.pipeline import Pipeline
from abstain.stream import stream_answer
from abstain.trace import answer_of
from abstain.validate import validate
from abstain.verify import LexicalVerifier, Strictness
from abstain.verify.outcome import verify

TIMEOUT_Q = "What is the default value of replication.ack_timeout_ms?"
ADR_TIMEOUT_Q = "What default does ADR-0009 give replication.ack_timeout_ms?"
"""Answered by the ADR's sentence on "the new `[replication]` settings"."""


def test_the_trace_records_each_stage_and_the_answer_is_built_from_it(
        sample_pipeline: Pipeline) -> None:
    gated = sample_pipeline.gate_question(TIMEOUT_Q, "default")
    assert [s.name for s in gated.stages] == ["retrieve", "score", "gate"]
    assert not gated.ended and gated.given_to_generator and gated.evidence
    with pytest.raises(dataclasses.FrozenInstanceError):
        gated.confidence = 1.0  # type: ignore[misc]

    finished = verify(generate(gated, sample_pipeline.generator), None, Strictness.BALANCED)
    assert [s.name for s in finished.stages] == ["retrieve", "score", "gate", "generate",
                                                 "verify"]
    assert [s.name for s in gated.stages] == ["retrieve", "score", "gate"]  # unchanged
    answer = answer_of(finished)
    assert answer.answered and answer.checks == gated.checks
    assert set(answer.timings_ms) == {"embed_ms", "vector_ms", "keyword_ms", "retrieve_ms",
                                      "read_ms", "gate_ms", "generate_ms", "total_ms"}
    assert list(answer.timings_ms)[-2:] == ["generate_ms", "total_ms"]
    assert answer.text == " ".join(s.rendered() for s in answer.sentences)
    assert answer.to_json() | {"timings_ms": None} == (
        sample_pipeline.ask(TIMEOUT_Q).to_json() | {"timings_ms": None})


def test_a_refusal_ends_the_trace_and_later_stages_pass_it_through() -> None:
    refused = validate("   ", "default", generator="extractive")
    assert refused.ended
    assert generate(refused, ExtractiveGenerator()) is refused
    assert verify(refused, LexicalVerifier(), Strictness.STRICT) is refused
    answer = answer_of(refused)
    assert answer.refusal is not None and answer.refusal.reason == "invalid_question"
    assert [c.name for c in answer.checks] == ["question"]
    assert list(answer.timings_ms) == ["total_ms"]
    assert (answer.confidence, answer.display_confidence, answer.triage,
            answer.llm_called) == (0.0, 0.0, "no_match", False)


def test_an_answer_needs_a_finished_trace() -> None:
    trace = validate("How are keys rotated?", "default", generator="extractive")
    with pytest.raises(ValueError, match="not ended"):
        answer_of(trace)


def test_the_stream_sends_the_answers_own_sentences(sample_pipeline: Pipeline) -> None:
    events = list(stream_answer(sample_pipeline, ADR_TIMEOUT_Q))
    answer = events[-1].data
    sent = [e.data for e in events if e.kind == "sentence"]
    # One sentence holds "[replication] " in its text: it is one event, not cut after "]".
    assert any("new [replication] settings" in s["text"] for s in sent)
    assert " ".join(s["text"] for s in sent) == answer["answer"]
    cited = {(c["n"], c["evidence_n"]) for c in answer["citations"]}
    assert {(src["n"], src["evidence_n"]) for s in sent for src in s["sources"]} == cited
