"""What happens after an answer is built: stage loggers, observers, OpenTelemetry spans."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from abstain.answer import Answer
from abstain.embed import HashingEmbedder
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore

DOC = "# Cache\n\nThe default value of storage.cache_mb is 512 megabytes."
QUESTION = "What is the default value of storage.cache_mb?"


@pytest.fixture
def pipe(tmp_path: Path) -> Pipeline:
    pipeline = Pipeline(SQLiteStore(tmp_path / "kb.db"), HashingEmbedder())
    pipeline.ingest_text(DOC, source="cache.md")
    return pipeline


def test_one_logger_per_stage_silent_unless_configured(
        pipe: Pipeline, caplog: pytest.LogCaptureFixture,
        capsys: pytest.CaptureFixture[str]) -> None:
    with pipe:
        pipe.ask(QUESTION)
        assert capsys.readouterr().err == ""  # nothing printed by default
        with caplog.at_level(logging.DEBUG, logger="abstain"):
            answer = pipe.ask(QUESTION)
    by_logger = {r.name: r.getMessage() for r in caplog.records}
    assert {"abstain.retrieve", "abstain.gate"} <= set(by_logger)
    assert by_logger["abstain.gate"].startswith("answer (confidence" if answer.answered
                                                else "refuse")
    assert "answer_gate" in by_logger["abstain.gate"]


def test_observers_see_every_answer_and_cannot_break_it(pipe: Pipeline) -> None:
    seen: list[Answer] = []

    def broken(answer: Answer) -> None:
        raise RuntimeError("metrics backend down")

    pipe.observers.extend([seen.append, broken])
    with pipe:
        answer = pipe.ask(QUESTION)
        refusal = pipe.ask("Who won the football world cup in 1954?")
    assert seen == [answer, refusal]


def test_spans_per_stage_when_opentelemetry_is_installed(pipe: Pipeline) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with pipe:
        answer = pipe.ask(QUESTION)
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert {"abstain.ask", "abstain.retrieve", "abstain.gate"} <= set(spans)
    root = spans["abstain.ask"]
    assert root.attributes is not None
    assert root.attributes["abstain.answered"] is answer.answered
    assert spans["abstain.gate"].parent is not None
    assert spans["abstain.gate"].parent.span_id == root.context.span_id
    assert root.start_time <= spans["abstain.retrieve"].start_time <= root.end_time
