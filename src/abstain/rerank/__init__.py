"""Reading-level models: rerank evidence, judge answerability, score sentence support.

The seam is one method, :meth:`Reranker.score` (question, texts -> one score per
text, higher = better answers it). Built on it:

* :func:`rerank` reorders the top fused hits and records ``Evidence.rerank_score``;
* :mod:`~abstain.rerank.reading`, the reading stage: the reader's answerability of the kept
  evidence, a gate check (reason ``unanswerable``) and a feature of the confidence;
* :class:`~abstain.rerank.support.ReaderSupport`, a sentence-support scorer with the
  verification seam's ``check(sentence, evidence_texts) -> float``.

Implementations: :class:`~abstain.rerank.reader.OnnxReader` (abstain's own int8
model, onnxruntime + tokenizers only) and
:class:`~abstain.rerank.hub.HubCrossEncoder` (any Hugging Face cross-encoder, for
users with internet; needs ``abstain[train]``'s torch + transformers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from abstain.evidence import Evidence

if TYPE_CHECKING:
    from abstain.rerank.reader import OnnxReader

DEFAULT_RERANK_DEPTH = 10
"""How many of the top fused hits the reranker reads."""


@runtime_checkable
class Reranker(Protocol):
    name: str

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """One score per text in [0, 1]; higher means the text better answers the question."""
        ...


def rerank(reranker: Reranker, question: str, evidence: Sequence[Evidence], *,
           depth: int = DEFAULT_RERANK_DEPTH) -> tuple[Evidence, ...]:
    """The first ``depth`` hits reordered by rerank score (ties keep fused order), then the rest.

    Each read hit carries its ``rerank_score``; the rest keep ``None``.
    """
    head, tail = list(evidence[:depth]), list(evidence[depth:])
    if not head:
        return tuple(evidence)
    scores = reranker.score(question, [e.text for e in head])
    scored = [e.with_scores(rerank_score=float(s)) for e, s in zip(head, scores, strict=True)]
    order = sorted(range(len(scored)), key=lambda i: (-scores[i], i))
    return tuple([scored[i] for i in order] + tail)


def default_reader() -> OnnxReader:
    """The shipped reader, loaded once per process."""
    from abstain.rerank.reader import shared_reader

    return shared_reader()


__all__ = ["DEFAULT_RERANK_DEPTH", "Reranker", "default_reader", "rerank"]
