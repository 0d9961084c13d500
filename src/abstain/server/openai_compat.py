"""OpenAI-compatible chat: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Chat front ends and the ``openai`` SDK use abstain as a "model": ``base_url`` is
``http://host:port/v1``, ``api_key`` an abstain key and ``model`` the workspace. The last
user message is the question; earlier turns are used only when the assistant's last turn
asked what a term means (``unknown_term``): the user's reply then completes the question
before it (:func:`abstain.terminology.reply_to_clarification`), and when the last message
goes on from the one before ("And how do I fix it?", "can I do it from the API?",
:func:`goes_on`): the user's messages it follows are read first, as its context, up to
:data:`FOLLOW_UP_TURNS` (alone, a question that names nothing is refused
``needs_clarification``). An answer's
``message.content`` is the cited answer text; a refusal's ``message.refusal`` is the
refusal message and ``message.content`` carries the same text, so every UI shows it; a
clarifying question (``unknown_term``) is a normal assistant turn in ``content`` only.
Both carry an ``abstain`` object (the question read, answered, reason, confidence, triage,
citations, evidence). ``stream: true`` sends ``chat.completion.chunk`` events that release only
verified sentences, then ``data: [DONE]``.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.concurrency import run_in_threadpool

from abstain.asked import follows_on
from abstain.generate.prompts import approx_tokens
from abstain.mentions import Kind
from abstain.messages import clarified_term, detect_language
from abstain.question import Question
from abstain.records import RefusalReason
from abstain.server import answering
from abstain.server.ask import known_workspace, open_stream
from abstain.server.auth import api_key
from abstain.server.config import WORKSPACE_PATTERN
from abstain.server.errors import ApiError, error_responses
from abstain.server.keys import ApiKey
from abstain.server.models import valid_unicode
from abstain.server.state import services
from abstain.stream import Event
from abstain.terminology import reply_to_clarification
from abstain.text import clean
from abstain.text.grammar import number_pattern
from abstain.validate import MAX_QUESTION_CHARS

CLARIFYING = RefusalReason.UNKNOWN_TERM
"""The refusal reason whose message is a question to the user (abstain.terminology)."""

router = APIRouter(prefix="/v1", tags=["openai"])
Key = Annotated[ApiKey, Depends(api_key)]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[dict[str, Any]] | None = None

    @field_validator("content")
    @classmethod
    def _unicode(cls, value: str | list[dict[str, Any]] | None
                 ) -> str | list[dict[str, Any]] | None:
        return valid_unicode(value) if isinstance(value, str) else value

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


class ChatRequest(BaseModel):
    """OpenAI's chat request; sampling options (temperature, max_tokens, …) are accepted
    and ignored."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(description="The workspace to answer from.")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: dict[str, Any] | None = Field(
        default=None, description="`include_usage: true` ends a stream with a usage chunk "
                                  "(empty `choices`), as OpenAI's does.")

    @property
    def include_usage(self) -> bool:
        return bool(self.stream and (self.stream_options or {}).get("include_usage"))

    def sent(self) -> str:
        """Every message's text: what ``usage.prompt_tokens`` counts, as OpenAI counts the
        whole conversation a front end sends each turn."""
        return "\n".join(m.text() for m in self.messages)

    def question(self) -> str:
        turns = [m for m in self.messages if m.role in ("user", "assistant")]
        users = [i for i, m in enumerate(turns) if m.role == "user"]
        if not users:
            raise ApiError(422, "invalid_request", "messages: no message with role 'user'")
        return _read(turns, users, len(users) - 1)


def _read(turns: list[ChatMessage], users: list[int], k: int, depth: int = 0) -> str:
    """The question the user's ``k``-th message asks (:func:`_reading`)."""
    return _reading(turns, users, k, depth)[0]


