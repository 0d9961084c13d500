"""The real `openai` client against a running abstain server: answer, refusal, stream."""

from __future__ import annotations

import httpx
import pytest

from tests.server.conftest import Env
from tests.server.helpers import ANSWERED, REFUSED, bearer

openai = pytest.importorskip("openai", reason="needs the dev extra: pip install 'abstain[dev]'")


def _client(env: Env, key: str | None = None) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{env.url}/v1", api_key=key or env.keys.docs,
                         max_retries=0, timeout=30)


def test_a_cited_answer(server: Env) -> None:
    completion = _client(server).chat.completions.create(
        model="docs", messages=[{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": ANSWERED}])
    expected = server.pipeline.ask(ANSWERED, workspace="docs")
    message = completion.choices[0].message
    assert message.content == expected.text and "[1]" in message.content
    assert message.refusal is None
    assert completion.choices[0].finish_reason == "stop"
    extra = completion.model_extra or {}
    abstain = extra["abstain"]
    assert abstain["answered"] is True and abstain["reason"] is None
    assert abstain["citations"] == [c.to_json() for c in expected.citations]
    assert abstain["evidence"] == expected.to_json()["evidence"]
    assert completion.usage is not None and completion.usage.total_tokens > 0


def test_a_refusal_is_in_refusal_and_content(server: Env) -> None:
    completion = _client(server).chat.completions.create(
        model="docs", messages=[{"role": "user", "content": REFUSED}])
    message = completion.choices[0].message
    assert message.refusal and message.content == message.refusal
    abstain = (completion.model_extra or {})["abstain"]
    assert abstain["answered"] is False and abstain["llm_called"] is False
    assert abstain["reason"] == "unknown_entity"


def test_a_stream_releases_the_answer_in_chunks(server: Env) -> None:
    stream = _client(server).chat.completions.create(
        model="docs", messages=[{"role": "user", "content": ANSWERED}], stream=True)
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == server.pipeline.ask(ANSWERED, workspace="docs").text
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert (chunks[-1].model_extra or {})["abstain"]["answered"] is True


def test_a_stream_asked_for_usage_ends_with_it(server: Env) -> None:
    stream = _client(server).chat.completions.create(
        model="docs", messages=[{"role": "user", "content": ANSWERED}], stream=True,
        stream_options={"include_usage": True})
    chunks = list(stream)
    *answer, last = chunks
    assert last.choices == [] and last.usage is not None
    assert last.usage.completion_tokens > 0
    assert last.usage.total_tokens == last.usage.prompt_tokens + last.usage.completion_tokens
    assert answer[-1].choices[0].finish_reason == "stop" and answer[0].usage is None


def test_a_streamed_refusal(server: Env) -> None:
    stream = _client(server).chat.completions.create(
        model="docs", messages=[{"role": "user", "content": REFUSED}], stream=True)
    chunks = list(stream)
    refusal = "".join(c.choices[0].delta.refusal or "" for c in chunks if c.choices)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert refusal and content == refusal


def test_models_are_the_workspaces_the_key_may_use(server: Env) -> None:
    assert [m.id for m in _client(server).models.list()] == ["docs"]
    admin = {m.id for m in _client(server, server.keys.admin).models.list()}
    assert {"docs", "fuzz"} <= admin
    assert _client(server).models.retrieve("docs").id == "docs"  # the SDK's retrieve
    with pytest.raises(openai.PermissionDeniedError):
        _client(server).models.retrieve("fuzz")
    with pytest.raises(openai.NotFoundError, match="no documents"):
        _client(server, server.keys.admin).models.retrieve("nothing-here")


def test_another_workspace_is_forbidden(server: Env) -> None:
    with pytest.raises(openai.PermissionDeniedError):
        _client(server).chat.completions.create(
            model="fuzz", messages=[{"role": "user", "content": ANSWERED}])


def test_no_user_message_is_a_clear_error(server: Env) -> None:
    response = httpx.post(f"{server.url}/v1/chat/completions", headers=bearer(server.keys.docs),
                          json={"model": "docs", "messages": [{"role": "system",
                                                               "content": "hi"}]})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"


def test_a_follow_up_is_read_after_the_message_before_it(server: Env) -> None:
    """A chat front end sends "And is that safe?" after a question: alone it names nothing
    (refused ``needs_clarification``); in the conversation the user's message before it is
    its context, and the answer says what was read."""
    client = _client(server)
    alone = client.chat.completions.create(
        model="docs", messages=[{"role": "user", "content": "Is that safe?"}])
    assert (alone.model_extra or {})["abstain"]["reason"] == "needs_clarification"
    followed = client.chat.completions.create(model="docs", messages=[
        {"role": "user", "content": ANSWERED},
        {"role": "assistant", "content": "Run sudo qsctl admin reset-password --local."},
        {"role": "user", "content": "Is that safe?"}])
    abstain = (followed.model_extra or {})["abstain"]
    assert abstain["reason"] != "needs_clarification"
    assert abstain["question"] == f"{ANSWERED} Is that safe?"
    # each question as read after the user's messages before it (the replies between: "…")
    assert _read(client, "What should I check first?",  # a question of its own
                 "What does error E1207 mean?", "And how do I fix it?", "Is that safe?") == (
        "What does error E1207 mean? And how do I fix it? Is that safe?")
    assert _read(client, "What does error E1207 mean?",
                 "and for E1208?") == "What does error E1208 mean?"  # the question again
    assert _read(client, "What does error E1207 mean?", "and for E1208?",
                 "and E1209?") == "What does error E1209 mean?"  # a follow-up of a follow-up
    # found by a newcomer: "what about P4?" was read after the raw messages, the first
    # question lost
    assert _read(client, "What does error E1207 mean?", "and for E1208?",
                 "and how do I fix it?", "what about E1209?") == (
        "What does error E1209 mean? and how do I fix it?")


def _read(client: openai.OpenAI, *said: str) -> str:
    """The question the chat endpoint read of the user's messages ``said``, each answered
    "…"."""
    messages = [m for text in said for m in ({"role": "user", "content": text},
                                            {"role": "assistant", "content": "…"})][:-1]
    reply = client.chat.completions.create(model="docs", messages=messages)  # type: ignore[arg-type]
    return str((reply.model_extra or {})["abstain"]["question"])


@pytest.mark.parametrize(("earlier", "follow_up", "asked"), [
    ("What is the resolution target for P3?", "and for P1?",
     "What is the resolution target for P1?"),
    ("What is Peter Brandt's mobile?", "And for Lena Fischer?", "What is Lena Fischer's mobile?"),
    ("What does TF-4013 mean?", "what about TF-4014?", "What does TF-4014 mean?"),
    ("What is the resolution target for P3?", "And how do I fix P1?", None),  # asks more
    ("What does TF-4013 mean?", "and for E1207?", None),  # not one of its kind
    ("How do I reset a password?", "and for Lena Fischer?", None),  # named nothing before
    ("Who owns TF-4013 (see TF-4013 notes)?", "what about TF-4014?",
     "Who owns TF-4014 (see TF-4014 notes)?"),  # every place it is named, whole
])
def test_a_follow_up_that_names_another_of_its_kind_asks_the_question_again(
        earlier: str, follow_up: str, asked: str | None) -> None:
    """"and for P1?" after a question about P3 was read joined ("… for P3? and for P1?"):
    about both, and refused."""
    from abstain.server.openai_compat import asked_again

    assert asked_again(earlier, follow_up) == asked
