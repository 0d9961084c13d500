"""``POST /v1/workspaces/{ws}/ask`` (JSON) and ``…/ask/stream`` (SSE or plain text)."""

from __future__ import annotations

import time
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from abstain.server import answering
from abstain.server.auth import Workspace
from abstain.server.errors import ApiError, error_responses
from abstain.server.models import ANSWER_SCHEMA, AskRequest, json_response
from abstain.server.sse import Encoder, EventStream, SSEEncoder, TextEncoder
from abstain.server.state import Services, services

router = APIRouter(prefix="/v1/workspaces/{ws}", tags=["ask"])
_ERRORS = error_responses(400, 401, 403, 404, 413, 422, 429, 503)

_STREAM_DOC = """Server-Sent Events, in this order: `meta` (evidence, confidence, checks),
then either `refusal` (reason, message, suggestions; no LLM call) or `sentence` events
(each one verified before it is sent), an optional `retraction`, and `done` (the final
Answer JSON). With `?format=text`: a JSON metadata line, then the answer text, or a
`[REJECTION]` line followed by the refusal message."""


async def known_workspace(svc: Services, ws: str) -> None:
    pipe = svc.ready_pipeline()
    names = await run_in_threadpool(pipe.store.workspaces)
    if ws not in names:
        raise ApiError(404, "unknown_workspace",
                       f"workspace {ws!r} has no documents; upload some first")


@router.post("/ask", summary="Answer a question, or refuse with the reason",
             responses={200: json_response(ANSWER_SCHEMA, "The answer or refusal"),
                        **_ERRORS})
async def ask(request: Request, body: AskRequest, ws: Workspace) -> JSONResponse:
    svc = services(request)
    await known_workspace(svc, ws)
    pipe = svc.pipeline_for(ws)
    result = await answering.answer(svc, pipe, body.asked(), ws)
    return JSONResponse(svc.config.sources.answer_json(result.to_json()))


_SSE_EVENT = {  # one event of the stream, as an SSE parser reads it (docs/SERVER.md)
    "type": "object", "required": ["event", "data"],
    "properties": {"event": {"enum": ["meta", "refusal", "sentence", "retraction", "done",
                                      "error"]},
                   "data": {"type": "string", "description": "the event's JSON"}},
}


@router.post("/ask/stream", summary="Stream a verified answer (SSE), or a refusal",
             description=_STREAM_DOC, response_class=EventStream, status_code=200,
             responses={200: {"description": "An event stream",
                              "content": {"text/event-stream": {"schema": _SSE_EVENT},
                                          "text/plain": {"schema": {"type": "string"}}}},
                        **_ERRORS})
async def ask_stream(request: Request, body: AskRequest, ws: Workspace,
                     format: Annotated[Literal["sse", "text"],
                                       Query(description="`sse` (default) or `text`")] = "sse",
                     ) -> EventStream:
    started = time.perf_counter()
    svc = services(request)
    await known_workspace(svc, ws)
    encoder = TextEncoder(started) if format == "text" else SSEEncoder()
    return await open_stream(svc, body.asked(), ws, encoder)


async def open_stream(svc: Services, question: str, ws: str, encoder: Encoder) -> EventStream:
    """The question's events as a streaming response, once its first event is computed.

    The first event (meta) is computed before the response starts, so a failure there
    is still an ordinary JSON error with its status code."""
    pipe = svc.pipeline_for(ws)
    events = answering.logged(svc.stream(pipe, question, ws), ws,
                              shown=svc.config.sources.event)
    try:
        first = await run_in_threadpool(next, events, None)
    except BaseException:
        close = getattr(events, "close", None)
        if close is not None:
            close()
        raise
    if first is None:
        raise ApiError(500, "internal_error", "the answer stream produced no events")
    return EventStream(first, events, encoder, svc.streams, svc.stream_threads)
