"""The MCP server over streamable HTTP, behind ``abstain keys`` API keys.

Every request to the endpoint (``/mcp``) must carry ``Authorization: Bearer KEY``, a key
from the same key file as ``abstain serve`` (:mod:`abstain.server.keys`); without one, or
with an unknown or revoked key, the answer is ``401`` with a JSON error and nothing reaches
the MCP session. Which workspaces a key may use is checked per tool call
(:mod:`abstain.mcp.server`). ``GET /health`` answers without a key.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from starlette.applications import Starlette

    from abstain.server.keys import KeyStore

MCP_PATH = "/mcp"


class KeyCheck:
    """ASGI middleware: a live bearer key or ``401`` (``missing_key`` / ``invalid_key``)."""

    def __init__(self, app: ASGIApp, keys: KeyStore) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == "/health":
            await self.app(scope, receive, send)
            return
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        scheme, _, secret = header.partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            await _unauthorized(send, "missing_key",
                                "send an API key as 'Authorization: Bearer KEY' "
                                "(create one with `abstain keys create`)")
            return
        if self.keys.verify(secret.strip()) is None:
            await _unauthorized(send, "invalid_key", "the API key is unknown or revoked")
            return
        await self.app(scope, receive, send)


async def _unauthorized(send: Send, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def http_app(server: MCPServer, keys: KeyStore, *, host: str = "127.0.0.1") -> Starlette:
    """The streamable-HTTP app at ``/mcp``, every request's key checked first."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    server.custom_route("/health", methods=["GET"])(health)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    app.add_middleware(KeyCheck, keys=keys)
    return app


def serve_http(server: MCPServer, keys: KeyStore, *, host: str = "127.0.0.1",
               port: int = 8001, log_level: str = "warning") -> None:
    import uvicorn

    uvicorn.run(http_app(server, keys, host=host), host=host, port=port, log_level=log_level,
                proxy_headers=False, timeout_graceful_shutdown=5)
