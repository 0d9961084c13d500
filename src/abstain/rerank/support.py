"""Sentence support from the reader's second head, behind the verification seam.

:class:`ReaderSupport` has the verifier's one method,
``check(sentence, evidence_texts) -> float`` (0 = unsupported, 1 = supported).
"""

from __future__ import annotations

from collections.abc import Sequence

from abstain.rerank.reader import OnnxReader, shared_reader
from abstain.verify.base import DEFAULT_SUPPORT_THRESHOLD


class ReaderSupport:
    """How well the best sentence window of the evidence supports a sentence."""

    name = "reader-support"
    threshold = DEFAULT_SUPPORT_THRESHOLD

    def __init__(self, reader: OnnxReader | None = None) -> None:
        self._reader = reader

    @property
    def reader(self) -> OnnxReader:
        if self._reader is None:
            self._reader = shared_reader()
        return self._reader

    def check(self, sentence: str, evidence_texts: Sequence[str]) -> float:
        if not sentence.strip() or not evidence_texts:
            return 0.0
        return self.reader.support(sentence, evidence_texts)
