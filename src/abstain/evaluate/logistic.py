"""L2-regularised logistic regression by Newton's method (IRLS), in numpy.

Features are standardised before fitting and the coefficients are mapped back
to the raw scale, so the result plugs straight into
:class:`~abstain.confidence.Calibration` (``σ(intercept + Σ wᵢ·xᵢ)``). The
intercept is not penalised.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from abstain.evaluate.metrics import auroc, ece

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class LogisticModel:
    intercept: float
    coefficients: tuple[float, ...]
    l2: float
    iterations: int

    def predict(self, x: Matrix) -> Matrix:
        z = self.intercept + np.asarray(x, dtype=np.float64) @ np.asarray(self.coefficients)
        out: Matrix = 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))
        return out


def fit_logistic(x: Matrix, y: Sequence[bool] | npt.ArrayLike, *, l2: float = 1.0,
                 max_iter: int = 100, tol: float = 1e-9,
                 weights: Sequence[float] | npt.ArrayLike | None = None) -> LogisticModel:
    """Minimise −Σ vᵢ·log-likelihoodᵢ + (l2 / 2)·‖w‖² over standardised features; the row
    weights v (None: all 1) let each domain of a pooled fit count the same."""
    x = np.asarray(x, dtype=np.float64)
    t = np.asarray(y, dtype=np.float64).reshape(-1)
    n, d = x.shape
    v = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
    mean = np.average(x, axis=0, weights=v) if n else np.zeros(d)
    std = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=v)) if n else np.ones(d)
    std = np.where(std > 1e-12, std, 1.0)
    z = np.hstack([np.ones((n, 1)), (x - mean) / std])
    w = np.zeros(d + 1)
    prior = max(1e-6, min(1 - 1e-6, float(np.average(t, weights=v)) if n else 0.5))
    w[0] = math.log(prior / (1 - prior))
    penalty = np.full(d + 1, l2)
    penalty[0] = 1e-8
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -60, 60)))
        grad = z.T @ (v * (p - t)) + penalty * w
        hess = (z * (v * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < tol:
            break
    coef = w[1:] / std
    intercept = float(w[0] - np.sum(coef * mean))
    return LogisticModel(intercept, tuple(float(c) for c in coef), l2, it)


def log_loss(p: Matrix, y: Sequence[bool] | npt.ArrayLike) -> float:
    q = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    t = np.asarray(y, dtype=np.float64)
    return float(-np.mean(t * np.log(q) + (1 - t) * np.log(1 - q)))


def fold_ids(n: int, folds: int, groups: Sequence[str] | None = None, seed: int = 0
             ) -> npt.NDArray[np.int64]:
    """Fold number per row; rows of one group share a fold, when there are at least as many
    groups as folds (else, a whole set labelled with one group, each row is its own)."""
    rng = np.random.default_rng(seed)
    keys = list(groups) if groups is not None else [str(i) for i in range(n)]
    if len(set(keys)) < folds:
        keys = [str(i) for i in range(n)]
    unique = sorted(set(keys))
    perm = rng.permutation(len(unique))
    fold_of = {unique[i]: int(r % folds) for r, i in enumerate(perm)}
    return np.asarray([fold_of[k] for k in keys], dtype=np.int64)


@dataclass(frozen=True, slots=True)
class CrossValidation:
    l2: float
    folds: int
    log_loss: float
    brier: float
    auroc: float
    ece: float
    by_l2: dict[float, float]
    """Out-of-fold log loss for each candidate L2 strength."""
    predictions: tuple[float, ...] = ()
    """The chosen strength's out-of-fold prediction per row: each row scored by the fit
    that did not see it."""
    fold_of: tuple[int, ...] = ()
    """Each row's fold."""


def cross_validate(x: Matrix, y: Sequence[bool] | npt.ArrayLike, *, folds: int = 5,
                   groups: Sequence[str] | None = None,
                   l2_grid: Sequence[float] = (0.01, 0.1, 1.0, 10.0, 100.0),
                   seed: int = 0) -> CrossValidation:
    """Pick the L2 strength by out-of-fold log loss; report that model's out-of-fold metrics."""
    x = np.asarray(x, dtype=np.float64)
    t = np.asarray(y, dtype=bool).reshape(-1)
    k = max(2, min(folds, len(t)))
    fid = fold_ids(len(t), k, groups, seed)
    results: dict[float, Matrix] = {}
    for lam in l2_grid:
        oof = np.zeros(len(t))
        for f in range(k):
            train, test = fid != f, fid == f
            if not test.any():
                continue
            if train.sum() == 0 or t[train].all() or not t[train].any():
                oof[test] = float(t[train].mean()) if train.any() else 0.5
                continue
            oof[test] = fit_logistic(x[train], t[train], l2=lam).predict(x[test])
        results[lam] = oof
    losses = {lam: log_loss(p, t) for lam, p in results.items()}
    best = min(losses, key=lambda lam: (losses[lam], -lam))
    p = results[best]
    return CrossValidation(best, k, losses[best], float(np.mean((p - t) ** 2)), auroc(p, t),
                           ece(p, t)[0], losses, tuple(float(v) for v in p),
                           tuple(int(f) for f in fid))


def fit_offset(logits: Sequence[float] | npt.ArrayLike, y: Sequence[bool] | npt.ArrayLike, *,
               prior_sd: float = 1.0, iterations: int = 50) -> float:
    """The one logit offset b that best fits labels ``y`` to σ(logitᵢ + b), with a
    N(0, prior_sd²) prior on b (an L2 penalty of 1 / prior_sd²): with few labels it stays
    near 0, the model as it is. Newton's method; 0 for no rows."""
    z = np.asarray(logits, dtype=np.float64).reshape(-1)
    t = np.asarray(y, dtype=np.float64).reshape(-1)
    b = 0.0
    for _ in range(iterations):
        q = 1.0 / (1.0 + np.exp(-np.clip(z + b, -60, 60)))
        step = (float((q - t).sum()) + b / prior_sd**2) / (
            float((q * (1 - q)).sum()) + 1 / prior_sd**2)
        b -= step
        if abs(step) < 1e-10:
            break
    return b

