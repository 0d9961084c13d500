from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension."""

    name: str
    """Recorded by the store; a store refuses vectors from another model."""
    dim: int
    batch_size: int

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        """Embed a batch; returns an array of shape (len(texts), dim)."""
        ...


def embed_texts(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    on_batch: Callable[[int], None] | None = None,
) -> Vectors:
    """Embed any number of texts in batches of ``embedder.batch_size``.

    Texts are sorted by length first so each batch pads to similar lengths,
    then returned in the original order.
    """
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.empty((len(texts), embedder.dim), dtype=np.float32)
    size = max(1, embedder.batch_size)
    for start in range(0, len(order), size):
        idx = order[start : start + size]
        out[idx] = embedder.embed_batch([texts[i] for i in idx])
        if on_batch is not None:
            on_batch(len(idx))
    return out


def normalise(matrix: npt.NDArray[np.floating]) -> Vectors:
    arr = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (arr / norms).astype(np.float32)
    return out
