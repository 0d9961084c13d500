"""Collapse paraphrases within each arm, then Reciprocal Rank Fusion.

RRF ignores raw scores and adds ``1 / (k + rank)`` per arm, ranks counted
from 1 (k = :data:`~abstain.config.RRF_K`). A hit found by both arms gets both
contributions; which arm found what is kept on every :class:`FusedHit`.
"""

from __future__ import annotations

from collections.abc import Sequence

from abstain.config import RRF_K
from abstain.evidence import ArmHit, FusedHit

__all__ = ["RRF_K", "collapse", "max_fused_score", "rrf"]


def collapse(hits: Sequence[ArmHit]) -> list[ArmHit]:
    """Map paraphrase hits onto their child and keep the first occurrence of each.

    Ranks are renumbered 1..n after collapsing, so a source's rank in an arm is
    the rank of its best-ranked representative among distinct sources.
    """
    seen: set[str] = set()
    kept: list[ArmHit] = []
    for hit in sorted(hits, key=lambda h: h.rank):
        target = hit.target
        if target in seen:
            continue
        seen.add(target)
        kept.append(ArmHit(chunk_id=target, rank=len(kept) + 1, score=hit.score))
    return kept


def rrf(
    vector: Sequence[ArmHit], keyword: Sequence[ArmHit], *, k: int = RRF_K
) -> list[FusedHit]:
    """Fuse two collapsed arm lists; ties break by best single-arm rank, then the keyword
    arm's hit before the vector arm's, then id: where the documents lie (which their ids
    hash) decides no order that their words and meaning can."""
    if k < 0:
        raise ValueError("RRF k must be >= 0")
    vec = {h.chunk_id: h for h in vector}
    kw = {h.chunk_id: h for h in keyword}
    fused: list[FusedHit] = []
    for chunk_id in vec.keys() | kw.keys():
        v, w = vec.get(chunk_id), kw.get(chunk_id)
        score = (1.0 / (k + v.rank) if v else 0.0) + (1.0 / (k + w.rank) if w else 0.0)
        fused.append(
            FusedHit(
                chunk_id=chunk_id,
                fused_score=score,
                vector_rank=v.rank if v else None,
                vector_distance=v.score if v else None,
                keyword_rank=w.rank if w else None,
                keyword_score=w.score if w else None,
            )
        )
    fused.sort(key=lambda f: (-f.fused_score, _best_rank(f), f.keyword_rank is None,
                              f.chunk_id))
    return fused


def max_fused_score(k: int = RRF_K) -> float:
    """The largest fused score possible: rank 1 in both arms."""
    return 2.0 / (k + 1)


def _best_rank(hit: FusedHit) -> int:
    ranks = [r for r in (hit.vector_rank, hit.keyword_rank) if r is not None]
    return min(ranks)
