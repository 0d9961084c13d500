"""The gate on SQuAD 2.0 (issue 3's protocol), beside the seeds' gates; calibration on
held-out articles; a certified threshold. Prints Markdown for docs/EVALUATION.md.

Protocol: collection = paragraphs of the even-indexed articles; answerable = their answerable
questions; near_miss = their unanswerable questions; out_of_collection = answerable questions
of the odd-indexed articles. Usage (the first step asks every question once, ~4,400; the
rest re-scores the saved records):

    abstain eval --dataset squad2 --db .data/eval/squad2-minilm.db \\
        --save-records bench/out/squad2-records.jsonl
    python bench/bench_gate_squad.py --records bench/out/squad2-records.jsonl \\
        --plots docs/img/squad2
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from abstain.evaluate.baselines import BASELINES
from abstain.evaluate.calibrate import fit_calibration, recalibrated
from abstain.evaluate.metrics import auroc, ece
from abstain.evaluate.records import CONFIDENCE_CHECK, QuestionRecord, load_records

CATS = ("answerable", "out_of_collection", "near_miss")


def rates(records: Sequence[QuestionRecord], answered: Sequence[bool]) -> dict[str, float]:
    out = {}
    for cat in CATS:
        idx = [i for i, r in enumerate(records) if r.item.category == cat]
        out[cat] = sum(answered[i] for i in idx) / len(idx) if idx else math.nan
    return out


def pair_auroc(records: Sequence[QuestionRecord], score: Callable[[QuestionRecord], float],
               negative: str) -> float:
    chosen = [r for r in records if r.item.category in ("answerable", negative)]
    return auroc([score(r) for r in chosen], [r.item.category == "answerable" for r in chosen])


def row(name: str, records: Sequence[QuestionRecord], answered: Sequence[bool],
        score: Callable[[QuestionRecord], float] | None) -> str:
    r = rates(records, answered)
    a1 = f"{pair_auroc(records, score, 'out_of_collection'):.3f}" if score else "–"
    a2 = f"{pair_auroc(records, score, 'near_miss'):.3f}" if score else "–"
    return (f"| {name} | {r['answerable']:.1%} | {r['out_of_collection']:.1%} | "
            f"{r['near_miss']:.1%} | {a1} | {a2} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", required=True)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--holdout", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plots", help="write PNGs of the held-out questions here")
    args = ap.parse_args()

    records = [r for r in load_records(args.records) if r.error is None]
    counts = {c: sum(r.item.category == c for r in records) for c in CATS}
    print(f"{len(records)} questions: " + ", ".join(f"{c} {n}" for c, n in counts.items()))
    print("\n| gate | answer rate (answerable) | false acc. out-of-collection | "
          "false acc. near-miss | AUROC vs OOC | AUROC vs near-miss |")
    print("|---|---|---|---|---|---|")
    for b in BASELINES:
        name = "abstain (balanced, seed calibration)" if b.name == "abstain" else b.name
        print(row(name, records, [b.decide(r) for r in records], b.score))
    best_cos = lambda r: r.features.get("best_cosine", 0.0)  # noqa: E731
    print(row("best cosine alone (signal only)", records, [False] * len(records), best_cos)
          .replace("| 0.0% | 0.0% | 0.0% |", "| – | – | – |"))

    scenario(records, args, "all three categories",
             plots=f"{args.plots}/all" if args.plots else None)
    content_absent = [r for r in records if r.item.category != "near_miss"]
    scenario(content_absent, args, "answerable + out_of_collection (near_miss left out)",
             plots=f"{args.plots}/content-absent" if args.plots else None)
    fresh_test(content_absent, args)


def fresh_test(records: Sequence[QuestionRecord], args: argparse.Namespace) -> None:
    """Three disjoint sets of articles: fit the coefficients on one, certify the threshold on
    the second, and judge the promise on the third (never seen by either step)."""
    from abstain.evaluate.data import split_groups

    rest_idx, test_idx = split_groups([r.item for r in records], 1 / 3, seed=args.seed + 1)
    rest = [records[i] for i in rest_idx]
    test = [records[i] for i in test_idx]
    print(f"\n### Fresh articles: fit + certify on {len(rest)} questions, "
          f"test on {len(test)} ({', '.join(sorted({r.item.group or '' for r in test}))})")
    print("\n| risk | threshold | answered (test) | should-refuse among them | answer rate | "
          "FA OOC |")
    print("|---|---|---|---|---|---|")
    for risk in ("answered", "refusable"):
        fit = fit_calibration(rest, source="squad2", holdout=0.5, alpha=args.alpha,
                              delta=args.delta, risk=risk, seed=args.seed)
        rc = fit.risk
        if rc is None or not rc.certified or rc.threshold is None:
            print(f"| {risk} | not certified | | | | |")
            continue
        conf = recalibrated(test, fit.calibration)
        answered = [r.passes_except(CONFIDENCE_CHECK) and c >= rc.threshold
                    for r, c in zip(test, conf, strict=True)]
        wrong = sum(a and not r.should_answer for a, r in zip(answered, test, strict=True))
        rates_ = rates(test, answered)
        print(f"| {risk} | {rc.threshold:.4f} | {sum(answered)} | {wrong} "
              f"({wrong / max(1, sum(answered)):.2%}) | {rates_['answerable']:.1%} | "
              f"{rates_['out_of_collection']:.2%} |")


def scenario(records: Sequence[QuestionRecord], args: argparse.Namespace, label: str,
             plots: str | None) -> None:
    """Fit on some articles, judge on the others; certify a threshold on the held-out part."""
    print(f"\n### Calibration and risk control: {label}")
    for risk in ("answered", "refusable"):
        fit = fit_calibration(records, source="squad2", holdout=args.holdout, alpha=args.alpha,
                              delta=args.delta, risk=risk, seed=args.seed)
        hold = [records[i] for i in fit.holdout_indices]
        train = [records[i] for i in fit.fit_indices]
        cal = fit.calibration
        conf_hold = recalibrated(hold, cal)
        pos_hold = [r.should_answer for r in hold]
        base_hold = [r.passes_except(CONFIDENCE_CHECK) for r in hold]
        if risk == "answered":
            print(f"\nfit on {len(train)} questions ({len({r.item.group for r in train})} "
                  f"articles), held out {len(hold)} ({len({r.item.group for r in hold})} "
                  f"articles: {', '.join(sorted({r.item.group or '' for r in hold}))})")
            print("coefficients: intercept "
                  f"{cal.intercept:+.3f}, " + ", ".join(f"{k} {v:+.3f}"
                                                        for k, v in cal.coefficients.items()))
            cv = cal.metrics["cross_validation"]
            print(f"CV (fit part): AUROC {cv['auroc']}, ECE {cv['ece']}, L2 {cv['l2']}")
            seed_ece = ece([r.confidence for r in hold], pos_hold)[0]
            print(f"held-out ECE: fitted {ece(conf_hold, pos_hold)[0]:.4f} "
                  f"(seed calibration {seed_ece:.4f}); held-out AUROC fitted "
                  f"{auroc(conf_hold, pos_hold):.3f}, seed "
                  f"{auroc([r.confidence for r in hold], pos_hold):.3f}")
            print("\nheld-out reliability (fitted): bin, n, mean confidence, share answerable")
            for b in ece(conf_hold, pos_hold)[1]:
                if b.count:
                    print(f"  {b.low:.1f}-{b.high:.1f} {b.count:5d} {b.confidence:.3f} "
                          f"{b.accuracy:.3f}")
            default = [b and c >= 0.5 for b, c in zip(base_hold, conf_hold, strict=True)]
            print("\n| held-out articles | answer rate | FA OOC | FA near-miss | | |")
            print("|---|---|---|---|---|---|")
            print(row("abstain, fitted calibration, min_confidence 0.5", hold, default, None))
            _ooc_target(train, hold, cal)
        rc = fit.risk
        assert rc is not None
        print(f"\nrisk control ({risk}, alpha {args.alpha}, delta {args.delta}): {rc.message}")
        if rc.certified and rc.threshold is not None:
            answered = [b and c >= rc.threshold
                        for b, c in zip(base_hold, conf_hold, strict=True)]
            print(row(f"certified threshold {rc.threshold:.4f} ({risk})", hold, answered, None))
            wrong = sum(a and not p for a, p in zip(answered, pos_hold, strict=True))
            print(f"held-out: {sum(answered)} answered, {wrong} should-refuse among them")
        if plots and risk == "answered":
            from abstain.evaluate.plots import write_plots

            shown = [replace(r, confidence=c) for r, c in zip(hold, conf_hold, strict=True)]
            paths = write_plots(shown, plots, threshold=cal.gate_threshold,
                                title="SQuAD 2.0 held-out")
            print("plots: " + ", ".join(str(p) for p in paths))


def _ooc_target(train: Sequence[QuestionRecord], hold: Sequence[QuestionRecord], cal: object
                ) -> None:
    """The operating point issue 3 asks about: the lowest threshold whose out-of-collection
    false acceptance on the fit part is <= 1%, judged on the held-out articles — with the
    gate's other checks, and on the calibrated confidence alone."""
    from abstain.confidence import Calibration

    assert isinstance(cal, Calibration)
    conf_train = np.asarray(recalibrated(train, cal))
    ooc = np.asarray([r.item.category == "out_of_collection" for r in train])
    conf_hold = recalibrated(hold, cal)
    for label, gated in (("with the other checks", True), ("confidence alone", False)):
        base = np.asarray([r.passes_except(CONFIDENCE_CHECK) or not gated for r in train])
        chosen = 1.0
        for lam in np.linspace(1, 0, 1001):
            if float(((conf_train >= lam) & base & ooc).sum() / max(1, ooc.sum())) <= 0.01:
                chosen = float(lam)
        answered = [(r.passes_except(CONFIDENCE_CHECK) or not gated) and c >= chosen
                    for r, c in zip(hold, conf_hold, strict=True)]
        print(row(f"threshold {chosen:.3f}, {label} (OOC FA <= 1% on the fit part)", hold,
                  answered, None))


if __name__ == "__main__":
    main()
