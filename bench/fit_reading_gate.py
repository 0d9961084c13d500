"""Fit the reading calibration and choose the reader's gate thresholds on the calibration set.

The calibration set is SQuAD 2.0 *train*: the 28 articles (5 %, seeded) the shipped reader was
trained without, under the benchmark's protocol (``abstain eval --dataset
squad2-calibration``). The benchmark half (``squad2-dev-half``) is never read here.

    abstain eval --dataset squad2-calibration --db .data/eval/squad2cal-minilm.db --reader \\
        --limit 2000 --sample --seed 0 --save-records bench/out/squad2cal-reader-records.jsonl
    python bench/fit_reading_gate.py bench/out/squad2cal-reader-records.jsonl \\
        --write src/abstain/data/calibration-reading.json

The recorded run reads every question the gate did not settle first, so each candidate gate
is replayed on the records (a check the recording gate waived is recorded as passed: the
replay is exact for waivers at or below the recording's ``waive_lexical_at``). A question is
answered when no check that a reading cannot overturn failed, its answerability reaches
``min_answerability``, its failing word-level checks (if any) are waived by
``waive_lexical_at``, and its confidence (the reading calibration, refit here) reaches
``min_reading_confidence``. A question the recorded run refused after the gate (no answer
sentence) stays refused. The rule: the most answerable questions answered with near misses
answered at most ``--max-near-miss`` and out-of-collection ones at most ``--max-ooc``.
"""

from __future__ import annotations

import argparse
import itertools
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from abstain.evaluate.calibrate import (
    READING_FEATURES,
    fit_calibration,
    read_records,
    record_features,
)
from abstain.evaluate.metrics import auroc
from abstain.evaluate.records import QuestionRecord, load_records
from abstain.gate import SETTLED_WITHOUT_READING, WAIVABLE

LOW = tuple(round(x, 3) for x in np.arange(0.0, 0.501, 0.05))
WAIVE = (None, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
CONFIDENCE = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)


def answered(r: QuestionRecord, confidence: float, low: float, waive: float | None,
             floor: float) -> bool:
    failing = {c.name for c in r.checks if not c.passed}
    if not failing and not r.answered:
        return False  # refused after the gate
    if failing & SETTLED_WITHOUT_READING or any(n.startswith("rule:") for n in failing):
        return False
    p = r.features.get("answerability")
    if p is None or p < low or confidence < floor:
        return False
    return not (failing & WAIVABLE) or (waive is not None and p >= waive)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records")
    parser.add_argument("--max-near-miss", type=float, default=0.30)
    parser.add_argument("--max-ooc", type=float, default=0.025)
    parser.add_argument("--write", metavar="FILE", help="write the reading calibration here")
    args = parser.parse_args()
    records = [r for r in load_records(args.records) if r.error is None]
    fit = fit_calibration(read_records(records), source="squad2-calibration (SQuAD 2.0 train "
                          "articles held out of the reader's training)",
                          features=READING_FEATURES)
    cal = fit.calibration
    conf = [cal.confidence(record_features(r)) if "answerability" in r.features else 0.0
            for r in records]
    cats = sorted({r.item.category for r in records})

    def rates(low: float, waive: float | None, floor: float) -> dict[str, float]:
        out = {}
        for cat in cats:
            idx = [i for i, r in enumerate(records) if r.item.category == cat]
            out[cat] = round(sum(answered(records[i], conf[i], low, waive, floor)
                                 for i in idx) / len(idx), 4)
        return out

    grid = [(lo, w, c, rates(lo, w, c)) for lo, w, c in itertools.product(LOW, WAIVE,
                                                                         CONFIDENCE)]
    ok = [g for g in grid if g[3]["near_miss"] <= args.max_near_miss
          and g[3]["out_of_collection"] <= args.max_ooc]
    best = max(ok, key=lambda g: (g[3]["answerable"], -g[3]["near_miss"], g[0]))
    low, waive, floor, chosen = best
    recorded = {cat: round(float(np.mean([r.answered for r in records
                                          if r.item.category == cat])), 4) for cat in cats}
    read = read_records(records)
    summary = {
        "records": len(records), "read": len(read), "recorded_answered": recorded,
        "coefficients": cal.coefficients, "intercept": cal.intercept,
        "cv_auroc": cal.metrics["cross_validation"]["auroc"],
        "answerability_auroc_read": round(auroc(
            [r.features["answerability"] for r in read], [r.should_answer for r in read]), 4),
        "rule": f"most answerable answered with near_miss <= {args.max_near_miss:g} and "
                f"out_of_collection <= {args.max_ooc:g}",
        "min_answerability": low, "waive_lexical_at": waive, "min_reading_confidence": floor,
        "answered": chosen}
    print(json.dumps(summary, indent=2))
    if args.write:
        description = ("Logistic regression (L2, cross-validated) over the retrieval features "
                       "and the reader's answerability, used once the reader has read the "
                       "kept evidence. GateThresholds' min_reading_confidence, min_answerability "
                       "and waive_lexical_at (balanced) were chosen with it by "
                       "bench/fit_reading_gate.py (" + summary["rule"] + "), on the same "
                       "calibration set: metrics.selection.")
        metrics = {**cal.metrics, "selection": summary}
        replace(cal, name="fit:squad2-calibration+reader", description=description,
                metrics=metrics).save(Path(args.write))
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
