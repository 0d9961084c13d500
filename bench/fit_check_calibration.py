"""Every signal in the calibration, judged leave-one-domain-out (issue 23, item 2): a measurement.

The shipped calibration is a logistic over four retrieval features; the word-level checks
refuse on their own and the confidence knows nothing of them. This script fits one logistic
over the retrieval features *and* the checks' values (informative and passage coverage, the
answer gate's mean chunk confidence, the best distance, the number of chunks kept, the entity
and answer-type verdicts) pooled over several recorded domains, and judges it leave one
domain out: fit on all the others, measure ECE and AUROC on the one left out. Beside it, the
same for today's confidence (``Answer.confidence``: docs/SCHEMA.md, "One confidence") with its
refusal rates counted on the other domains only, and for the shipped calibration alone.

Record each domain once (``abstain eval … --save-records FILE``), then::

    python bench/fit_check_calibration.py sample=sample.jsonl click=click.jsonl \\
        sqlite-utils=sqlite-utils.jsonl squad2-calibration=squadcal.jsonl rgb=rgb.jsonl

The label is the question's ``expected`` (P(the documents answer it)), as for
``abstain calibrate``. Domains are pooled as recorded (unweighted).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np
from refusal_rates import counts, recorded  # bench/refusal_rates.py, beside this script

from abstain.confidence import default_calibration
from abstain.evaluate.calibrate import FEATURES, recalibrated
from abstain.evaluate.logistic import cross_validate, fit_logistic
from abstain.evaluate.metrics import auroc, ece
from abstain.evaluate.records import QuestionRecord
from abstain.records import Check
from abstain.stated_confidence import Counts, stated

CHECK_FEATURES = ("informative_coverage", "passage_coverage", "answer_gate", "best_distance",
                  "evidence", "entity_existence", "answer_type")
NAMES = (*FEATURES, *CHECK_FEATURES)


def row(record: QuestionRecord) -> list[float]:
    """The retrieval features, then each check's value on a 0–1 scale (a verdict: 1 passed)."""
    out = [float(record.features.get(f, 0.0)) for f in FEATURES]
    for name in CHECK_FEATURES:
        check = record.check(name)
        if check is None:
            out.append(0.0)
        elif name in ("entity_existence", "answer_type"):
            out.append(1.0 if check.passed else 0.0)
        elif name == "answer_gate":
            out.append((check.value or 0.0) / 100.0)
        elif name == "best_distance":
            out.append(1.0 - min(1.0, check.value) if check.value is not None else 0.0)
        elif name == "evidence":
            out.append(min(5.0, check.value or 0.0) / 5.0)
        else:
            out.append(float(check.value or 0.0))
    return out


def stated_lodo(record: QuestionRecord, others: Counts) -> float:
    """Today's confidence with the refusal rates measured on the other domains only."""
    checks = [Check(c.name, c.passed, c.value, c.threshold, "", c.reason) for c in record.checks]
    calibrated = record.check("calibrated_confidence")
    value = calibrated.value if calibrated is not None and calibrated.value is not None else 0.0
    return stated(value, checks, answered=record.answered, reason=record.reason,
                  domains=others)


def usable(records: Sequence[QuestionRecord]) -> list[QuestionRecord]:
    return [r for r in records if r.error is None and r.features]


def scores(p: Sequence[float], y: Sequence[bool]) -> dict[str, float]:
    return {"ece": round(ece(p, y)[0], 3), "auroc": round(auroc(p, y), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=FILE")
    parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
    args = parser.parse_args()
    domains = {name: usable(records) for name, records in recorded(args.runs).items()}
    shipped = default_calibration()
    report: dict[str, object] = {"features": list(NAMES), "domains": {}}
    for held, records in domains.items():
        train = [r for d, rs in domains.items() if d != held for r in rs]
        x = np.asarray([row(r) for r in train])
        y = np.asarray([r.should_answer for r in train])
        l2 = cross_validate(x, y, folds=5).l2
        model = fit_logistic(x, y, l2=l2)
        test_y = [r.should_answer for r in records]
        fitted = model.predict(np.asarray([row(r) for r in records])).tolist()
        report["domains"][held] = {  # type: ignore[index]
            "questions": len(records), "answerable": sum(test_y),
            "all_signals_lodo": scores(fitted, test_y),
            "stated_confidence_lodo": scores(
                [stated_lodo(r, {d: counts(rs) for d, rs in domains.items() if d != held})
                 for r in records], test_y),
            "shipped_calibration": scores(recalibrated(records, shipped), test_y)}
    pooled = [r for rs in domains.values() for r in rs]
    x = np.asarray([row(r) for r in pooled])
    y = np.asarray([r.should_answer for r in pooled])
    cv = cross_validate(x, y, folds=5)
    model = fit_logistic(x, y, l2=cv.l2)
    report["pooled_fit"] = {"questions": len(pooled), "l2": cv.l2,
                            "intercept": round(model.intercept, 4),
                            "coefficients": {n: round(w, 4) for n, w in
                                             zip(NAMES, model.coefficients, strict=True)},
                            "cv": {"ece": round(cv.ece, 3), "auroc": round(cv.auroc, 3)}}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print("| held out | questions | all signals, fit on the others: ECE / AUROC "
          "| today's confidence, refusal rates of the others | shipped calibration alone |")
    print("|---|---|---|---|---|")
    for name, d in report["domains"].items():  # type: ignore[attr-defined]
        cells = [f"{d[k]['ece']:.3f} / {d[k]['auroc']:.3f}"
                 for k in ("all_signals_lodo", "stated_confidence_lodo",
                           "shipped_calibration")]
        print(f"| {name} | {d['questions']} ({d['answerable']} answerable) | " +
              " | ".join(cells) + " |")
    print(json.dumps(report["pooled_fit"]))


if __name__ == "__main__":
    main()
