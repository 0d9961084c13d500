"""The risk control keeps its promise on synthetic scores with known error rates.

Scores are drawn on the logit scale: answerable ~ N(+1.5, 1), should-refuse ~ N(−1.5, 1),
30% should-refuse. For any threshold the true false acceptance is known in closed form
(normal tails), so each repetition's chosen threshold can be judged exactly; it is also
judged on a fresh sample of 1,000,000 questions, whose own noise (±0.0003 at α = 0.05) is
negligible.

Each repetition calibrates on 1,000 fresh questions. The guarantee says the chosen
threshold's false acceptance exceeds α in at most a δ share of repetitions. With R
repetitions the observed share is itself binomial, so the assertion allows three standard
deviations of that noise: violations ≤ δ·R + 3·√(R·δ·(1 − δ)). A naive rule (the lowest
threshold whose *observed* false acceptance is ≤ α) is run on the same samples as a
negative control: it must break the promise far more often, or the test could not tell.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from abstain.evaluate.risk import (
    binom_cdf,
    clopper_pearson_upper,
    control_risk,
    min_trials,
    threshold_grid,
    trials_needed,
)

MU, PI_REFUSE, N_CAL, REPS = 1.5, 0.3, 1000, 400
ALPHA, DELTA = 0.05, 0.1


def _tail(t: float, mu: float) -> float:
    return 0.5 * math.erfc((t - mu) / math.sqrt(2))


def true_risk(lam: float, kind: str) -> float:
    t = math.log(lam / (1 - lam))
    neg = PI_REFUSE * _tail(t, -MU)
    pos = (1 - PI_REFUSE) * _tail(t, MU)
    if kind == "refusable":
        return _tail(t, -MU)
    return neg / (neg + pos) if neg + pos > 0 else 0.0


def draw(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    refuse = rng.random(n) < PI_REFUSE
    logit = rng.normal(np.where(refuse, -MU, MU), 1.0)
    return 1 / (1 + np.exp(-logit)), ~refuse


class Fresh:
    """A large fresh sample, sorted once so any threshold is judged with two lookups."""

    def __init__(self, rng: np.random.Generator, n: int) -> None:
        conf, pos = draw(rng, n)
        order = np.argsort(conf)
        self.conf, self.wrong = conf[order], ~pos[order]
        self.wrong_above = np.concatenate((np.cumsum(self.wrong[::-1])[::-1], [0]))
        self.refusable = int(self.wrong.sum())

    def risk(self, lam: float, kind: str) -> float:
        first = int(np.searchsorted(self.conf, lam, side="left"))
        answered, wrong = len(self.conf) - first, int(self.wrong_above[first])
        denom = answered if kind == "answered" else self.refusable
        return wrong / denom if denom else 0.0


GRID = np.asarray(threshold_grid())


def naive(conf: np.ndarray, pos: np.ndarray, kind: str) -> float | None:
    """The lowest grid threshold whose observed false acceptance is <= alpha (no bound)."""
    order = np.argsort(-conf)
    c, wrong = conf[order], ~pos[order]
    count = np.searchsorted(-c, -GRID, side="right")
    errors = np.concatenate(([0], np.cumsum(wrong)))[count]
    denom = count if kind == "answered" else np.full(len(GRID), int(wrong.sum()))
    ok = (denom > 0) & (errors <= ALPHA * np.maximum(denom, 1))
    return float(GRID[np.flatnonzero(ok)[-1]]) if ok.any() else None


@pytest.mark.parametrize("kind", ["answered", "refusable"])
def test_false_acceptance_exceeds_alpha_in_at_most_delta_of_repetitions(kind: str) -> None:
    rng = np.random.default_rng(12345 if kind == "answered" else 54321)
    fresh = Fresh(rng, 1_000_000)
    violations = fresh_violations = naive_violations = certified = 0
    coverages = []
    for _ in range(REPS):
        conf, pos = draw(rng, N_CAL)
        result = control_risk(conf, pos, alpha=ALPHA, delta=DELTA, risk=kind)
        if result.certified:
            assert result.threshold is not None
            certified += 1
            coverages.append(result.coverage)
            violations += true_risk(result.threshold, kind) > ALPHA
            fresh_violations += fresh.risk(result.threshold, kind) > ALPHA
        lam = naive(conf, pos, kind)
        naive_violations += lam is not None and true_risk(lam, kind) > ALPHA
    allowed = DELTA * REPS + 3 * math.sqrt(REPS * DELTA * (1 - DELTA))
    assert violations <= allowed, (violations, allowed)
    assert fresh_violations <= allowed, (fresh_violations, allowed)
    # the procedure is not vacuous: it certifies nearly always and answers a useful share
    assert certified >= 0.95 * REPS
    assert float(np.mean(coverages)) > 0.4
    # and the test can see a broken procedure
    assert naive_violations > 2 * allowed, naive_violations


def test_binomial_tail_matches_direct_sum() -> None:
    for n, k, p in [(10, 3, 0.2), (50, 0, 0.01), (200, 7, 0.05), (30, 30, 0.5)]:
        direct = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))
        assert binom_cdf(k, n, p) == pytest.approx(direct, rel=1e-9)


def test_clopper_pearson_zero_errors_has_a_closed_form() -> None:
    for n in (10, 299, 1000):
        assert clopper_pearson_upper(0, n, 0.05) == pytest.approx(1 - 0.05 ** (1 / n), rel=1e-6)
    assert clopper_pearson_upper(5, 1000, 0.05) > 0.005


def test_minimum_sample_and_questions_needed() -> None:
    assert min_trials(0.01, 0.05) == 299  # 0.99**299 < 0.05 <= 0.99**298
    assert trials_needed(0.0, 0.01, 0.05) == 299
    assert trials_needed(0.02, 0.01, 0.05) is None
    needed = trials_needed(0.005, 0.01, 0.05)
    assert needed is not None and needed > 299
    assert binom_cdf(math.floor(0.005 * needed), needed, 0.01) <= 0.05


def test_too_few_questions_are_refused_with_the_number_needed() -> None:
    rng = np.random.default_rng(7)
    conf, pos = draw(rng, 120)
    result = control_risk(conf, pos, alpha=0.01, delta=0.05)
    assert not result.certified and result.threshold is None
    assert result.needed is not None and result.needed > 120
    assert f"about {result.needed}" in result.message


def test_other_checks_and_curated_exemptions_are_respected() -> None:
    conf = np.array([0.99] * 400 + [0.1] * 100)
    pos = np.array([True] * 400 + [False] * 100)
    base = np.array([True] * 300 + [False] * 100 + [True] * 100)
    exempt = np.zeros(500, bool)
    result = control_risk(conf, pos, alpha=0.05, delta=0.05, base_pass=base, exempt=exempt)
    assert result.certified and result.answered == 300 and result.errors == 0
    exempt[400:] = True  # curated matches are answered whatever their confidence
    result = control_risk(conf, pos, alpha=0.05, delta=0.05, base_pass=base, exempt=exempt)
    assert not result.certified
