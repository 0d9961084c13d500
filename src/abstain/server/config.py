"""The server's knobs as one small value object, with defaults as named constants."""

from __future__ import annotations

from dataclasses import dataclass, field

from abstain.server.sources import SourceView
from abstain.stores.base import WORKSPACE_PATTERN as _WORKSPACE_PATTERN

MAX_UPLOAD_BYTES = 10 * 1024 * 1024
"""Document uploads (multipart files or JSON text)."""
MAX_JSON_BYTES = 64 * 1024
"""Every other request body."""
DEFAULT_RATE = 10.0
"""Requests per second a key may sustain (token bucket refill rate); 0 turns the limit off."""
DEFAULT_BURST = 30
"""Requests a key may make at once (token bucket size)."""
STREAM_THREADS = 200
"""Threads for the later steps of started streams (an LLM stream mostly waits on I/O)."""
LLM_THREADS = 16
"""Threads per LLM generator for ``/ask`` and chat completions: at most this many requests
wait on one language model at once; the rest queue without holding other work up."""
WORKSPACE_PATTERN = _WORKSPACE_PATTERN
"""The one workspace-name rule (``abstain.stores.base.check_workspace``)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    max_upload_bytes: int = MAX_UPLOAD_BYTES
    max_json_bytes: int = MAX_JSON_BYTES
    rate: float = DEFAULT_RATE
    burst: int = DEFAULT_BURST
    title: str = "abstain"
    llm_threads: int = LLM_THREADS
    query_batching: bool = True
    """Concurrent questions share one query-embedding call (abstain.embed.batching)."""
    sources: SourceView = field(default_factory=SourceView)
    """How documents' sources are named to clients (``--source-root``, ``--source-url``):
    as they are by default."""

    def __post_init__(self) -> None:
        if self.max_upload_bytes < 1 or self.max_json_bytes < 1:
            raise ValueError("body limits must be >= 1 byte")
        if self.rate < 0 or self.burst < 1:
            raise ValueError("rate must be >= 0 and burst >= 1")
        if self.llm_threads < 1:
            raise ValueError("llm_threads must be >= 1")
