"""Fit the extractive answer's quote choice (:mod:`abstain.generate.choice`) on users' questions.

Each answerable question the default gate lets through is a list of candidates (the units of
its kept evidence that can answer); those that hold one of its ``answer_keys`` on one of its
gold pages are the targets. A conditional logit (a softmax over one question's candidates, L2
on the standardised weights) is fitted to put the probability on the targets; questions with
no target teach nothing and are left out. Before the fit on all of them, it is fitted again
leaving each of ``--folds`` groups of projects out, and judged on the projects left out: how
often the best candidate holds a key, or one of the best two or three, against word overlap's
ranking (:func:`abstain.generate.choice.asked_share`, weighed by evidence rank as the
answerer does).

Needs scipy (the ``train`` extra). The dumps are ``bench/replay_quotes.py dump`` files of the
``train`` sets of ``data/userdocs`` (never the ``eval`` ones, nor realdocs-dev)::

    for d in data/userdocs/*/; do  # the train sets
        abstain ingest $d/kb --db /tmp/ud/$(basename $d).db; done
    python bench/replay_quotes.py dump /tmp/train.pkl \\
        NAME=/tmp/ud/NAME.db:data/userdocs/NAME/questions.jsonl …
    python bench/fit_quote_choice.py /tmp/train.pkl --out src/abstain/data/quote_choice.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).parent))
from replay_quotes import Kept, load

from abstain.evaluate.records import contains_key, is_gold
from abstain.generate.choice import FEATURES, candidates

L2 = 1e-2
"""On the standardised weights, per question (chosen on held-out train projects: 1e-3 and 1e-2
choose alike, 1e-2 keeps the weights smaller)."""
RANK_DECAY = 0.15
"""Word overlap's ranking, the baseline: evidence n's units score 1 / (1 + RANK_DECAY·(n − 1))."""


def rows(kept: Sequence[Kept]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Features, targets, question ids and each question's project."""
    xs: list[tuple[float, ...]] = []
    ys: list[bool] = []
    qs: list[int] = []
    projects: list[str] = []
    for k in kept:
        keys = k.item.get("answer_keys") or []
        gold = k.item.get("gold_sources") or []
        if k.item.get("category") != "answerable" or not keys or not gold:
            continue
        assert isinstance(keys, list) and isinstance(gold, list)
        for c in candidates(k.question, k.evidence[:5]):
            xs.append(c.features)
            ys.append(is_gold(k.evidence[c.cites - 1].document.source, gold)
                      and any(contains_key(c.text, key) for key in keys))
            qs.append(len(projects))
        projects.append(k.domain)
    return (np.array(xs, dtype=np.float64), np.array(ys, dtype=bool), np.array(qs),
            projects)


def fit(x: np.ndarray, y: np.ndarray, q: np.ndarray, l2: float = L2) -> np.ndarray:
    """Weights on the raw features (the softmax needs no bias)."""
    with_target = np.unique(q[y])
    keep = np.isin(q, with_target)
    x, y, q = x[keep], y[keep], q[keep]
    _, q = np.unique(q, return_inverse=True)
    groups = q.max() + 1
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = z @ w
        top = np.full(groups, -np.inf)
        np.maximum.at(top, q, s)
        e = np.exp(s - top[q])
        total = np.bincount(q, e, groups)
        target = np.bincount(q, e * y, groups)
        value = -(np.log(target) - np.log(total)).mean() + l2 * (w @ w)
        p_all, p_target = e / total[q], np.where(y, e / target[q], 0.0)
        grad = z.T @ (p_all - p_target) / groups + 2 * l2 * w
        return float(value), grad

    w = minimize(loss, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B").x
    return np.asarray(w / sd)


def hits(x: np.ndarray, y: np.ndarray, q: np.ndarray, score: np.ndarray) -> list[int]:
    """Questions, and those whose best 1, 2 and 3 candidates by ``score`` hold a target."""
    out = [0, 0, 0, 0]
    for question in np.unique(q):
        at = np.flatnonzero(q == question)
        order = at[np.argsort(-score[at], kind="stable")]
        out[0] += 1
        for k in (1, 2, 3):
            out[k] += bool(y[order[:k]].any())
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dumps", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--folds", type=int, default=4)
    args = parser.parse_args()
    kept = [k for dump in args.dumps for k in load(dump)]
    x, y, q, projects = rows(kept)
    names = sorted(set(projects))
    fold_of = {name: i % args.folds for i, name in enumerate(names)}
    in_fold = np.array([fold_of[projects[i]] for i in q])
    overlap = x[:, FEATURES.index("overlap")] / (
        1 + RANK_DECAY * (1 / x[:, FEATURES.index("evidence_rank_inverse")] - 1))
    learned, baseline = np.zeros(4, dtype=int), np.zeros(4, dtype=int)
    for fold in range(args.folds):
        out = in_fold == fold
        w = fit(x[~out], y[~out], q[~out])
        learned += hits(x[out], y[out], q[out], x[out] @ w)
        baseline += hits(x[out], y[out], q[out], overlap[out])
    w = fit(x, y, q)
    report = {
        "data": f"users' answerable questions of {len(names)} data/userdocs train sets the "
                f"default gate lets through: {len(projects)} questions, {len(y)} candidates, "
                f"{int(y.sum())} holding a key on a gold page",
        "held_out": f"{args.folds} folds by project; of {int(learned[0])} questions, the best "
                    f"1 / 2 / 3 candidates hold a key for {learned[1]} / {learned[2]} / "
                    f"{learned[3]} (word overlap's ranking: {baseline[1]} / {baseline[2]} / "
                    f"{baseline[3]})",
        "l2": L2,
        "caveat": "the reader v5 was trained on these projects, so the read feature is "
                  "stronger here than on projects it never saw; docs/EVALUATION.md reports the "
                  "choice on the 12 userdocs eval projects and realdocs-dev, which it never saw",
    }
    print(json.dumps(report, indent=1))
    args.out.write_text(json.dumps({
        "model": "conditional logit over one question's candidates (abstain.generate.choice)",
        "features": list(FEATURES), "weights": [round(float(v), 6) for v in w],
        "report": report, "projects": names,
    }, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
