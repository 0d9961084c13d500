"""Streaming an LLM answer: each sentence is shown only after it passed verification."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx

from abstain.embed.base import Embedder
from abstain.generate.openai_chat import OpenAIChatGenerator
from abstain.stream import Event, stream_answer
from abstain.testing import Reply, ScriptedOpenAIServer, down_url
from tests.llm_support import FABRICATED, KEYS_Q, OFF_TOPIC_Q, pipeline


def events(kb: Path, minilm: Embedder, url: str, question: str = KEYS_Q,
           **options: object) -> list[Event]:
    generator = OpenAIChatGenerator(url, "m", stream=True, max_retries=0)
    with pipeline(kb, minilm, generator=generator, **options) as pipe:
        return list(stream_answer(pipe, question))


def test_sentences_stream_in_order_and_only_after_verification(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    server.script("API keys are rotated every 30 days [1]. " + FABRICATED
                  + " [1] Old keys stay valid for 24 hours after a rotation [1].")
    stream = events(kb, minilm, server.url)
    assert [e.kind for e in stream] == ["meta", "sentence", "sentence", "done"]
    assert [e.data["text"] for e in stream[1:3]] == [
        "API keys are rotated every 30 days. [1]",
        "Old keys stay valid for 24 hours after a rotation. [1]"]
    assert [e.data["n"] for e in stream[1:3]] == [1, 2]
    done = stream[-1].data
    assert done["answered"] and done["unsupported_claims"] == [FABRICATED]
    assert done["answer"] == " ".join(e.data["text"] for e in stream[1:3])
    assert stream[0].data["evidence"][0]["source"] == "keys.md"
    assert server.chat_requests[0].body["stream"] is True


def test_final_faithfulness_check_retracts_what_was_shown(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    server.script(Reply(f"API keys are rotated every 30 days [1]. {FABRICATED} [1]",
                        logprob=-0.05))
    stream = events(kb, minilm, server.url, strictness="paranoid")
    assert [e.kind for e in stream] == ["meta", "sentence", "retraction", "done"]
    assert stream[2].data["reason"] == "low_faithfulness"
    assert stream[2].data["faithfulness"] < 0.9
    assert stream[-1].data["answered"] is False


def test_gate_refusal_streams_without_calling_the_llm(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    stream = events(kb, minilm, server.url, OFF_TOPIC_Q)
    assert [e.kind for e in stream] == ["meta", "refusal", "done"]
    assert server.requests == []


def test_unreachable_server_streams_a_refusal(kb: Path, minilm: Embedder) -> None:
    stream = events(kb, minilm, down_url())
    assert [e.kind for e in stream] == ["meta", "refusal", "done"]
    assert stream[1].data["reason"] == "llm_error"
    assert stream[-1].data["llm_called"] is True


def test_a_clarifying_question_is_held_back_and_becomes_the_refusal(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    server.script("Do you mean API keys or SSH keys?")
    stream = events(kb, minilm, server.url)
    assert [e.kind for e in stream] == ["meta", "refusal", "done"]
    assert stream[1].data["reason"] == "needs_clarification"


def test_closing_the_stream_early_closes_the_llm_stream(
        kb: Path, minilm: Embedder, server: ScriptedOpenAIServer) -> None:
    server.script("API keys are rotated every 30 days [1]. Old keys stay valid for 24 hours "
                  "after a rotation [1].")
    transport = ClosingTransport()
    generator = OpenAIChatGenerator(server.url, "m", stream=True, transport=transport)
    with pipeline(kb, minilm, generator=generator) as pipe:
        stream = stream_answer(pipe, KEYS_Q)
        assert next(stream).kind == "meta"
        assert next(stream).kind == "sentence"
        assert transport.closed == []  # the LLM's response is still being read
        stream.close()  # the client went away
        assert transport.closed == ["/v1/chat/completions"]
        assert next(stream, None) is None  # no second sentence, no "done"


class ClosingTransport(httpx.BaseTransport):
    """A real HTTP transport that records which responses were closed."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.closed: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        body = response.stream
        assert isinstance(body, httpx.SyncByteStream)
        closed, path = self.closed, request.url.path

        class Recorded(httpx.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                yield from body

            def close(self) -> None:
                closed.append(path)
                body.close()

        return httpx.Response(response.status_code, headers=response.headers,
                              stream=Recorded(), extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()