def _reading(turns: list[ChatMessage], users: list[int], k: int,
             depth: int = 0) -> tuple[str, int]:
    """The question the user's ``k``-th message asks, and of how many messages it is read:
    after the question the message before it asked when it goes on from it
    (:func:`goes_on`): that question again of what it names instead (:func:`asked_again`:
    "and for P1?" after "… for P3?"), else the two joined ("What is the response target for
    P1? and on weekends?", where the raw messages would read "… for P3? and for P1? and on
    weekends?"). Of at most :data:`FOLLOW_UP_TURNS` messages joined, looking back at most
    twice as many, and never past the question limit the user's own message kept to."""
    last = users[k]
    reply = turns[last].text()
    if last >= 2 and turns[last - 1].role == "assistant" and turns[last - 2].role == "user":
        term = clarified_term(turns[last - 1].text())
        if term is not None:
            return reply_to_clarification(turns[last - 2].text(), term, reply), 1
    if k == 0 or depth + 1 >= 2 * FOLLOW_UP_TURNS or not goes_on(reply):
        return reply, 1
    before, joined = _reading(turns, users, k - 1, depth + 1)
    again = asked_again(before, reply)
    if again is not None:
        return again, joined
    for earlier, count in ((before, joined), (turns[users[k - 1]].text(), 1)):
        if count < FOLLOW_UP_TURNS and len(earlier) + 1 + len(reply) <= MAX_QUESTION_CHARS:
            return f"{earlier} {reply}", count + 1
    return reply, 1


FOLLOW_UP_TURNS = 3
"""A chat question is read with at most this many of the user's messages: the last, and the
ones it goes on from ("What does TF-4013 mean?" "And how do I fix it?" "Is that safe?")."""


def goes_on(message: str) -> bool:
    """Whether a user's chat message goes on from the one before it: a follow-up that
    names nothing (:attr:`abstain.question.Question.refers_to`) or one that opens with a
    conjunction or refers with a pronoun (:func:`abstain.asked.follows_on`)."""
    text = clean(message)
    if not text or len(text) > MAX_QUESTION_CHARS:  # refused as too long: read it no further
        return False
    question = Question.parse(text, detect_language(text))
    return question.refers_to is not None or follows_on(question.asked, question.language,
                                                        question.content_count)


def asked_again(earlier: str, follow_up: str) -> str | None:
    """The earlier question asked of what a follow-up names in place of what it named:
    "What is the resolution target for P3?" then "and for P1?" is "What is the resolution
    target for P1?" (read joined, it asked about both and was refused). Only when the
    follow-up names one thing and nothing else, and the earlier question one thing of its
    kind (an identifier of the same pattern, P3 / P1; or a name); else None."""
    follow = Question.parse(clean(follow_up), detect_language(follow_up))
    before = Question.parse(clean(earlier), detect_language(earlier))
    if len(follow.mentions) != 1 or len(before.mentions) != 1:
        return None
    new, old = follow.mentions[0], before.mentions[0]
    if len(follow.words) != len(new.words) or new.kind is not old.kind:
        return None  # the follow-up asks something more ("and how do I fix P1?")
    if new.kind is Kind.IDENTIFIER and (number_pattern(new.text) is None
                                        or number_pattern(new.text) != number_pattern(old.text)):
        return None
    whole = re.compile(rf"(?<![\w-]){re.escape(old.text)}(?![\w-])")
    if new.kind not in (Kind.IDENTIFIER, Kind.NAME) or not whole.search(before.text):
        return None
    return whole.sub(lambda _: new.text, before.text)


def _workspace(key: ApiKey, name: str) -> str:
    import re

    if not re.match(WORKSPACE_PATTERN, name):
        raise ApiError(404, "unknown_workspace", f"no workspace (model) named {name!r}")
    if not key.can_access(name):
        raise ApiError(403, "forbidden",
                       f"key {key.id} is for workspace {key.workspace!r}, not {name!r}")
    return name


@router.get("/models", summary="The workspaces this key may ask, as OpenAI models",
            responses=error_responses(401, 429, 503))
async def models(request: Request, key: Key) -> JSONResponse:
    pipe = services(request).ready_pipeline()
    names = await run_in_threadpool(pipe.store.workspaces)
    visible = [n for n in names if key.can_access(n)]
    return JSONResponse({"object": "list", "data": [_model_object(n) for n in visible]})


@router.get("/models/{model}", summary="One workspace this key may ask, as an OpenAI model",
            responses=error_responses(401, 403, 404, 429, 503))
async def model(request: Request, model: str, key: Key) -> JSONResponse:
    svc = services(request)
    ws = _workspace(key, model)
    await known_workspace(svc, ws)
    return JSONResponse(_model_object(ws))


def _model_object(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "abstain"}


_CHAT_200 = {"description": "A chat.completion (JSON), or with `stream: true` a stream of "
                            "chat.completion.chunk events ending with `data: [DONE]`",
             "content": {"application/json": {"schema": {"type": "object"}},
                         "text/event-stream": {"schema": {
                             "type": "object", "required": ["data"],
                             "properties": {"data": {"type": "string"}}}}}}


