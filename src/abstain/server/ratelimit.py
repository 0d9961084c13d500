"""A per-key token bucket: ``burst`` requests at once, refilled at ``rate`` per second."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class RateLimiter:
    def __init__(self, rate: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        """key -> (tokens, time of last refill)"""
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def acquire(self, key: str) -> float:
        """Take one token for ``key``: 0.0 if granted, else seconds until one is available."""
        if not self.enabled:
            return 0.0
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


def retry_after(wait: float) -> str:
    """The ``Retry-After`` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(wait)))
