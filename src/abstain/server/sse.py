"""Relaying :func:`abstain.stream.stream_answer` events to an HTTP client.

Two encodings of the same events:

* Server-Sent Events (``text/event-stream``): one ``event: KIND`` / ``data: JSON`` block
  per event, in the stream's order (meta, refusal | sentence*, retraction?, done).
* Plain text (``?format=text``, for clients without an SSE parser): a JSON metadata line,
  then the answer's sentences, or a ``[REJECTION]`` line followed by the refusal message.

The event source is a blocking iterator. Its first step (retrieval and gate) runs in the
shared thread pool like ``/ask``; the rest is drained by one worker thread on the
streams' own limiter, so a started stream is not queued behind new questions between two
sentences. When the client goes away the iterator is closed (so an LLM stream stops too)
and nothing more is computed for it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, Protocol

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from abstain.server.state import StreamStats
from abstain.stream import Event

log = logging.getLogger("abstain.server")

REJECTION = "[REJECTION]"
RETRACTION = "[RETRACTION]"
_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class SSEEncoder:
    media_type = "text/event-stream"

    def encode(self, event: Event) -> str:
        return f"event: {event.kind}\ndata: {_json(event.data)}\n\n"

    def error(self, code: str, message: str) -> str:
        return self.encode(Event("error", {"error": {"code": code, "message": message}}))


class TextEncoder:
    """The plain-text stream: metadata line, then answer text or the sentinel."""

    media_type = "text/plain; charset=utf-8"

    def __init__(self, started: float) -> None:
        self.started = started
        self.sentences = 0

    def encode(self, event: Event) -> str:
        data = event.data
        if event.kind == "meta":
            sources = list(dict.fromkeys(str(e.get("source", "")) for e in
                                         data.get("evidence", ())))
            return _json({"sources": sources,
                          "response_time_ms": round((time.perf_counter() - self.started) * 1000),
                          "confidence": data.get("confidence"),
                          "display_confidence": data.get("display_confidence"),
                          "triage": data.get("triage")}) + "\n"
        if event.kind == "refusal":
            return f"{REJECTION}\n{data.get('message', '')}\n"
        if event.kind == "sentence":
            self.sentences += 1
            return ("" if self.sentences == 1 else " ") + str(data.get("text", ""))
        if event.kind == "retraction":
            reason = data.get("message") or data.get("reason") or ""
            return f"\n{RETRACTION}\n{reason}\n"
        if event.kind == "done" and self.sentences:
            return "\n"
        return ""

    def error(self, code: str, message: str) -> str:
        return f"\n[ERROR]\n{code}: {message}\n"


def utf8(chunk: str, encoder: Encoder) -> bytes:
    """``chunk`` as UTF-8; text that cannot be encoded (a lone surrogate) becomes the
    encoder's error event instead of a broken stream."""
    try:
        return chunk.encode("utf-8")
    except UnicodeEncodeError:
        log.warning("a stream event held text that is not valid UTF-8")
        return encoder.error("invalid_input",
                             "the text is not valid Unicode (a lone surrogate)").encode("utf-8")


class Encoder(Protocol):
    """Turns events into the response's text (SSE, plain text, OpenAI chunks)."""

    media_type: str

    def encode(self, event: Event) -> str: ...

    def error(self, code: str, message: str) -> str: ...


_Item = Event | Exception | None
"""What the producer thread hands over: an event, the failure, or None at the end."""


class EventStream(StreamingResponse):
    """Streams encoded events; closes the event source whether or not the client stayed.

    After the first event, one worker thread drains the source and hands each event to
    the event loop as soon as it exists, so a sentence costs no thread hop of its own.
    """

    def __init__(self, first: Event, events: Iterator[Event], encoder: Encoder,
                 stats: StreamStats, threads: anyio.CapacityLimiter | None = None) -> None:
        self._first = first
        self._events = events
        self._encoder = encoder
        self._stats = stats
        self._threads = threads
        self._stop = threading.Event()
        self._producer: asyncio.Future[None] | None = None
        self._finished = False
        super().__init__(self._chunks(), media_type=encoder.media_type, headers=_HEADERS)

    def _produce(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[_Item]) -> None:
        """Runs in a worker thread: iterate, hand over, stop when asked, always close."""
        last: _Item = None
        try:
            for event in self._events:
                loop.call_soon_threadsafe(queue.put_nowait, event)
                if self._stop.is_set():
                    break
        except Exception as exc:
            log.exception("event stream failed")
            last = exc
        finally:
            close = getattr(self._events, "close", None)
            if close is not None:
                close()
            loop.call_soon_threadsafe(queue.put_nowait, last)

    async def _chunks(self) -> AsyncIterator[bytes]:
        yield self._bytes(self._encoder.encode(self._first))
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[_Item] = asyncio.Queue()
        self._producer = asyncio.ensure_future(
            anyio.to_thread.run_sync(self._produce, loop, queue, limiter=self._threads))
        while (item := await queue.get()) is not None:
            if isinstance(item, Exception):
                # Headers are sent: the failure can only be reported in the stream itself.
                yield self._bytes(self._encoder.error("internal_error",
                                                      "the answer stream failed"))
                break
            chunk = self._encoder.encode(item)
            if chunk:
                yield self._bytes(chunk)
        self._finished = True

    def _bytes(self, chunk: str) -> bytes:
        return utf8(chunk, self._encoder)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self._stats.open()
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._stop.set()
            with anyio.CancelScope(shield=True):
                if self._producer is not None:
                    await self._producer  # returns once the source is closed
                else:
                    close = getattr(self._events, "close", None)
                    if close is not None:
                        await anyio.to_thread.run_sync(close, limiter=self._threads)
                aclose = getattr(self.body_iterator, "aclose", None)
                if aclose is not None:
                    await aclose()
            self._stats.close(self._finished)