@router.post("/chat/completions", summary="OpenAI-compatible chat: an answer or a refusal",
             responses={200: _CHAT_200,
                        **error_responses(400, 401, 403, 404, 413, 422, 429, 503)})
async def chat_completions(request: Request, body: ChatRequest, key: Key) -> Response:
    svc = services(request)
    ws = _workspace(key, body.model)
    question = await run_in_threadpool(body.question)  # reading follow-ups parses them
    await known_workspace(svc, ws)
    if body.stream:
        return await open_stream(svc, question, ws, ChunkEncoder(
            ws, usage_of=body.sent() if body.include_usage else None))
    pipe = svc.pipeline_for(ws)
    result = await answering.answer(svc, pipe, question, ws)
    payload = svc.config.sources.answer_json(result.to_json())
    text = _content(payload)
    refusal = None if payload["answered"] or _clarifies(payload) else text
    return JSONResponse({
        "id": _id(), "object": "chat.completion", "created": int(time.time()), "model": ws,
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": text, "refusal": refusal}}],
        "usage": _usage(body.sent(), text),
        "abstain": abstain_object(payload),
    })


def abstain_object(payload: dict[str, Any]) -> dict[str, Any]:
    """What a chat client needs to audit the reply, from ``Answer.to_json()``."""
    refusal = payload.get("refusal") or {}
    return {"question": payload["question"], "read_as": payload.get("read_as"),
            "answered": payload["answered"],
            "reason": refusal.get("reason"),
            "confidence": payload["confidence"],
            "display_confidence": payload["display_confidence"],
            "triage": payload["triage"], "citations": payload["citations"],
            "evidence": payload.get("evidence", []), "llm_called": payload["llm_called"],
            "suggestions": refusal.get("suggestions", [])}


def _clarifies(payload: dict[str, Any]) -> bool:
    """A clarifying question: a normal assistant turn the user answers, not a refusal."""
    return bool((payload.get("refusal") or {}).get("reason") == CLARIFYING)


def _content(payload: dict[str, Any]) -> str:
    if payload["answered"]:
        return str(payload["answer"])
    return str((payload.get("refusal") or {}).get("message", ""))


def _usage(sent: str, text: str) -> dict[str, int]:
    prompt, completion = approx_tokens(sent), approx_tokens(text)
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}


def _id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"


class ChunkEncoder:
    """Stream events as OpenAI ``chat.completion.chunk`` server-sent events."""

    media_type = "text/event-stream"

    def __init__(self, model: str, *, usage_of: str | None = None) -> None:
        """``usage_of``: the messages sent (:meth:`ChatRequest.sent`), when the request asked
        for a usage chunk (``stream_options.include_usage``)."""
        self.model = model
        self.id = _id()
        self.created = int(time.time())
        self.sentences = 0
        self.usage_of = usage_of
        self.said: list[str] = []

    def _chunk(self, delta: dict[str, Any], finish: str | None = None,
               **extra: Any) -> str:
        if "content" in delta:
            self.said.append(str(delta["content"]))
        choices = [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]
        return self._data(choices, **extra)

    def _data(self, choices: list[dict[str, Any]], **extra: Any) -> str:
        chunk = {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                 "model": self.model, "choices": choices, **extra}
        if self.usage_of is not None:
            chunk.setdefault("usage", None)
        return f"data: {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}\n\n"

    def encode(self, event: Event) -> str:
        data = event.data
        if event.kind == "meta":
            return self._chunk({"role": "assistant", "content": ""})
        if event.kind == "sentence":
            self.sentences += 1
            prefix = "" if self.sentences == 1 else " "
            return self._chunk({"content": prefix + str(data.get("text", ""))})
        if event.kind == "refusal":
            message = str(data.get("message", ""))
            if data.get("reason") == CLARIFYING:
                return self._chunk({"content": message})
            return self._chunk({"content": message, "refusal": message})
        if event.kind == "retraction":
            message = str(data.get("message", ""))
            return self._chunk({"content": f"\n\n{message}", "refusal": message})
        if event.kind == "done":
            usage = "" if self.usage_of is None else self._data(
                [], usage=_usage(self.usage_of, "".join(self.said)))
            return (self._chunk({}, "stop", abstain=abstain_object(data)) + usage
                    + "data: [DONE]\n\n")
        return ""

    def error(self, code: str, message: str) -> str:
        body = {"error": {"code": code, "message": message, "type": "server_error"}}
        return f"data: {json.dumps(body)}\n\n"
