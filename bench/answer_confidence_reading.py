"""The answer confidence with the reader's and the quoted answer's signals, judged leaving
one domain out; and why its ECE stays above 0.08 on some domains.

Reads ``--answer-all`` runs, recorded with the reader on (``abstain eval … --reader
--answer-all --save-records``: each record carries the reader's ``answerability`` of the
evidence and ``answer_read``, its P(answers) of the answer as quoted) or off (the
reader's signals are then absent and the variants that need them are skipped). Each variant
goes through the shipped procedure (:func:`abstain.evaluate.answer_fit.fit_answer_confidence`:
the fits leaving each domain out, the thresholds by risk control) and prints, per held-out
domain, ECE / AUROC of what the pipeline would state; the row "as recorded" is the
confidence the recorded pipeline stated (with the reader: the reading calibration)::

    python bench/answer_confidence_reading.py sample=sample.jsonl click=click.jsonl … \\
        [--alpha 0.3] [--explain "+ answerability, answer_read"]

``--explain VARIANT`` adds, per domain, where that variant's ECE comes from: the answered
and the refused questions' share of right answers against their mean stated confidence;
the ECE a perfectly calibrated confidence would measure on as many questions (its labels
drawn from the stated probabilities: the noise floor of the target); and the ECE after one
offset of the fit's intercept learnt from k labelled questions of the domain itself (those
of them every other check passes; judged on the rest), and after refitting every
coefficient on the same k.

Results: docs/EVALUATION.md, "The reader and the quoted answer as signals".
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from abstain.answer_confidence import (
    ANSWER_SIGNALS,
    READING_SIGNAL,
    AnswerConfidence,
    answer_signals,
)
from abstain.evaluate.answer_fit import (
    DEFAULT_SIGNALS,
    PRESET_ALPHAS,
    Row,
    answered_under,
    fit,
    fit_answer_confidence,
    leave_one_domain_out,
    rows,
    stated_under,
)
from abstain.evaluate.logistic import fit_offset
from abstain.evaluate.metrics import auroc, ece
from abstain.evaluate.records import QuestionRecord, load_records, unmarked
from abstain.question import Question

VARIANTS: dict[str, tuple[str, ...]] = {
    "shipped signals": DEFAULT_SIGNALS,
    "+ answerability": (*DEFAULT_SIGNALS, READING_SIGNAL),
    "+ answer_read": (*DEFAULT_SIGNALS, "answer_read"),
    "+ answerability, answer_read": (*DEFAULT_SIGNALS, READING_SIGNAL, "answer_read"),
    "+ answer_typed, answer_terms": (*DEFAULT_SIGNALS, "answer_typed", "answer_terms"),
    "+ answer_numbers": (*DEFAULT_SIGNALS, "answer_numbers"),
    "+ quote_agree": (*DEFAULT_SIGNALS, "quote_agree"),
    "+ answerability, quote_agree": (*DEFAULT_SIGNALS, READING_SIGNAL, "quote_agree"),
    "+ all of these": (*DEFAULT_SIGNALS, READING_SIGNAL, *ANSWER_SIGNALS),
}
READ = frozenset({READING_SIGNAL, "answer_read", "quote_agree"})
"""Signals only a run with the reader records."""
LABELS_GIVEN = (10, 20, 40)


def with_answer_signals(record: QuestionRecord) -> QuestionRecord:
    """The record with :func:`answer_signals` of its answer (none for a refusal)."""
    if not record.answered or record.error is not None:
        return record
    found = answer_signals(Question.parse(record.item.question), [unmarked(record.answer_text)])
    return replace(record, features={**record.features, **found})


def variants_table(runs: Mapping[str, Sequence[QuestionRecord]], alphas: Mapping[str, float]
                   ) -> None:
    reads = any(READING_SIGNAL in r.features for recs in runs.values() for r in recs)
    domains = sorted(runs)
    print("| variant (held out: ECE / AUROC) | " + " | ".join(domains) + " | thresholds |")
    print("|---|" + "---|" * (len(domains) + 1))
    for label, names in VARIANTS.items():
        if READ & set(names) and not reads:
            continue
        report = fit_answer_confidence(runs, names=names, alphas=alphas).report
        folds = report["leave_one_domain_out"]
        if label == "shipped signals":
            print("| as recorded | " + " | ".join(_cell(folds[d]["before"]) for d in domains)
                  + " | |")
        print(f"| {label} | " + " | ".join(_cell(folds[d]["answer_confidence"])
                                          for d in domains)
              + f" | {report['preset_thresholds']} |", flush=True)


def _cell(scores: Mapping[str, float | None]) -> str:
    auroc = scores["auroc"]
    return f"{scores['ece']:.3f} / " + ("-" if auroc is None else f"{auroc:.3f}")


def explain(runs: Mapping[str, Sequence[QuestionRecord]], names: Sequence[str],
            alphas: Mapping[str, float], seed: int = 0) -> None:
    threshold = fit_answer_confidence(runs, names=names, alphas=alphas).threshold
    data = [row for domain, records in runs.items() for row in rows(domain, records)]
    _, _, fits = leave_one_domain_out(data, names)
    rng = np.random.default_rng(seed)
    print(f"\nthreshold {threshold}")
    reads = any(READ & set(r.values) for r in data)
    ks = " / ".join(map(str, LABELS_GIVEN))
    print("| held out | ECE | answered: n, right, mean stated | refused: n, right, mean "
          f"stated | ECE if calibrated (mean / 90th pct) | ECE after an offset from k = {ks} "
          f"labels (without) | ECE / AUROC after a refit on k = {ks.replace(' /', ';')} "
          "(AUROC without) |"
          + (" answered, right / wrong: mean answerability; answer_read |" if reads else ""))
    print("|---|---|---|---|---|---|---|" + ("---|" if reads else ""))
    for domain in sorted(runs):
        test = [r for r in data if r.domain == domain]
        model = fits[domain]
        stated = np.asarray([stated_under(model, r, threshold) for r in test])
        right = np.asarray([r.right for r in test], dtype=float)
        answered = np.asarray([answered_under(model, r, threshold) for r in test])
        floor = [ece(stated, rng.random(len(stated)) < stated)[0] for _ in range(400)]
        cells = [_with_labels(model, test, stated, right, k, threshold, names, rng)
                 for k in LABELS_GIVEN]
        print(f"| {domain} | {ece(stated, right)[0]:.3f} | "
              f"{_group(answered, right, stated)} | {_group(~answered, right, stated)} | "
              f"{np.mean(floor):.3f} / {np.quantile(floor, 0.9):.3f} | "
              + " / ".join(c[0] for c in cells) + " | "
              + "; ".join(c[1] for c in cells) + " |"
              + (f" {_read(test, answered)} |" if reads else ""), flush=True)


def _read(test: Sequence[Row], answered: np.ndarray) -> str:
    """The reader's signals of the answered questions, right against wrong."""
    def mean(name: str, right: bool) -> str:
        got = [r.values.get(name, 0.0) for r, a in zip(test, answered, strict=True)
               if a and r.right == right]
        return f"{np.mean(got):.2f}" if got else "-"

    return "; ".join(f"{mean(n, True)} / {mean(n, False)}"
                     for n in (READING_SIGNAL, "answer_read"))


