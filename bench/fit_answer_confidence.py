"""Fit the answer confidence (P(this answer is right)) on several domains, judge it leaving
one domain out, choose its gate threshold by risk control, and write the shipped file.

Record each domain once with every check's verdict and the answer it would have given::

    abstain eval tests/data/sample_questions.jsonl --db demo.db --answer-all \\
        --save-records sample.jsonl
    abstain eval --dataset squad2-calibration --limit 400 --sample --seed 0 --answer-all \\
        --save-records squad2-calibration.jsonl
    …
    python bench/fit_answer_confidence.py sample=sample.jsonl click=click.jsonl … \\
        --write src/abstain/data/answer_confidence.json

The procedure is :mod:`abstain.evaluate.answer_fit`'s; the file carries its report (data,
leave-one-domain-out folds, per-domain ECE / AUROC, the risk control, answer precision per
domain before and after).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from abstain.evaluate.answer_fit import DEFAULT_SIGNALS, PRESET_ALPHAS, fit_answer_confidence
from abstain.evaluate.records import load_records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=FILE")
    parser.add_argument("--signals", default=",".join(DEFAULT_SIGNALS),
                        help="Comma-separated signals (abstain.answer_confidence.SIGNALS).")
    parser.add_argument("--alpha", type=float, default=None,
                        help="One risk level for the balanced preset only (default: "
                             "strict 0.3, balanced 0.42, lenient 0.45): the largest share of "
                             "the questions whose answer would be wrong that get answered.")
    parser.add_argument("--delta", type=float, default=0.05)
    parser.add_argument("--write", metavar="FILE", help="Write the model and its report.")
    args = parser.parse_args()
    runs, sources = {}, {}
    for run in args.runs:
        name, _, path = run.partition("=")
        runs[name], sources[name] = load_records(path), Path(path).name
    alphas = PRESET_ALPHAS if args.alpha is None else {"balanced": args.alpha}
    model = fit_answer_confidence(runs, names=args.signals.split(","), alphas=alphas,
                                  delta=args.delta, sources=sources)
    report = model.report
    print("| held out | questions | right if answered | this fit: ECE / AUROC "
          "| the default as shipped: ECE / AUROC | before any answer confidence |")
    print("|---|---|---|---|---|---|")
    for name, d in report["leave_one_domain_out"].items():
        new, shipped, old = d["answer_confidence"], d["shipped"], d["before"]
        print(f"| {name} | {d['questions']} | {d['right_if_answered']} | "
              f"{new['ece']:.3f} / {new['auroc']:.3f} | "
              f"{shipped['ece']:.3f} / {shipped['auroc']:.3f} | "
              f"{old['ece']:.3f} / {old['auroc']:.3f} |")
    print()
    print("| domain | answer precision (right / answers) before | after, fit without the "
          "domain | after, the pooled fit |")
    print("|---|---|---|---|")
    for name in report["outcomes"]["before"]:
        cells = [report["outcomes"][k][name] for k in ("before", "after", "after_pooled_fit")]
        print(f"| {name} | " + " | ".join(f"{c['precision']} ({c['right']} / {c['answers']})"
                                          for c in cells) + " |")
    print()
    print("thresholds", report["preset_thresholds"], "-", report["risk_control"]["message"])
    print("coefficients", model.coefficients, "intercept", model.intercept)
    if args.write:
        model.save(args.write)
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
