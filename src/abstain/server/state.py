"""What the app shares between requests: one pipeline, the key file, the rate limiter."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio
from fastapi import Request

from abstain.server.config import ServerConfig
from abstain.server.keys import KeyStore
from abstain.server.ratelimit import RateLimiter
from abstain.stream import Event

if TYPE_CHECKING:
    from abstain.embed.batching import QueryBatcher
    from abstain.pipeline import Pipeline

StreamFn = Callable[["Pipeline", str, str], Iterator[Event]]
"""``abstain.stream.stream_answer`` or anything with its signature and event contract."""


@dataclass
class StreamStats:
    """Counters of SSE / text streams, for readiness and for tests of clean stops."""

    opened: int = 0
    completed: int = 0
    disconnected: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def open(self) -> None:
        with self._lock:
            self.opened += 1

    def close(self, completed: bool) -> None:
        with self._lock:
            if completed:
                self.completed += 1
            else:
                self.disconnected += 1

    @property
    def active(self) -> int:
        return self.opened - self.completed - self.disconnected


@dataclass
class Services:
    keys: KeyStore
    config: ServerConfig
    stream: StreamFn
    limiter: RateLimiter
    pipeline: Pipeline | None = None
    model: str | None = None
    """The embedder's name once it has embedded a warm-up text."""
    streams: StreamStats = field(default_factory=StreamStats)
    stream_threads: anyio.CapacityLimiter | None = None
    """Threads for the steps of streams already started (set at start-up)."""
    llm_threads: dict[int, anyio.CapacityLimiter] = field(default_factory=dict)
    """Threads for LLM generation, one pool per generator (see server/answering.py)."""
    query_batcher: QueryBatcher | None = None
    workspace_pipelines: dict[str, Pipeline] = field(default_factory=dict)
    """Pipelines of workspaces with their own options (abstain.toml [workspaces.NAME]),
    sharing the main pipeline's store and embedder."""

    def ready_pipeline(self) -> Pipeline:
        from abstain.server.errors import ApiError

        if self.pipeline is None:
            raise ApiError(503, "not_ready", "the pipeline is still loading; retry shortly",
                           {"Retry-After": "1"})
        return self.pipeline

    def llm_pool(self, pipe: Pipeline) -> anyio.CapacityLimiter:
        """The thread pool of ``pipe``'s generator (created on first use, in the loop)."""
        key = id(pipe.generator)
        if key not in self.llm_threads:
            self.llm_threads[key] = anyio.CapacityLimiter(self.config.llm_threads)
        return self.llm_threads[key]

    def pipeline_for(self, workspace: str) -> Pipeline:
        """The pipeline that asks in ``workspace``: its own options, or the main one."""
        pipe = self.ready_pipeline()
        return self.workspace_pipelines.get(workspace, pipe)


def services(request: Request) -> Services:
    svc: Services = request.app.state.services
    return svc
