"""A clarifying question over HTTP: a normal assistant turn the user answers (the real
`openai` client, and the JSON API), in a workspace with a vocabulary."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from abstain.embed import HashingEmbedder
from abstain.pipeline import Pipeline
from abstain.server import KeyStore, ServerConfig, ServerThread, create_app
from abstain.stores.sqlite import SQLiteStore
from tests.server.helpers import bearer, parse_sse
from tests.vocab_support import CMZ, build_kb

openai = pytest.importorskip("openai", reason="needs the dev extra: pip install 'abstain[dev]'")

UNKNOWN = "What is a CMQZ?"
CLARIFYING = "Could you clarify what you mean by “CMQZ”?"


@dataclass(frozen=True)
class VocabEnv:
    url: str
    key: str


@pytest.fixture(scope="module")
def vocab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VocabEnv]:
    folder = tmp_path_factory.mktemp("vocab-server")
    db = build_kb(folder, HashingEmbedder(), workspace="grid")
    keys = KeyStore(folder / "keys.db")
    key = keys.create(workspace="grid")[1]
    with Pipeline(SQLiteStore(db), HashingEmbedder(), workspace="grid") as pipe, \
            ServerThread(create_app(pipe, keys=keys, config=ServerConfig(rate=0))) as running:
        yield VocabEnv(running.url, key)
    keys.close()


def _client(env: VocabEnv) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{env.url}/v1", api_key=env.key, max_retries=0, timeout=30)


def test_the_clarifying_question_is_an_assistant_turn_the_user_answers(
        vocab_server: VocabEnv) -> None:
    client = _client(vocab_server)
    first = client.chat.completions.create(
        model="grid", messages=[{"role": "user", "content": UNKNOWN}])
    message = first.choices[0].message
    assert message.refusal is None and message.content is not None
    assert message.content.startswith(CLARIFYING)
    abstain = (first.model_extra or {})["abstain"]
    assert (abstain["reason"], abstain["llm_called"]) == ("unknown_term", False)
    assert abstain["suggestions"][0] == "congestion management zone"
    second = client.chat.completions.create(model="grid", messages=[
        {"role": "user", "content": UNKNOWN},
        {"role": "assistant", "content": message.content},
        {"role": "user", "content": "congestion management zone"}])
    answered = (second.model_extra or {})["abstain"]
    assert answered["answered"] and [c["source"] for c in answered["citations"]] == [CMZ]
    assert second.choices[0].message.content == (
        "Congestion management zone: An area of the grid where the operator steers demand to "
        "avoid overload. [1]")


def test_a_streamed_clarifying_question_has_no_refusal_field(vocab_server: VocabEnv) -> None:
    chunks = list(_client(vocab_server).chat.completions.create(
        model="grid", messages=[{"role": "user", "content": UNKNOWN}], stream=True))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith(CLARIFYING)
    assert all(getattr(c.choices[0].delta, "refusal", None) is None for c in chunks if c.choices)


def test_the_json_api_takes_the_reply_to_a_clarifying_question(vocab_server: VocabEnv) -> None:
    url = f"{vocab_server.url}/v1/workspaces/grid/ask"
    headers = bearer(vocab_server.key)
    refused = httpx.post(url, json={"question": UNKNOWN}, headers=headers).json()
    assert refused["refusal"]["reason"] == "unknown_term"
    assert refused["refusal"]["missing"] == ["CMQZ"]
    reply = {"question": "CMZ", "clarifies": {"question": refused["question"],
                                              "term": refused["refusal"]["missing"][0]}}
    answer = httpx.post(url, json=reply, headers=headers).json()
    assert answer["answered"] and answer["tier"] == "vocabulary"
    assert answer["question"] == "What is a CMZ?"
    events = parse_sse(httpx.post(f"{url}/stream", json=reply, headers=headers).text)
    assert [kind for kind, _ in events] == ["meta", "sentence", "done"]
    bad = httpx.post(url, json={"question": "x", "clarifies": {"question": "q"}},
                     headers=headers)
    assert bad.status_code == 422
