"""Running the app: ``serve`` for the CLI, ``ServerThread`` for tests and benchmarks."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

from fastapi import FastAPI


def serve(app: FastAPI, *, host: str = "127.0.0.1", port: int = 8000,
          log_level: str = "info") -> None:
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level=log_level, proxy_headers=False,
                timeout_graceful_shutdown=5)


class ServerThread:
    """A real uvicorn server in a background thread, on a free loopback port.

    ::

        with ServerThread(app) as server:
            httpx.get(f"{server.url}/health")
    """

    def __init__(self, app: FastAPI, *, host: str = "127.0.0.1", log_level: str = "warning",
                 startup_timeout: float = 60.0) -> None:
        import uvicorn

        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self.host, self.port = self._sock.getsockname()[:2]
        config = uvicorn.Config(app, log_level=log_level, lifespan="on",
                                timeout_graceful_shutdown=5, backlog=512)
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self.server.run,
                                        kwargs={"sockets": [self._sock]},
                                        name="abstain-server", daemon=True)
        self._startup_timeout = startup_timeout

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + self._startup_timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(timeout=15)
        self._sock.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
