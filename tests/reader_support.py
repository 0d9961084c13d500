"""Readers for the tests: the gate's and the answerer's use of a reading, without a model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class KeywordReader:
    """Reads a window as answering when it holds ``word`` (logit 4), else not (logit -4)."""

    name = "keyword"

    def __init__(self, word: str) -> None:
        self.word = word

    def logits(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        return np.array([[4.0 if self.word in text else -4.0] * 3 for text in b],
                        dtype=np.float32)
