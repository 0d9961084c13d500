"""A deterministic, model-free embedder for tests and demos.

Each folded word (and word bigram) is hashed into one of ``dim`` buckets with a
sign; texts sharing words get a positive cosine. It captures no meaning, which
is exactly what tests of plumbing need: fast, stable, dependency-free.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from abstain.embed.base import Vectors, normalise
from abstain.text import tokens


class HashingEmbedder:
    def __init__(self, dim: int = 64, *, name: str | None = None) -> None:
        self.dim = dim
        self.name = name or f"hashing-{dim}"
        self.batch_size = 256

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = tokens(text)
            for feature in [*words, *(f"{a} {b}" for a, b in pairwise(words))]:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
            if not words:
                out[row, 0] = 1e-3
        return normalise(out)
