"""Other fits of the answer confidence, judged leaving one domain out as the shipped one is.

Reads the same ``--answer-all`` runs as ``bench/fit_answer_confidence.py`` and prints, per
held-out domain, ECE / AUROC of what the pipeline would state (refusal rates from the other
domains, the shipped balanced threshold) for each variant: the shipped signals; more retrieval
signals; the check verdicts only; and the shipped signals followed by a logistic
(Platt) recalibration step fitted pooled — nested, so that the step for a held-out domain is
fitted on the other domains' own leave-one-domain-out predictions and never sees it::

    python bench/answer_confidence_variants.py sample=sample.jsonl click=click.jsonl …

Results: docs/EVALUATION.md, "One confidence across domains".
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence

import numpy as np

from abstain.answer_confidence import AnswerConfidence, shipped_answer_confidence
from abstain.evaluate.answer_fit import (
    DEFAULT_SIGNALS,
    Row,
    choose_l2,
    domain_weights,
    fit,
    rows,
    stated_under,
)
from abstain.evaluate.logistic import fit_logistic
from abstain.evaluate.metrics import auroc, ece
from abstain.evaluate.records import load_records

RETRIEVAL = ("in_both", "best_cosine", "term_coverage")
VERDICTS = ("checks_passed", "entity_in_evidence", "answer_type_found")
VARIANTS: dict[str, tuple[tuple[str, ...], bool]] = {
    "shipped signals": (DEFAULT_SIGNALS, False),
    "+ in_both, best_cosine, term_coverage": ((*DEFAULT_SIGNALS, *RETRIEVAL), False),
    "verdicts only": (VERDICTS, False),
    "verdicts + informative_coverage": ((*VERDICTS, "informative_coverage"), False),
    "shipped signals + pooled Platt step (nested)": (DEFAULT_SIGNALS, True),
}


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _fitted(train: Sequence[Row], names: Sequence[str]) -> AnswerConfidence:
    return fit(train, names, choose_l2(train, names))


def _platt(train: Sequence[Row], names: Sequence[str]) -> Callable[[float], float]:
    """σ(a·logit(p) + b) fitted on ``train``'s leave-one-domain-out predictions."""
    held = {}
    for domain in sorted({r.domain for r in train}):
        model = _fitted([r for r in train if r.domain != domain], names)
        held.update({id(r): model.confidence(r.values) for r in train if r.domain == domain})
    x = np.asarray([[_logit(held[id(r)])] for r in train])
    step = fit_logistic(x, [r.right for r in train], l2=0.01, weights=domain_weights(train))
    a, b = step.coefficients[0], step.intercept
    return lambda p: 1.0 / (1.0 + math.exp(-(a * _logit(p) + b)))


def judge(data: Sequence[Row], names: Sequence[str], recalibrate: bool
          ) -> dict[str, tuple[float, float]]:
    out = {}
    for held in sorted({r.domain for r in data}):
        train = [r for r in data if r.domain != held]
        model = _fitted(train, names)
        step = _platt(train, names) if recalibrate else (lambda p: p)
        stated = []
        for r in (r for r in data if r.domain == held):
            p = step(model.confidence(r.values))
            threshold = shipped_answer_confidence().threshold
            stated.append(stated_under(AnswerConfidence(_logit(p), {}, threshold), r))
        y = [r.right for r in data if r.domain == held]
        out[held] = (ece(stated, y)[0], auroc(stated, y))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=FILE")
    args = parser.parse_args()
    data = []
    for run in args.runs:
        name, _, path = run.partition("=")
        data.extend(rows(name, load_records(path)))
    domains = sorted({r.domain for r in data})
    print("| variant | " + " | ".join(domains) + " |")
    print("|---|" + "---|" * len(domains))
    for label, (names, recalibrate) in VARIANTS.items():
        scores = judge(data, names, recalibrate)
        print(f"| {label} | " + " | ".join(f"{scores[d][0]:.3f} / {scores[d][1]:.3f}"
                                          for d in domains) + " |")


if __name__ == "__main__":
    main()
