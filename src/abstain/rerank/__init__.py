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
from abstain.fuse import RRF_K

if TYPE_CHECKING:
    from abstain.rerank.reader import OnnxReader

DEFAULT_RERANK_DEPTH = 10
"""How many of the top fused hits the reranker reads."""


@runtime_checkable
class Reranker(Protocol):
    """Reorders the fused evidence by how well each passage answers the question
    (``Pipeline(reranker=…)``); the shipped reader is one (docs/MODEL_CARD.md)."""

    name: str

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """One score per text in [0, 1]; higher means the text better answers the question."""
        ...


def rerank(reranker: Reranker, question: str, evidence: Sequence[Evidence], *,
           depth: int = DEFAULT_RERANK_DEPTH, fuse: bool = True) -> tuple[Evidence, ...]:
    """The first ``depth`` hits reordered, then the rest.

    ``fuse`` (the default): by reciprocal-rank fusion (k = 60) of the retrieval's order and
    the reranker's, ties to the higher rerank score: a small reader adds its reading to the
    retrieval's ranks rather than replacing them. Without: by rerank score alone (ties keep
    the retrieval's order). Each read hit carries its ``rerank_score``; the rest keep ``None``.
    """
    head, tail = list(evidence[:depth]), list(evidence[depth:])
    if not head:
        return tuple(evidence)
    scores = score_hits(reranker, question, head)
    scored = [e.with_scores(rerank_score=float(s)) for e, s in zip(head, scores, strict=True)]
    by_score = sorted(range(len(scored)), key=lambda i: (-scores[i], i))
    if fuse:
        rank = {i: r for r, i in enumerate(by_score)}
        order = sorted(range(len(scored)), key=lambda i: (
            -(1.0 / (RRF_K + 1 + i) + 1.0 / (RRF_K + 1 + rank[i])), -scores[i], i))
    else:
        order = by_score
    return tuple([scored[i] for i in order] + tail)


def score_hits(reranker: Reranker, question: str, head: Sequence[Evidence]) -> list[float]:
    """The reranker's score of each hit, what :func:`rerank` orders by: its text's score, and
    for abstain's reader each window read in the hit's page when its model was trained so."""
    from abstain.rerank.reader import OnnxReader
    from abstain.rerank.reading import page

    texts = [e.text for e in head]
    if isinstance(reranker, OnnxReader):
        return reranker.score(question, texts, [page(e) for e in head])
    return list(reranker.score(question, texts))


def default_reader() -> OnnxReader:
    """The shipped reader, loaded once per process."""
    from abstain.rerank.reader import shared_reader

    return shared_reader()


__all__ = ["DEFAULT_RERANK_DEPTH", "Reranker", "default_reader", "rerank", "score_hits"]
