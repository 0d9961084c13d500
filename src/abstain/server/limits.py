"""Request body limits, enforced before and while the body is read (413).

A declared ``Content-Length`` over the limit is refused before a byte reaches the
application: the body is read and thrown away (up to ``DRAIN_FACTOR`` times the limit)
and then the 413 is sent, so that a client still writing its body reads the answer rather
than a reset connection. A chunked body is counted as it arrives and refused once it
passes the limit, so nothing of it reaches the store.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from abstain.server.errors import ApiError

_UPLOAD_PATH = re.compile(r"^/v1/workspaces/[^/]+/documents/?$")
DRAIN_FACTOR = 4
"""An over-limit body is drained up to this many times the limit before the 413; past it
the connection is closed without waiting for the rest."""


def _too_large(limit: int) -> ApiError:
    return ApiError(413, "payload_too_large",
                    f"the request body is larger than the limit of {limit} bytes")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, *, max_upload_bytes: int, max_json_bytes: int) -> None:
        self.app = app
        self.max_upload_bytes = max_upload_bytes
        self.max_json_bytes = max_json_bytes

    def limit_for(self, scope: Scope) -> int:
        upload = scope["method"] == "POST" and _UPLOAD_PATH.match(scope["path"]) is not None
        return self.max_upload_bytes if upload else self.max_json_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _reject(scope, receive, send, limit)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _too_large(limit)
            return message

        await self.app(scope, counted, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _drain(receive: Receive, cap: int) -> None:
    """Read and discard the request body, at most ``cap`` bytes of it."""
    read = 0
    while read <= cap:
        message = await receive()
        if message["type"] != "http.request":
            return
        read += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


async def _reject(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    from fastapi.responses import JSONResponse

    await _drain(receive, DRAIN_FACTOR * limit)

    error = _too_large(limit)
    body = {"error": {"code": error.code, "message": error.message}}
    response = JSONResponse(body, status_code=413, headers={"Connection": "close"})
    await response(scope, receive, send)
