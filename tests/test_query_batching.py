"""Concurrent questions share query-embedding calls; each gets its own vector back."""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from abstain.embed.base import Vectors
from abstain.embed.batching import QueryBatcher
from abstain.embed.hashing import HashingEmbedder


class SlowEmbedder(HashingEmbedder):
    """The hashing embedder, 50 ms per model call (like a real model, batch or not)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(len(texts))
        time.sleep(0.05)
        return super().embed_batch(texts)


def test_concurrent_texts_share_calls_and_get_their_own_vectors() -> None:
    inner = SlowEmbedder()
    batcher = QueryBatcher(inner)
    texts = [f"question number {i}" for i in range(24)]
    with ThreadPoolExecutor(max_workers=24) as pool:
        vectors = list(pool.map(lambda t: batcher.embed_batch([t]), texts))
    expected = HashingEmbedder().embed_batch(texts)
    for got, want in zip(vectors, expected, strict=True):
        assert got.shape == (1, inner.dim)
        np.testing.assert_allclose(got[0], want, rtol=1e-6)
    assert batcher.texts == 24 and batcher.calls == len(inner.calls) < 12


def test_a_lone_text_does_not_wait_and_batches_pass_through() -> None:
    inner = SlowEmbedder()
    batcher = QueryBatcher(inner, window_s=1.0)  # the window only applies to a crowd
    started = time.monotonic()
    batcher.embed_batch(["alone"])
    assert time.monotonic() - started < 0.5
    assert batcher.embed_batch(["a", "b"]).shape == (2, inner.dim)
    assert inner.calls == [1, 2]


def test_a_failing_model_fails_every_caller_of_the_batch() -> None:
    class Broken(HashingEmbedder):
        def embed_batch(self, texts: Sequence[str]) -> Vectors:
            raise RuntimeError("model gone")

    batcher = QueryBatcher(Broken())
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(batcher.embed_batch, [str(i)]) for i in range(4)]
        for future in futures:
            with pytest.raises(RuntimeError, match="model gone"):
                future.result()
