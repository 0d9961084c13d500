"""Choose the confidence threshold with a finite-sample guarantee (Learn-then-Test).

The promise: with probability at least 1 − δ over the labelled calibration
questions, the chosen threshold's false acceptance is at most α on new
questions drawn like them (exchangeable with the calibration set).

False acceptance, as a user means "at most 1 confidently wrong answer in 100"
(``risk="answered"``, the default): **among the questions abstain answers, the
share that the documents cannot answer** — P(should refuse | answered). It
depends on the mix of questions; ``risk="refusable"`` controls the false acceptance
rate instead, P(answered | should refuse), which does not.

Procedure (Angelopoulos et al. 2021, "Learn then Test"): a grid of thresholds
fixed in advance, σ(t) for t = 12, 11.98, …, −12, is tested from the strictest
down. At each λ the null "risk(λ) > α" gets the exact binomial p-value
P(Binom(n, α) ≤ k), with k errors among n trials (n = answered questions, or
should-refuse questions); testing stops at the first λ whose p-value exceeds δ
(fixed-sequence testing needs no multiplicity correction) and the last λ that
passed is chosen. For ``answered`` the sequence starts at the first λ with at
least ⌈ln δ / ln(1 − α)⌉ answers — fewer could not pass even with no error;
that start depends on the scores only, never on the labels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np

RISKS = ("answered", "refusable")
MIN_ANSWERS_FOR_RATE = 5


@lru_cache(maxsize=65536)
def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X ≤ k) for X ~ Binomial(n, p), summed in log space (exact, no scipy)."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    lg_n1 = math.lgamma(n + 1)
    terms = [lg_n1 - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q
             for i in range(k + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def clopper_pearson_upper(k: int, n: int, delta: float) -> float:
    """One-sided (1 − δ) upper confidence bound on a binomial rate, k errors in n trials."""
    if n <= 0:
        return 1.0
    if k >= n:
        return 1.0
    lo, hi = k / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if binom_cdf(k, n, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def min_trials(alpha: float, delta: float) -> int:
    """The fewest trials with which zero errors certifies a rate ≤ α at level δ."""
    return math.ceil(math.log(delta) / math.log1p(-alpha))


def trials_needed(rate: float, alpha: float, delta: float, limit: int = 1_000_000) -> int | None:
    """Trials needed to certify ≤ α if errors keep occurring at ``rate`` (None: never)."""
    if rate >= alpha:
        return None
    n = min_trials(alpha, delta)
    while n <= limit:
        if binom_cdf(math.floor(rate * n), n, alpha) <= delta:
            lo, hi = n // 2, n
            while lo + 1 < hi:
                mid = (lo + hi) // 2
                if binom_cdf(math.floor(rate * mid), mid, alpha) <= delta:
                    hi = mid
                else:
                    lo = mid
            return hi
        n *= 2
    return None


def threshold_grid() -> list[float]:
    return [1.0 / (1.0 + math.exp(-t / 50)) for t in range(600, -601, -1)]


@dataclass(frozen=True, slots=True)
class RiskControl:
    certified: bool
    threshold: float | None
    alpha: float
    delta: float
    risk: str
    n: int
    """Labelled calibration questions."""
    answered: int = 0
    errors: int = 0
    empirical_risk: float | None = None
    upper_bound: float | None = None
    coverage: float = 0.0
    """Answered / all calibration questions at the chosen threshold."""
    answer_rate: float = 0.0
    """Answered answerable / answerable at the chosen threshold."""
    tested: int = 0
    needed: int | None = None
    """When not certified: about how many labelled questions (like these) it would take."""
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def control_risk(confidence: Sequence[float], should_answer: Sequence[bool], *,
                 alpha: float, delta: float, risk: str = "answered",
                 base_pass: Sequence[bool] | None = None,
                 exempt: Sequence[bool] | None = None) -> RiskControl:
    """Learn-then-Test over :func:`threshold_grid`; see the module docstring.

    ``base_pass``: the question passes every other gate check (answered iff it does and its
    confidence ≥ λ). ``exempt``: a curated match, answered regardless of confidence.
    """
    if not 0 < alpha < 1 or not 0 < delta < 1:
        raise ValueError("alpha and delta must be in (0, 1)")
    if risk not in RISKS:
        raise ValueError(f"risk must be one of {RISKS}")
    conf = np.asarray(confidence, dtype=np.float64)
    pos = np.asarray(should_answer, dtype=bool)
    n = len(conf)
    base = np.ones(n, bool) if base_pass is None else np.asarray(base_pass, dtype=bool)
    free = base & (np.zeros(n, bool) if exempt is None else np.asarray(exempt, dtype=bool))
    grid = np.asarray(threshold_grid())
    n_ans, errors = _counts_at(grid, conf, pos, base & ~free)
    n_ans += int(free.sum())
    errors += int((free & ~pos).sum())
    refusable = int((~pos).sum())
    trials = n_ans if risk == "answered" else np.full(len(grid), refusable)
    n_min = min_trials(alpha, delta)
    chosen: int | None = None
    tested, stop = 0, (0, 0)
    for j in range(len(grid)):
        t, k = int(trials[j]), int(errors[j])
        if t < n_min or (n_ans[j] == 0 and risk == "answered"):
            continue
        tested += 1
        if binom_cdf(k, t, alpha) > delta:
            stop = (k, t)
            break
        chosen = j
    if chosen is None:
        need = _best_need(n_ans, errors, trials, n, alpha, delta)
        usable = n_ans >= MIN_ANSWERS_FOR_RATE
        best_rate = float(np.min(errors[usable] / trials[usable])) if usable.any() else None
        return _refused(alpha, delta, risk, n, tested, stop, need, n_min,
                        int(trials.max()), best_rate)
    lam, a, k, t = float(grid[chosen]), int(n_ans[chosen]), int(errors[chosen]), int(trials[chosen])
    answered_pos = a - k
    return RiskControl(
        True, lam, alpha, delta, risk, n, a, k, k / t if t else 0.0,
        clopper_pearson_upper(k, t, delta), a / n if n else 0.0,
        answered_pos / max(1, int(pos.sum())), tested, None,
        f"certified: false acceptance ({risk}) <= {alpha:g} with probability >= "
        f"{1 - delta:g}; threshold {lam:.4f} answers {a} of {n} ({a / n:.1%}), "
        f"{k} should-refuse among them")


def _counts_at(grid: np.ndarray, conf: np.ndarray, pos: np.ndarray, mask: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """For each threshold: how many masked questions have conf >= it, and how many of
    those should be refused."""
    c = conf[mask]
    wrong = ~pos[mask]
    order = np.argsort(-c, kind="mergesort")
    c, wrong = c[order], wrong[order]
    cum_wrong = np.concatenate(([0], np.cumsum(wrong)))
    # number of c >= lam: c is descending, so count = searchsorted on -c (ascending) of -lam
    count = np.searchsorted(-c, -grid, side="right")
    return count.astype(np.int64), cum_wrong[count].astype(np.int64)


def _best_need(n_ans: np.ndarray, errors: np.ndarray, trials: np.ndarray, n: int,
               alpha: float, delta: float) -> int | None:
    """Fewest labelled questions (like these) that would certify some threshold."""
    best: int | None = None
    pairs = {(int(a), int(k), int(t)) for a, k, t in zip(n_ans, errors, trials, strict=True)}
    for a, k, t in sorted(pairs):
        need = _need(a, k, t, n, alpha, delta)
        if need is not None and (best is None or need < best):
            best = need
    return best


def _need(n_ans: int, k: int, trials: int, n: int, alpha: float, delta: float) -> int | None:
    """Total labelled questions needed at this threshold if its rates held."""
    if n_ans < MIN_ANSWERS_FOR_RATE or trials == 0:
        return None
    needed_trials = trials_needed(k / trials, alpha, delta)
    if needed_trials is None:
        return None
    return math.ceil(needed_trials * n / trials)


def _refused(alpha: float, delta: float, risk: str, n: int, tested: int,
             stop: tuple[int, int], need: int | None, n_min: int, max_trials: int,
             best_rate: float | None) -> RiskControl:
    k, trials = stop
    what = "answers" if risk == "answered" else "should-refuse questions"
    floor = math.ceil(n_min * n / max_trials) if max_trials else None
    if need is not None:
        msg = (f"cannot certify with {n} labelled questions: about {need} like these are needed "
               f"(at the observed rates; at least {n_min} {what} even with no false acceptance)")
    elif best_rate is not None and best_rate >= alpha:
        msg = (f"cannot certify: the observed false acceptance is at least {best_rate:.3f} "
               f"(the limit is {alpha:g}) at every threshold with {MIN_ANSWERS_FOR_RATE}+ "
               "answers; more "
               "questions like these will not fix that — a stricter gate or better retrieval "
               "might")
    else:
        have = f"this set gives at most {max_trials}"
        more = f", so at least {floor} questions like these" if floor else ""
        msg = (f"cannot certify: at least {n_min} {what} are needed even with no false "
               f"acceptance; {have}{more}")
        need = floor
    if tested and trials:
        msg += f" (stopped at a threshold with {k} false acceptances in {trials})"
    return RiskControl(False, None, alpha, delta, risk, n, tested=tested, needed=need,
                       message=msg)
