"""A scripted OpenAI-compatible server on a loopback port, for tests and demos.

It speaks ``POST /v1/chat/completions`` (plain and ``stream: true`` server-sent
events) and ``POST /v1/embeddings`` (deterministic hashing vectors), over real
HTTP from a thread (stdlib :mod:`http.server`, no extra dependency)::

    with ScriptedOpenAIServer(["Keys rotate every 30 days [1]."]) as server:
        gen = OpenAIChatGenerator(server.url, "test")
        ...
        assert server.chat_requests == []   # e.g. the gate refused first

Replies are taken from the script in order; when it runs out, ``responder``
(a function of the request body) or the ``default`` reply answers. A
:class:`Reply` can also fail on purpose: HTTP status, slowness, malformed JSON.
``down_url()`` is a loopback URL on which nothing listens.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from abstain.testing.loopback import LoopbackServer


@dataclass(frozen=True, slots=True)
class Reply:
    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    """Sleep this long before answering (to provoke client timeouts)."""
    trickle_s: float = 0.0
    """Send the reply slowly: sleep this long before each byte (plain) or piece (stream)."""
    body: str | None = None
    """Send this raw body instead (e.g. malformed JSON)."""
    logprob: float | None = None
    """Per-token log-probability to report when the request asks for logprobs."""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Request:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def prompt(self) -> str:
        """All message contents of a chat request, joined."""
        return "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []))


Script = Reply | str
Responder = Callable[[dict[str, Any]], Script]


class ScriptedOpenAIServer(LoopbackServer):
    thread_name = "scripted-openai"

    def __init__(self, replies: Iterable[Script] = (), *, responder: Responder | None = None,
                 default: Script = "", model: str = "scripted") -> None:
        self._queue: list[Reply] = [_reply(r) for r in replies]
        self.responder = responder
        self.default = _reply(default)
        self.model = model
        self.requests: list[Request] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """Base URL including ``/v1``."""
        return f"{self.root_url}/v1"

    # -- scripting ---------------------------------------------------------------
    def script(self, *replies: Script) -> None:
        with self._lock:
            self._queue.extend(_reply(r) for r in replies)

    @property
    def chat_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        if self.responder is not None:
            return _reply(self.responder(body))
        return self.default


def down_url() -> str:
    """A loopback base URL where nothing listens (a port just freed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _reply(script: Script) -> Reply:
    return script if isinstance(script, Reply) else Reply(content=script)


def _tokens(text: str) -> list[str]:
    """Split into word-ish pieces that concatenate back to ``text``."""
    pieces: list[str] = []
    for i, word in enumerate(text.split(" ")):
        pieces.append(word if i == 0 else " " + word)
    return [p for p in pieces if p]


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedOpenAIServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        owner = self.owner
        with owner._lock:
            owner.requests.append(Request(self.path, body, dict(self.headers.items())))
        if self.path.endswith("/embeddings"):
            self._embeddings(body)
        elif self.path.endswith("/chat/completions"):
            self._chat(body, owner._next(body))
        else:
            self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))

    def _send(self, status: int, text: str, headers: dict[str, str] | None = None, *,
              trickle_s: float = 0.0) -> None:
        data = text.encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if not trickle_s:
                self.wfile.write(data)
                return
            for i in range(len(data)):
                time.sleep(trickle_s)
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
        except OSError:  # the client gave up (e.g. its deadline passed)
            return

    def _chat(self, body: dict[str, Any], reply: Reply) -> None:
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.status != 200 or reply.body is not None:
            text = reply.body if reply.body is not None else json.dumps(
                {"error": {"message": f"scripted failure {reply.status}"}})
            self._send(reply.status, text, reply.headers)
            return
        pieces = _tokens(reply.content)
        want_logprobs = bool(body.get("logprobs")) and reply.logprob is not None
        usage = {"prompt_tokens": sum(len(str(m.get("content", ""))) for m in
                                      body.get("messages", [])) // 4 + 1,
                 "completion_tokens": len(pieces)}
        if body.get("stream"):
            self._stream(pieces, reply, want_logprobs, usage)
            return
        choice: dict[str, Any] = {"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": reply.content}}
        if want_logprobs:
            choice["logprobs"] = {"content": [{"token": p, "logprob": reply.logprob}
                                              for p in pieces]}
        self._send(200, json.dumps({"id": "chatcmpl-scripted", "object": "chat.completion",
                                    "model": self.owner.model, "choices": [choice],
                                    "usage": usage}), reply.headers, trickle_s=reply.trickle_s)

    def _stream(self, pieces: list[str], reply: Reply, want_logprobs: bool,
                usage: dict[str, int]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        try:
            self._stream_pieces(pieces, reply, want_logprobs, usage)
        except OSError:  # the client gave up (e.g. its deadline passed)
            return

    def _stream_pieces(self, pieces: list[str], reply: Reply, want_logprobs: bool,
                       usage: dict[str, int]) -> None:
        for piece in pieces:
            if reply.trickle_s:
                time.sleep(reply.trickle_s)
            choice: dict[str, Any] = {"index": 0, "delta": {"content": piece},
                                      "finish_reason": None}
            if want_logprobs:
                choice["logprobs"] = {"content": [{"token": piece, "logprob": reply.logprob}]}
            self._event({"object": "chat.completion.chunk", "choices": [choice]})
        self._event({"object": "chat.completion.chunk", "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, payload: dict[str, Any]) -> None:
        self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
        self.wfile.flush()

    def _embeddings(self, body: dict[str, Any]) -> None:
        from abstain.embed.hashing import HashingEmbedder

        inputs = body.get("input", [])
        texts = [inputs] if isinstance(inputs, str) else [str(t) for t in inputs]
        vectors: list[list[float]] = (HashingEmbedder().embed_batch(texts).tolist()
                                      if texts else [])
        data = [{"object": "embedding", "index": i, "embedding": [float(x) for x in v]}
                for i, v in enumerate(vectors)]
        self._send(200, json.dumps({"object": "list", "data": data, "model": self.owner.model,
                                    "usage": {"prompt_tokens": 0, "total_tokens": 0}}))


ScriptedOpenAIServer.handler = _Handler
