"""Fit the reading calibration and choose the reader's gate thresholds on the calibration set.

The calibration set is SQuAD 2.0 *train*: the 28 articles (5 %, seeded) the shipped reader was
trained without, under the benchmark's protocol (``abstain eval --dataset
squad2-calibration``). The benchmark half (``squad2-dev-half``) is never read here.

    abstain eval --dataset squad2-calibration --db .data/eval/squad2cal-minilm.db --reader \\
        --answer-all --limit 2000 --sample --seed 0 \\
        --save-records bench/out/squad2cal-reader-records.jsonl
    python bench/fit_reading_gate.py bench/out/squad2cal-reader-records.jsonl \\
        --write src/abstain/data/calibration-reading.json

Several domains are pooled (``NAME=FILE`` per recorded run): the calibration is fitted on all
of them, the thresholds are chosen for the most right answers less ``--cost`` per wrong answer
given (averaged over the domains), and each domain is also judged with the thresholds chosen
on the others alone (leave one domain out)::

    python bench/fit_reading_gate.py squad=bench/out/squad2cal.jsonl \\
        click=bench/out/click.jsonl sqlite-utils=bench/out/sqlite-utils.jsonl \\
        [--judge huey=bench/out/huey.jsonl …]

``--judge`` replays sets that are never fitted on (the data/userdocs eval sets, recorded the
same way) with the calibration and thresholds chosen on the fitted domains.

The recorded run reads every question the gate did not settle first, so each candidate gate
is replayed on the records. A check the recording gate waived is recorded as passed, so the
replay is exact only for waivers at or below the recording's ``waive_lexical_at``: say it with
``--recorded-waiver`` (default ``none``, the shipped ``balanced`` gate, which waives nothing)
and the grid keeps to those. Record with ``--answer-all`` so that a question the recorded gate
refused still has the answer a laxer gate would give (otherwise it counts as a wrong answer);
the calibration is fitted on the questions a real gate reads (none that a check settled before
reading). A question is
answered when no check that a reading cannot overturn failed, its answerability reaches
``min_answerability``, its failing word-level checks (if any) are waived by
``waive_lexical_at``, and its confidence (the reading calibration, refit here) reaches
``min_reading_confidence``. A question the recorded run refused after the gate (no answer
sentence) stays refused; an answer's text does not depend on the thresholds, so whether it
is right (``QuestionRecord.right``) is read from the record.
"""

from __future__ import annotations

import argparse
import itertools
import json
from dataclasses import dataclass, replace
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
from abstain.gate import WAIVABLE, settled_before_reading

LOW = tuple(round(x, 3) for x in np.arange(0.0, 0.501, 0.05))
WAIVE = (None, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
CONFIDENCE = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)


def answered(r: QuestionRecord, confidence: float, low: float, waive: float | None,
             floor: float) -> bool:
    failing = _failing(r)
    if not failing and not r.answered:
        return False  # refused after the gate
    if settled_before_reading(failing):
        return False
    p = r.features.get("answerability")
    if p is None or p < low or confidence < floor:
        return False
    return not (failing & WAIVABLE) or (waive is not None and p >= waive)


def replayable(waivers: tuple[float | None, ...], recorded: float | None
               ) -> tuple[float | None, ...]:
    """The waivers a run recorded with ``recorded`` replays exactly: those at or below it
    (a lower waiver only waives more of what the records hold as failed)."""
    if recorded is None:
        return waivers
    return tuple(w for w in waivers if w is not None and w <= recorded)


def _failing(r: QuestionRecord) -> set[str]:
    return {c.name for c in r.checks if not c.passed}


@dataclass(frozen=True)
class Domain:
    name: str
    records: list[QuestionRecord]
    confidence: list[float]

    def outcome(self, low: float, waive: float | None, floor: float) -> dict[str, float]:
        """Answered share per category, right answers, wrong answers given, and utility."""
        out: dict[str, float] = {}
        said = [answered(r, c, low, waive, floor)
                for r, c in zip(self.records, self.confidence, strict=True)]
        for cat in sorted({r.item.category for r in self.records}):
            idx = [i for i, r in enumerate(self.records) if r.item.category == cat]
            out[cat] = round(sum(said[i] for i in idx) / len(idx), 4)
        answerable = sum(r.should_answer for r in self.records) or 1
        right = sum(s and r.right for s, r in zip(said, self.records, strict=True))
        given = sum(said)
        out.update(right=right, given=given, wrong=given - right,
                   recall=round(right / answerable, 4),
                   precision=round(right / given, 4) if given else 1.0)
        return out


def utility(outcome: dict[str, float], cost: float, answerable: int) -> float:
    """Right answers less ``cost`` per wrong answer given, per answerable question."""
    return (outcome["right"] - cost * outcome["wrong"]) / max(1, answerable)


