"""A language model that never answers holds up nothing else (issue 13).

20 questions wait on a hung LLM; /ready, /health, a refusal and another workspace still
answer at once, and each waiting question ends at its deadline as a recorded refusal.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from abstain.embed.base import Embedder
from abstain.generate.openai_chat import OpenAIChatGenerator
from abstain.pipeline import Pipeline
from abstain.server import KeyStore, ServerConfig, ServerThread, create_app
from abstain.stores.sqlite import SQLiteStore
from abstain.testing import Reply, ScriptedOpenAIServer
from tests.llm_support import DOCS, KEYS_Q, OFF_TOPIC_Q
from tests.server.helpers import bearer

DEADLINE_S = 3.0


@pytest.fixture
def hung(tmp_path: Path, minilm: Embedder) -> Iterator[tuple[str, str, ScriptedOpenAIServer]]:
    with ScriptedOpenAIServer(default=Reply("never sent", delay_s=15)) as llm:
        generator = OpenAIChatGenerator(llm.url, "hung", timeout=DEADLINE_S, max_retries=0)
        pipe = Pipeline(SQLiteStore(tmp_path / "kb.db"), minilm, generator=generator)
        for name, text in DOCS.items():
            pipe.ingest_text(text, source=name, workspace="kb")
        keys = KeyStore(tmp_path / "keys.db")
        _, key = keys.create(admin=True)
        app = create_app(pipe, keys=keys, config=ServerConfig(rate=0))
        try:
            with ServerThread(app) as server:
                # warm up (language detection loads its model on first use)
                httpx.post(f"{server.url}/v1/workspaces/kb/ask", headers=bearer(key),
                           json={"question": OFF_TOPIC_Q}, timeout=60)
                yield server.url, key, llm
        finally:
            pipe.close()
            keys.close()


def test_ready_answers_while_20_questions_wait_on_a_hung_llm(
        hung: tuple[str, str, ScriptedOpenAIServer]) -> None:
    url, key, llm = hung

    def ask(question: str) -> httpx.Response:
        return httpx.post(f"{url}/v1/workspaces/kb/ask", headers=bearer(key),
                          json={"question": question}, timeout=60)

    with ThreadPoolExecutor(max_workers=20) as pool:
        waiting = [pool.submit(ask, KEYS_Q) for _ in range(20)]
        deadline = time.monotonic() + 30
        while len(llm.chat_requests) < 16 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(llm.chat_requests) >= 16  # the LLM pool is full, the rest queue

        started = time.monotonic()
        ready = httpx.get(f"{url}/ready", timeout=5)
        ready_s = time.monotonic() - started
        health = httpx.get(f"{url}/health", timeout=5)
        started = time.monotonic()
        refusal = ask(OFF_TOPIC_Q)
        refusal_s = time.monotonic() - started
        assert ready.status_code == 200 and ready_s < 2.0, ready_s
        assert health.status_code == 200
        assert refusal.json()["answered"] is False and refusal_s < 2.0, refusal_s
        assert refusal.json()["llm_called"] is False

        answers = [f.result().json() for f in waiting]
    for answer in answers:
        assert answer["answered"] is False
        assert answer["refusal"]["reason"] == "llm_error"
        generation = answer["checks"][-1]
        assert generation["name"] == "generation" and generation["value"] == "timeout"