def _group(mask: np.ndarray, right: np.ndarray, stated: np.ndarray) -> str:
    if not mask.any():
        return "0"
    return f"{int(mask.sum())}, {right[mask].mean():.2f}, {stated[mask].mean():.2f}"


def _with_labels(model: AnswerConfidence, test: Sequence[Row], stated: np.ndarray,
                 right: np.ndarray, k: int, threshold: float, names: Sequence[str],
                 rng: np.random.Generator, repeats: int = 200) -> tuple[str, str]:
    """With ``k`` labelled questions of the domain, judged on the rest (means over random
    draws): ECE after shifting the intercept by the offset that fits those of them every
    other check passes (in brackets: without), and ECE / AUROC after refitting every
    coefficient on all ``k`` (in brackets: AUROC without)."""
    if k > len(test) - 10:
        return "-", "-"
    shifted, refitted, before = [], [], []
    raw = np.asarray([model.confidence(r.values) for r in test])
    for _ in range(repeats):
        order = rng.permutation(len(test))
        labelled, rest = order[:k], order[k:]
        passed = [i for i in labelled if test[i].gate_passed and test[i].answered]
        z = np.log(np.clip(raw[passed], 1e-4, 1 - 1e-4) / np.clip(1 - raw[passed], 1e-4, 1))
        moved = AnswerConfidence(model.intercept + fit_offset(z, right[passed]),
                                 model.coefficients, threshold)
        shifted.append(ece([stated_under(moved, test[i], threshold) for i in rest],
                           right[rest])[0])
        before.append((ece(stated[rest], right[rest])[0], auroc(stated[rest], right[rest])))
        if len(set(right[labelled])) == 2:
            new = fit([test[i] for i in labelled], names, float(model.report.get("l2", 1.0)))
            again = [stated_under(new, test[i], threshold) for i in rest]
            refitted.append((ece(again, right[rest])[0], auroc(again, right[rest])))
    old = np.nanmean(np.asarray(before), axis=0)
    new_ece, new_auroc = np.nanmean(np.asarray(refitted), axis=0)
    return (f"{np.mean(shifted):.3f} ({old[0]:.3f})",
            f"{new_ece:.3f} / {new_auroc:.3f} ({old[1]:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=FILE")
    parser.add_argument("--alpha", type=float, default=None,
                        help="The balanced preset's risk level (default: the shipped 0.42).")
    parser.add_argument("--explain", metavar="VARIANT", choices=list(VARIANTS),
                        help="Where this variant's ECE comes from, per domain.")
    args = parser.parse_args()
    runs = {}
    for run in args.runs:
        name, _, path = run.partition("=")
        runs[name] = [with_answer_signals(r) for r in load_records(path)]
    alphas = PRESET_ALPHAS if args.alpha is None else {"balanced": args.alpha}
    variants_table(runs, alphas)
    if args.explain:
        explain(runs, VARIANTS[args.explain], alphas)


if __name__ == "__main__":
    main()
