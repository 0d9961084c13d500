"""Metrics for refusal, calibration and retrieval (numpy only).

Definitions, with *positive* = a question the documents can answer:

answer rate          answered answerable / answerable
refusal accuracy     refused should-refuse / should-refuse
false refusal        refused answerable / answerable
false acceptance     answered should-refuse / should-refuse          (per category too)
AUROC                P(score of a random answerable > score of a random should-refuse), ties ½
risk–coverage        answer the top-scored share c; risk = should-refuse among those answered
AURC                 mean selective risk over coverages 1/n … n/n (tied scores enter together)
ECE                  Σ_b (n_b / n) · |accuracy_b − mean confidence_b| over equal-width bins
nDCG@k               binary relevance, DCG = Σ rel_i / log2(i + 1), ideal = all gold first
recall@k             gold documents in the top k / gold documents
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


def _arr(values: Sequence[float] | npt.ArrayLike) -> Floats:
    return np.asarray(values, dtype=np.float64).reshape(-1)


def auroc(scores: Sequence[float] | npt.ArrayLike, positive: Sequence[bool] | npt.ArrayLike
          ) -> float:
    """Area under the ROC curve via the Mann–Whitney U statistic (midranks for ties)."""
    s, y = _arr(scores), np.asarray(positive, dtype=bool).reshape(-1)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return math.nan
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


@dataclass(frozen=True, slots=True)
class RiskCoverage:
    thresholds: Floats
    """Score at each operating point: answer when score >= threshold."""
    coverage: Floats
    risk: Floats
    aurc: float


def risk_coverage(scores: Sequence[float] | npt.ArrayLike,
                  errors: Sequence[bool] | npt.ArrayLike) -> RiskCoverage:
    """Selective risk at every distinct score, highest first; AURC as defined above."""
    s, e = _arr(scores), np.asarray(errors, dtype=np.float64).reshape(-1)
    n = len(s)
    if n == 0:
        empty = np.zeros(0)
        return RiskCoverage(empty, empty, empty, math.nan)
    order = np.argsort(-s, kind="mergesort")
    s, e = s[order], e[order]
    cum_err = np.cumsum(e)
    # the last index of each run of tied scores is an operating point
    ends = np.flatnonzero(np.append(s[1:] != s[:-1], True))
    answered = ends + 1
    risk = cum_err[ends] / answered
    sizes = np.diff(np.concatenate(([0], answered)))
    aurc = float(np.sum(sizes * risk) / n)
    return RiskCoverage(s[ends], answered / n, risk, aurc)


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    confidence: float
    accuracy: float


def ece(probabilities: Sequence[float] | npt.ArrayLike,
        outcomes: Sequence[bool] | npt.ArrayLike, bins: int = 10
        ) -> tuple[float, list[ReliabilityBin]]:
    """Expected calibration error over ``bins`` equal-width bins, and the reliability table."""
    p, y = _arr(probabilities), np.asarray(outcomes, dtype=np.float64).reshape(-1)
    if len(p) == 0:
        return math.nan, []
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, bins - 1)
    table: list[ReliabilityBin] = []
    total = 0.0
    for b in range(bins):
        mask = index == b
        count = int(mask.sum())
        if count == 0:
            table.append(ReliabilityBin(float(edges[b]), float(edges[b + 1]), 0, math.nan,
                                        math.nan))
            continue
        conf, acc = float(p[mask].mean()), float(y[mask].mean())
        total += count / len(p) * abs(acc - conf)
        table.append(ReliabilityBin(float(edges[b]), float(edges[b + 1]), count, conf, acc))
    return total, table


def ndcg_at_k(ranked: Sequence[str], relevant: Sequence[str] | set[str], k: int = 10) -> float:
    rel = set(relevant)
    if not rel:
        return math.nan
    gains = [1.0 / math.log2(i + 2) for i, doc in enumerate(ranked[:k]) if doc in rel]
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(rel), k)))
    return sum(gains) / ideal


def recall_at_k(ranked: Sequence[str], relevant: Sequence[str] | set[str], k: int) -> float:
    rel = set(relevant)
    if not rel:
        return math.nan
    return len(rel & set(ranked[:k])) / len(rel)


@dataclass(frozen=True, slots=True)
class GateMetrics:
    n: int
    answerable: int
    should_refuse: int
    answer_rate: float
    """Answered answerable / answerable."""
    refusal_accuracy: float
    false_refusal: float
    false_acceptance: float
    false_acceptance_by_category: dict[str, float]
    answered_by_category: dict[str, float]
    counts_by_category: dict[str, int]
    coverage: float
    """Answered / all questions."""
    risk_among_answered: float
    """Should-refuse among answered (the risk `calibrate --max-false-accept` controls)."""

    def to_json(self) -> dict[str, object]:
        return {f.name: _clean(getattr(self, f.name)) for f in fields(self)}


def gate_metrics(answered: Sequence[bool] | npt.ArrayLike,
                 should_answer: Sequence[bool] | npt.ArrayLike,
                 categories: Sequence[str]) -> GateMetrics:
    a = np.asarray(answered, dtype=bool).reshape(-1)
    pos = np.asarray(should_answer, dtype=bool).reshape(-1)
    cats = np.asarray(list(categories), dtype=object)
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    by_cat: dict[str, float] = {}
    fa_cat: dict[str, float] = {}
    counts: dict[str, int] = {}
    for cat in dict.fromkeys(categories):
        mask = cats == cat
        counts[cat] = int(mask.sum())
        by_cat[cat] = float(a[mask].mean())
        if not pos[mask].any():
            fa_cat[cat] = by_cat[cat]
    n_ans = int(a.sum())
    return GateMetrics(
        n=len(a), answerable=n_pos, should_refuse=n_neg,
        answer_rate=_ratio(int((a & pos).sum()), n_pos),
        refusal_accuracy=_ratio(int((~a & ~pos).sum()), n_neg),
        false_refusal=_ratio(int((~a & pos).sum()), n_pos),
        false_acceptance=_ratio(int((a & ~pos).sum()), n_neg),
        false_acceptance_by_category=fa_cat, answered_by_category=by_cat,
        counts_by_category=counts, coverage=_ratio(n_ans, len(a)),
        risk_among_answered=_ratio(int((a & ~pos).sum()), n_ans))


def _ratio(num: int, den: int) -> float:
    return num / den if den else math.nan


def _clean(value: object) -> object:
    """JSON-friendly: NaN becomes None, floats rounded."""
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value
