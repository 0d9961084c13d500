"""The SSE and plain-text streams over a real socket: event order, refusals, clean stops."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx

from abstain.pipeline import Pipeline
from abstain.server import ServerConfig, ServerThread, create_app
from abstain.stream import Event, stream_answer
from tests.server.conftest import Env
from tests.server.helpers import ANSWERED, REFUSED, bearer, parse_sse


def _stream(env: Env, question: str, fmt: str = "sse") -> httpx.Response:
    url = f"{env.url}/v1/workspaces/docs/ask/stream" + ("?format=text" if fmt == "text" else "")
    return httpx.post(url, json={"question": question}, headers=bearer(env.keys.docs),
                      timeout=30)


def test_answer_streams_meta_then_sentences_then_done(server: Env) -> None:
    response = _stream(server, ANSWERED)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    events = parse_sse(response.text)
    kinds = [k for k, _ in events]
    assert kinds[0] == "meta" and kinds[-1] == "done"
    assert set(kinds[1:-1]) == {"sentence"} and len(kinds) >= 3
    meta, done = events[0][1], events[-1][1]
    assert meta["question"] == ANSWERED
    assert meta["triage"] == done["triage"] and meta["evidence"]
    assert [d["n"] for k, d in events if k == "sentence"] == list(range(1, len(kinds) - 1))
    streamed = " ".join(d["text"] for k, d in events if k == "sentence")
    assert done["answered"] is True and streamed == done["answer"]
    assert "reset-password" in streamed
    assert any(c["source"].endswith("reset-admin-password.md") for c in done["citations"])


def test_refusal_streams_meta_refusal_done_without_llm(server: Env) -> None:
    response = _stream(server, REFUSED)
    assert response.status_code == 200
    events = parse_sse(response.text)
    assert [k for k, _ in events] == ["meta", "refusal", "done"]
    refusal, done = events[1][1], events[2][1]
    # nothing close is kept (the server's hashing store), and ADR-0050 is nowhere: the name
    # says why, with the ADRs that do exist
    assert refusal["reason"] == "unknown_entity"
    assert refusal["message"] and "ADR-0050" in refusal["missing"] and refusal["suggestions"]
    assert done["answered"] is False and done["answer"] is None
    assert done["llm_called"] is False
    assert done["refusal"] == refusal


def test_plain_text_mode_answer(server: Env) -> None:
    response = _stream(server, ANSWERED, fmt="text")
    assert response.headers["content-type"].startswith("text/plain")
    first, _, rest = response.text.partition("\n")
    meta = httpx.Response(200, content=first).json()
    assert set(meta) >= {"sources", "response_time_ms", "confidence", "triage"}
    assert any(s.endswith("reset-admin-password.md") for s in meta["sources"])
    assert "[REJECTION]" not in rest and "reset-password" in rest


def test_plain_text_mode_refusal_uses_the_rejection_sentinel(server: Env) -> None:
    response = _stream(server, REFUSED, fmt="text")
    lines = response.text.splitlines()
    assert len(lines) == 3
    meta = httpx.Response(200, content=lines[0]).json()
    assert meta["triage"] == "no_match"
    assert lines[1] == "[REJECTION]"
    assert lines[2] == ("ADR-0050 was not found in the documents. I don't have enough "
                        "information in the documents to answer this.")


def test_unknown_workspace_is_a_json_404_before_any_stream(server: Env) -> None:
    response = httpx.post(f"{server.url}/v1/workspaces/nowhere/ask/stream",
                          json={"question": ANSWERED}, headers=bearer(server.keys.admin))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_workspace"


def test_client_disconnect_mid_stream_stops_the_event_source(corpus_pipeline: Pipeline,
                                                              keystore: tuple) -> None:  # type: ignore[type-arg]
    """A slow (LLM-like) event source: the client leaves after `meta`; the server closes
    the source, produces nothing more for it, and keeps serving."""
    produced: list[str] = []
    closed = threading.Event()

    def slow(pipe: Pipeline, question: str, workspace: str) -> Iterator[Event]:
        try:
            for event in stream_answer(pipe, question, workspace):
                produced.append(event.kind)
                yield event
                time.sleep(0.4)
        finally:
            closed.set()

    store, keys = keystore
    app = create_app(corpus_pipeline, keys=store, config=ServerConfig(rate=0), stream=slow)
    with ServerThread(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        with client.stream("POST", "/v1/workspaces/docs/ask/stream",
                           json={"question": ANSWERED}, headers=bearer(keys.docs)) as response:
            first = next(response.iter_lines())
            assert first == "event: meta"
        assert closed.wait(10), "the event source was not closed after the client left"
        stats = app.state.services.streams
        deadline = time.monotonic() + 10
        while stats.active and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (stats.opened, stats.disconnected, stats.active) == (1, 1, 0)
        assert "done" not in produced and len(produced) <= 3
        assert client.get("/health").json()["status"] == "ok"


def test_a_failure_after_meta_ends_the_stream_with_an_error_event(
        corpus_pipeline: Pipeline, keystore: tuple) -> None:  # type: ignore[type-arg]
    def failing(pipe: Pipeline, question: str, workspace: str) -> Iterator[Event]:
        events = stream_answer(pipe, question, workspace)
        yield next(events)
        raise RuntimeError("the model went away")

    store, keys = keystore
    app = create_app(corpus_pipeline, keys=store, config=ServerConfig(rate=0), stream=failing)
    with ServerThread(app) as server:
        response = httpx.post(f"{server.url}/v1/workspaces/docs/ask/stream",
                              json={"question": ANSWERED}, headers=bearer(keys.docs))
    events = parse_sse(response.text)
    assert [k for k, _ in events] == ["meta", "error"]
    assert events[1][1] == {"error": {"code": "internal_error",
                                      "message": "the answer stream failed"}}
    assert "the model went away" not in response.text


def test_text_encoder_marks_retractions_and_joins_sentences() -> None:
    from abstain.server.sse import TextEncoder

    encoder = TextEncoder(started=0.0)
    out = "".join(encoder.encode(e) for e in (
        Event("sentence", {"n": 1, "text": "One. [1]"}),
        Event("sentence", {"n": 2, "text": "Two. [2]"}),
        Event("retraction", {"reason": "unsupported", "message": "A check failed."}),
        Event("done", {})))
    assert out == "One. [1] Two. [2]\n[RETRACTION]\nA check failed.\n\n"