def choose(domains: list[Domain], cost: float, waivers: tuple[float | None, ...] = WAIVE
           ) -> tuple[tuple[float, float | None, float], float]:
    """The grid point with the best mean utility over ``domains``."""
    best: tuple[float, tuple[float, float | None, float]] | None = None
    for point in itertools.product(LOW, waivers, CONFIDENCE):
        value = float(np.mean([utility(d.outcome(*point), cost,
                                       sum(r.should_answer for r in d.records))
                               for d in domains]))
        if best is None or value > best[0] + 1e-12:
            best = (value, point)
    assert best is not None
    return best[1], best[0]


def _load(items: list[str]) -> dict[str, list[QuestionRecord]]:
    """NAME=FILE (or FILE, named by its stem) -> the recorded questions without an error."""
    named = (item.partition("=") for item in items)
    return {name or Path(path).stem: [r for r in load_records(path) if r.error is None]
            for name, _, path in named}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+", help="NAME=FILE: one recorded run per domain "
                        "(`abstain eval … --reader --save-records FILE`)")
    parser.add_argument("--cost", type=float, default=4.0,
                        help="what one wrong answer costs in right answers (default 4)")
    parser.add_argument("--write", metavar="FILE", help="write the reading calibration here")
    parser.add_argument("--recorded-waiver", default="none", metavar="X|none",
                        help="the waive_lexical_at the runs were recorded with (default none: "
                        "nothing waived, every waiver replays exactly)")
    parser.add_argument("--judge", nargs="*", default=[], metavar="NAME=FILE",
                        help="recorded runs judged with the calibration and thresholds fitted "
                        "on RECORDS, never fitted on (data/userdocs eval sets)")
    args = parser.parse_args()
    waivers = replayable(WAIVE, None if args.recorded_waiver == "none"
                         else float(args.recorded_waiver))
    loaded = _load(args.records)
    pooled = [r for records in loaded.values() for r in records]
    read = read_records([r for r in pooled if not settled_before_reading(_failing(r))])
    fit = fit_calibration(read, source=" + ".join(loaded),
                          features=READING_FEATURES)
    cal = fit.calibration

    def domain(name: str, records: list[QuestionRecord]) -> Domain:
        conf = [cal.confidence(record_features(r)) if "answerability" in r.features else 0.0
                for r in records]
        return Domain(name, records, conf)

    domains = [domain(n, rs) for n, rs in loaded.items()]
    held_out = {}
    for left in domains:
        point, _ = choose([d for d in domains if d is not left], args.cost, waivers)
        held_out[left.name] = {"chosen_on_the_others": point, **left.outcome(*point)}
    point, value = choose(domains, args.cost, waivers)
    low, waive, floor = point
    summary = {
        "domains": {d.name: len(d.records) for d in domains},
        "recorded": {d.name: {"right": sum(r.right for r in d.records),
                              "given": sum(r.answered for r in d.records)} for d in domains},
        "coefficients": cal.coefficients, "intercept": cal.intercept,
        "cv_auroc": cal.metrics["cross_validation"]["auroc"],
        "answerability_auroc_read": round(auroc(
            [r.features["answerability"] for r in read], [r.should_answer for r in read]), 4),
        "rule": f"the most right answers less {args.cost:g} per wrong answer given, per "
                "answerable question, averaged over the domains",
        "min_answerability": low, "waive_lexical_at": waive, "min_reading_confidence": floor,
        "utility": round(value, 4),
        "answered": {d.name: d.outcome(*point) for d in domains},
        "leave_one_domain_out": held_out}
    if args.judge:
        judged = _load(args.judge)
        outcomes = {n: domain(n, rs).outcome(*point) for n, rs in judged.items()}
        right = sum(o["right"] for o in outcomes.values())
        given = sum(o["given"] for o in outcomes.values())
        answerable = sum(r.should_answer for rs in judged.values() for r in rs)
        summary["judged"] = {**outcomes, "all_judged": {
            "right": right, "given": given, "precision": round(right / max(1, given), 4),
            "recall": round(right / max(1, answerable), 4)}}
    print(json.dumps(summary, indent=2))
    if args.write:
        description = ("Logistic regression (L2, cross-validated) over the retrieval features "
                       "and the reader's answerability, used once the reader has read the "
                       "kept evidence. GateThresholds' min_reading_confidence, min_answerability "
                       "and waive_lexical_at (balanced) were chosen with it by "
                       "bench/fit_reading_gate.py (" + summary["rule"] + "), on "
                       + ", ".join(loaded) + ": metrics.selection; each domain judged with "
                       "thresholds chosen on the others: metrics.selection.leave_one_domain_out.")
        metrics = {**cal.metrics, "selection": summary}
        replace(cal, name="fit:" + "+".join(loaded) + "+reader", description=description,
                metrics=metrics).save(Path(args.write))
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
