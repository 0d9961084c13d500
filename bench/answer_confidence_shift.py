"""The shipped answer confidence on collections no fit has seen, and after the intercept
offset that ``abstain calibrate --target answer-confidence`` fits from k labelled questions
of each (:func:`abstain.evaluate.answer_refit.shift_answer_confidence`).

Reads ``--answer-all`` runs (``abstain eval SET --db DB --answer-all --save-records FILE``)
and prints one row per run: the shipped model's ECE / AUROC of what the pipeline states on
every question (and the mean ECE a perfectly calibrated confidence would measure there);
then, over random draws of k labelled questions (the user's labels), on the other
questions: ECE as shipped, after the offset (always), and as the command leaves it (the
offset only when its safe-refit guard writes it), how often it is written, the offset, the
ECE a perfectly calibrated confidence would measure on as many questions (labels drawn from
the offset model's stated probabilities: the noise floor), and the answers given, the right
ones among them and their precision, as shipped and as the command leaves it::

    python bench/answer_confidence_shift.py huey=huey.jsonl uvicorn=uvicorn.jsonl … \\
        [--labels 40] [--draws 5] [--seed 0] [--left-out]

``--left-out``: the runs are the domains the shipped model was fitted on
(``bench/fit_answer_confidence.py``); each is judged, and shifted, as a new collection: with
the model fitted on the others (the shipped procedure, the shipped threshold) in place of the
shipped model.

Results: docs/EVALUATION.md, "An offset from the user's own labels".
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from abstain.answer_confidence import AnswerConfidence, shipped_answer_confidence
from abstain.evaluate.answer_fit import (
    DEFAULT_SIGNALS,
    Row,
    answered_under,
    leave_one_domain_out,
    rows,
    stated_under,
)
from abstain.evaluate.answer_refit import shift_answer_confidence
from abstain.evaluate.metrics import auroc, ece
from abstain.evaluate.records import QuestionRecord, load_records

FLOOR_DRAWS = 200


def stated(model: AnswerConfidence, part: Sequence[Row]) -> np.ndarray:
    return np.asarray([stated_under(model, r) for r in part])


def given(model: AnswerConfidence, part: Sequence[Row]) -> tuple[int, int]:
    """Answers the pipeline gives with ``model`` deciding, and how many are right."""
    answered = [r for r in part if answered_under(model, r)]
    return len(answered), sum(r.right for r in answered)


def one_set(name: str, records: Sequence[QuestionRecord], labels: int, draws: int,
            rng: np.random.Generator, shipped: AnswerConfidence) -> dict[str, object]:
    usable = [r for r in records if r.error is None and r.features]
    data = rows(name, usable)
    right = np.asarray([r.right for r in data], dtype=float)
    before = stated(shipped, data)
    out: dict[str, object] = {
        "questions": len(data), "right": int(right.sum()),
        "ece": ece(before, right)[0], "auroc": auroc(before, right),
        "floor_all": float(np.mean([ece(before, rng.random(len(before)) < before)[0]
                                    for _ in range(FLOOR_DRAWS)]))}
    kept, shifted, product, floors, offsets, written = [], [], [], [], [], 0
    answers: dict[str, list[tuple[int, int]]] = {"kept": [], "product": []}
    if len(data) < labels + 10:
        draws = 0
    for _ in range(draws):
        order = rng.permutation(len(data))
        mine, rest = order[:labels], order[labels:]
        try:
            fit = shift_answer_confidence([usable[i] for i in mine], shipped, source=name)
        except ValueError:  # too few labelled questions the confidence decides
            fit = None
        test = [data[i] for i in rest]
        kept.append(ece(before[rest], right[rest])[0])
        answers["kept"].append(given(shipped, test))
        if fit is None:
            answers["product"].append(answers["kept"][-1])
            shifted.append(kept[-1])
            product.append(kept[-1])
            offsets.append(0.0)
            continue
        moved = stated(fit.model, test)
        shifted.append(ece(moved, right[rest])[0])
        offsets.append(float(fit.offset or 0.0))
        ok = fit.fit.comparison is not None and not fit.fit.comparison.worse
        written += ok
        product.append(shifted[-1] if ok else kept[-1])
        answers["product"].append(given(fit.model, test) if ok else answers["kept"][-1])
        floors.extend(ece(moved, rng.random(len(moved)) < moved)[0]
                      for _ in range(FLOOR_DRAWS // draws + 1))
    out.update(kept=kept, shifted=shifted, product=product, offsets=offsets, written=written,
               draws=draws, floor=floors, answers=answers)
    return out


def _ms(values: Sequence[float]) -> str:
    return f"{np.mean(values):.3f} ± {np.std(values):.3f}" if len(values) else "–"


def _given(pairs: Sequence[tuple[int, int]]) -> str:
    """Mean answers given and right answers, and the precision of their sums."""
    if not pairs:
        return "–"
    n, r = np.sum(pairs, axis=0)
    return f"{n / len(pairs):.1f}, {r / len(pairs):.1f}, {r / max(n, 1):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=FILE")
    parser.add_argument("--labels", type=int, default=40, help="labelled questions [40]")
    parser.add_argument("--draws", type=int, default=5, help="random draws of them [5]")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--left-out", action="store_true",
                        help="judge each run with the fit on the others (module docstring)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    runs = {name: load_records(path) for name, _, path in
            (spec.partition("=") for spec in args.runs)}
    shipped = shipped_answer_confidence()
    models = {name: shipped for name in runs}
    if args.left_out:
        data = [row for name, records in runs.items() for row in rows(name, records)]
        _, _, fits = leave_one_domain_out(data, DEFAULT_SIGNALS)
        models = {name: replace(m, threshold=shipped.threshold, name=shipped.name)
                  for name, m in fits.items()}
    k = args.labels
    print(f"| set | questions (right) | shipped: ECE / AUROC (ECE if calibrated) | on the "
          f"other questions, "
          f"{args.draws} draws of {k} labels (mean ± sd): ECE as shipped | after the offset "
          f"| as `calibrate` leaves it | offset written | offset | ECE if calibrated: mean "
          f"/ 90th pct | answers, right, precision: shipped → as `calibrate` leaves it |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    pooled: dict[str, list[float]] = {"kept": [], "shifted": [], "product": []}
    for name, records in runs.items():
        r = one_set(name, records, k, args.draws, rng, models[name])
        for key in pooled:
            pooled[key].extend(r[key])  # type: ignore[arg-type]
        floor = r["floor"]
        print(f"| {name} | {r['questions']} ({r['right']}) | {r['ece']:.3f} / "
              f"{r['auroc']:.3f} ({r['floor_all']:.3f}) | {_ms(r['kept'])} | {_ms(r['shifted'])} | "  # type: ignore[arg-type]
              f"{_ms(r['product'])} | {r['written']} / {r['draws']} | "  # type: ignore[arg-type]
              f"{_ms(r['offsets'])} | "  # type: ignore[arg-type]
              + (f"{np.mean(floor):.3f} / {np.quantile(floor, 0.9):.3f} |"  # type: ignore[arg-type]
                 if floor else "– |")
              + f" {_given(r['answers']['kept'])} → {_given(r['answers']['product'])} |",  # type: ignore[index]
              flush=True)
    print(f"| all | | | {_ms(pooled['kept'])} | {_ms(pooled['shifted'])} | "
          f"{_ms(pooled['product'])} | | | | |")


if __name__ == "__main__":
    main()
