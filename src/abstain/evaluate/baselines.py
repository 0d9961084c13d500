"""Four earlier gate designs as named baselines, on the recorded signals (no re-retrieval).

Their names (seed000–seed003) are the designs abstain started from (docs/CREDITS.md).

seed000   chunk confidence (1 − d)·100 with ceiling 0.65; drop chunks below 25; answer when
          the mean confidence of the rest is ≥ 40; a curated close match is never refused.
seed001   logistic over the raw top RRF score and the found-by-both-arms bit,
          σ(150 · rrf_top + 2 · in_both − 4); answer unless triage says ``no_match`` (< 0.45).
          The design gives no numbers for A, B, C: these put rank 1 in both arms at 0.95
          (confident), rank 1 in one arm at 0.18 (no_match) and nothing at 0.02.
seed002   retrieval-score gate on raw RRF: top score ≥ 0.05 and top-1 ≥ 1.2 × top-2.
seed003   best cosine distance ≤ 0.5, query-term coverage ≥ 0.2 over the retrieved chunks,
          and an ``ADR-NNNN`` in the question must appear in a retrieved title.
abstain   the pipeline's own decision as recorded.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from abstain.evaluate.records import QuestionRecord

SEED000_CHUNK_FILTER = 25.0
SEED000_GATE = 40.0
SEED001_A, SEED001_B, SEED001_C = 150.0, 2.0, -4.0
SEED001_NO_MATCH = 0.45
SEED002_MIN_SCORE = 0.05
SEED002_MIN_RATIO = 1.2
SEED003_MAX_DISTANCE = 0.5
SEED003_MIN_COVERAGE = 0.2
_ADR = re.compile(r"adr[- ]?0*(\d+)")


@dataclass(frozen=True, slots=True)
class Baseline:
    name: str
    description: str
    decide: Callable[[QuestionRecord], bool]
    """True = answer."""
    score: Callable[[QuestionRecord], float]
    """The gate's continuous signal (higher = more willing to answer), for AUROC."""


def seed000_mean(r: QuestionRecord) -> float:
    kept = [c.confidence for c in r.chunks if c.confidence >= SEED000_CHUNK_FILTER]
    return sum(kept) / len(kept) if kept else 0.0


def _seed000(r: QuestionRecord) -> bool:
    if any(c.curated and c.confidence > 0 for c in r.chunks):
        return True
    return seed000_mean(r) >= SEED000_GATE


def seed001_confidence(r: QuestionRecord) -> float:
    if not r.chunks:
        return 0.0
    top = r.chunks[0]
    in_both = top.vector_rank is not None and top.keyword_rank is not None
    z = SEED001_A * top.fused_score + SEED001_B * float(in_both) + SEED001_C
    return 1.0 / (1.0 + math.exp(-z))


def _seed002(r: QuestionRecord) -> bool:
    scores = sorted((c.fused_score for c in r.chunks), reverse=True)
    if not scores or scores[0] < SEED002_MIN_SCORE:
        return False
    return len(scores) < 2 or scores[0] >= SEED002_MIN_RATIO * scores[1]


def best_distance(r: QuestionRecord) -> float | None:
    return min((c.vector_distance for c in r.chunks if c.vector_distance is not None),
               default=None)


def _seed003(r: QuestionRecord) -> bool:
    if not r.chunks:
        return False
    best = best_distance(r)
    if best is not None and best > SEED003_MAX_DISTANCE:
        return False
    match = _ADR.search(r.item.question.lower())
    if match:
        wanted = f"adr-{match.group(1).zfill(4)}"
        if not any(wanted in c.title.lower() for c in r.chunks):
            return False
    return r.retrieved_coverage >= SEED003_MIN_COVERAGE


def _top_fused(r: QuestionRecord) -> float:
    return r.chunks[0].fused_score if r.chunks else 0.0


def _best_cosine(r: QuestionRecord) -> float:
    best = best_distance(r)
    return 0.0 if best is None else 1.0 - best


BASELINES: tuple[Baseline, ...] = (
    Baseline("abstain", "the pipeline as run (its gate and calibration)",
             lambda r: r.answered, lambda r: r.confidence),
    Baseline("seed000", "chunk filter 25, gate 40 on mean chunk confidence", _seed000,
             seed000_mean),
    Baseline("seed001", "logistic on raw top RRF + in_both (150, 2, -4), refuse below 0.45",
             lambda r: bool(r.chunks) and seed001_confidence(r) >= SEED001_NO_MATCH,
             seed001_confidence),
    Baseline("seed002", "raw RRF: top >= 0.05 and top1/top2 >= 1.2", _seed002, _top_fused),
    Baseline("seed003", "distance <= 0.5, coverage >= 0.2, ADR existence", _seed003,
             _best_cosine),
)


def baseline(name: str) -> Baseline:
    for b in BASELINES:
        if b.name == name:
            return b
    raise KeyError(name)
