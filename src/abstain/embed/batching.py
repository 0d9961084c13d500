"""Micro-batching of query embeddings: concurrent questions share one model call.

Each question embeds one short text; under load, many threads do so at once and the
model runs once per question. :class:`QueryBatcher` wraps an embedder so that
single-text calls queue up: a waiting caller becomes a batch's leader while fewer than
``parallel`` batches run, embeds up to ``max_batch`` queued texts in one call and hands
each caller its vector. So batches form from the questions that arrive while one runs,
and a lone caller never waits. ``window_s`` adds a wait of a few ms for more questions
when others are already queued; it is 0 by default because on the 2-core benchmark
machine the wait cost more than it merged (docs/BENCHMARKS.md). Calls with more than one
text (ingestion) go straight to the wrapped embedder.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from abstain.embed.base import Embedder, Vectors

DEFAULT_WINDOW_S = 0.0
"""Extra wait for more questions when others are queued (0: none)."""
DEFAULT_MAX_BATCH = 32
DEFAULT_PARALLEL = 2
"""Batches embedded at once: the next batch forms while one runs."""


@dataclass
class _Slot:
    text: str
    vector: Vectors | None = None
    error: BaseException | None = None
    taken: bool = False
    """In a batch that is being embedded."""

    @property
    def done(self) -> bool:
        return self.vector is not None or self.error is not None


class QueryBatcher:
    """An :class:`~abstain.embed.base.Embedder` that batches concurrent single-text calls."""

    def __init__(self, embedder: Embedder, *, window_s: float = DEFAULT_WINDOW_S,
                 max_batch: int = DEFAULT_MAX_BATCH, parallel: int = DEFAULT_PARALLEL) -> None:
        if window_s < 0 or max_batch < 1 or parallel < 1:
            raise ValueError("window_s must be >= 0, max_batch and parallel >= 1")
        self.inner = embedder
        self.name, self.dim = embedder.name, embedder.dim
        self.batch_size = embedder.batch_size
        self.window_s, self.max_batch, self.parallel = window_s, max_batch, parallel
        self.calls = 0
        """Model calls made for single texts (for tests and benchmarks)."""
        self.texts = 0
        """Single texts embedded."""
        self._pending: list[_Slot] = []
        self._running = 0
        """Batches being embedded now (at most ``parallel``)."""
        self._cond = threading.Condition()

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        if len(texts) != 1:
            return self.inner.embed_batch(texts)
        slot = _Slot(texts[0])
        with self._cond:
            self._pending.append(slot)
        while True:
            with self._cond:
                while (slot.taken or self._running >= self.parallel) and not slot.done:
                    self._cond.wait()
                if slot.done:
                    break
                self._running += 1
                crowded = len(self._pending) > 1
            try:
                if crowded and self.window_s:
                    time.sleep(self.window_s)  # let the questions arriving now join
                self._run_batch()
            finally:
                with self._cond:
                    self._running -= 1
                    self._cond.notify_all()
        if slot.error is not None:
            raise slot.error
        assert slot.vector is not None
        return slot.vector.reshape(1, -1)

    def _run_batch(self) -> None:
        with self._cond:
            batch = self._pending[:self.max_batch]
            del self._pending[:self.max_batch]
            for s in batch:
                s.taken = True
        if not batch:
            return
        try:
            vectors = np.asarray(self.inner.embed_batch([s.text for s in batch]),
                                 dtype=np.float32)
        except BaseException as exc:
            for s in batch:
                s.error = exc
            return
        self.calls += 1
        self.texts += len(batch)
        for s, vector in zip(batch, vectors, strict=True):
            s.vector = vector
