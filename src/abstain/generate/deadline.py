"""One overall deadline for an HTTP call: connect, every read and every retry together.

httpx's timeouts are per operation: a server that trickles one byte every 20 s never
trips a 60 s read timeout. :class:`Deadline` bounds the whole call instead. Each
request gets ``min(per-operation timeout, time left)``; connections the call opens are
recorded through httpcore's ``trace`` extension (and from the response), and when the
deadline passes a watchdog timer shuts their sockets down, which wakes a blocked read
at once. The caller then sees a transport error and :attr:`expired` tells it why.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType
from typing import Any

import httpx


class DeadlineExpired(Exception):
    """The deadline passed (a body cut short by the watchdog can look complete)."""


class Deadline:
    def __init__(self, seconds: float) -> None:
        if seconds <= 0:
            raise ValueError("a deadline must be > 0 seconds")
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._streams: list[Any] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._timer.cancel()

    def check(self) -> None:
        """Raise :class:`DeadlineExpired` if the watchdog has fired."""
        if self.expired:
            raise DeadlineExpired(f"deadline of {self.seconds:g} s passed")

    def remaining(self) -> float:
        return max(0.0, self.ends - time.monotonic())

    def timeout(self, per_operation: float) -> httpx.Timeout:
        """Per-operation timeouts, never beyond the deadline (at least 1 ms)."""
        return httpx.Timeout(max(0.001, min(per_operation, self.remaining())))

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` callback: remember every connection the call opens."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.watch(info.get("return_value"))

    def watch(self, stream: Any) -> None:
        """Shut ``stream`` (an httpcore network stream) down when the deadline passes."""
        if stream is None:
            return
        with self._lock:
            self._streams.append(stream)
            fired = self.expired
        if fired:
            _shutdown(stream)

    def watch_response(self, response: httpx.Response) -> None:
        self.watch(response.extensions.get("network_stream"))

    def _fire(self) -> None:
        with self._lock:
            self.expired = True
            streams = list(self._streams)
        for stream in streams:
            _shutdown(stream)


def _shutdown(stream: Any) -> None:
    get = getattr(stream, "get_extra_info", None)
    sock = get("socket") if get is not None else None
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
