"""One overall deadline per LLM call: a server that trickles bytes cannot hold a call past it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from abstain.embed.base import Embedder
from abstain.errors import LLMError
from abstain.generate.openai_chat import OpenAIChatGenerator
from abstain.testing import Reply, ScriptedOpenAIServer
from tests.llm_support import FAITHFUL, KEYS_Q, pipeline


@pytest.mark.parametrize("stream", [False, True])
def test_a_trickling_server_is_cut_off_at_the_deadline(stream: bool) -> None:
    # Each byte (or piece) arrives well within the per-read timeout; the call as a whole
    # would take ~10 s.
    trickle = 0.05 if not stream else 0.6
    with ScriptedOpenAIServer([Reply(FAITHFUL, trickle_s=trickle)]) as server:
        generator = OpenAIChatGenerator(server.url, "test", timeout=1.0, max_retries=0,
                                        stream=stream)
        started = time.monotonic()
        with pytest.raises(LLMError) as caught:
            generator.chat([{"role": "user", "content": "hi"}], purpose="answer") if not stream \
                else list(generator.chat_stream([{"role": "user", "content": "hi"}],
                                                purpose="answer"))
        elapsed = time.monotonic() - started
        generator.close()
    assert elapsed < 2.0
    call = caught.value.calls[0]
    assert call.outcome == "timeout"
    assert "within 1 s (one deadline for the whole call)" in (call.error or "")


def test_the_timeout_is_in_the_audit_trail(kb: Path, minilm: Embedder) -> None:
    with ScriptedOpenAIServer([Reply(FAITHFUL, trickle_s=0.05)]) as server:
        generator = OpenAIChatGenerator(server.url, "test", timeout=0.5, max_retries=0)
        with pipeline(kb, minilm, generator=generator) as pipe:
            answer = pipe.ask(KEYS_Q)
    assert not answer.answered and answer.refusal is not None
    assert answer.refusal.reason == "llm_error"
    trail = answer.audit_trail()
    assert [c["outcome"] for c in trail["llm_calls"]] == ["timeout"]
    assert trail["checks"][-1]["name"] == "generation"
    assert any("did not answer within 0.5 s" in note for note in trail["notes"])
