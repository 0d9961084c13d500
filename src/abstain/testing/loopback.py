"""The lifecycle the scripted servers share: a stdlib HTTP server on a free loopback port,
served from a daemon thread, started and stopped as a context manager."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LoopbackServer:
    """Subclasses name their request ``handler`` class; each handler reads its server as
    ``self.owner``."""

    handler: type[BaseHTTPRequestHandler]
    thread_name = "scripted-server"
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def start(self) -> Self:
        handler = type("Handler", (self.handler,), {"owner": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server."""
        assert self._httpd is not None, "start() the server first"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"
