"""How far the gate's own signals can move answer precision and right answers, replayed from
``abstain eval --answer-all`` records: no question is asked again.

Three tables, each per domain (a domain is one records file or several pooled, ``NAME=GLOB``):

1. **Within the answers given, how well each signal ranks right against wrong answers**
   (AUROC of the answers the default gate gives): a signal that cannot tell them apart there
   cannot make a stricter bar more precise.
2. **A stricter reader's veto, or a confident reading waiving the word-level checks**: right /
   given as the default's bar on the reader's answerability (``presets.VETO``) rises, and as
   the word-level checks (``gate.WAIVABLE``) are waived at and above an answerability
   (``GateThresholds.waive_lexical_at``), the answer confidence recomputed with them passed.
3. **One model deciding instead of the checks' conjunction**: a logistic over every signal the
   gate has before it answers (:func:`abstain.answer_confidence.signals` and the
   answerability's logit), fitted on the ``--fit`` domains to "the answer would be right"; the
   checks no reading overturns (``gate.SETTLED_WITHOUT_READING``) and the quote's reading stay
   vetoes. On each domain: the right answers it gives when it gives as many answers as the
   default, and the answers it gives at the default's precision.

    abstain eval data/userdocs/NAME/questions.jsonl --db NAME.db --answer-all \\
        --save-records runs/NAME.jsonl                      # each train and eval set
    python bench/gate_frontier.py --fit 'train=runs/train/*.jsonl' \\
        'unseen=runs/eval/*.jsonl' click=runs/click.jsonl squad=runs/squad.jsonl

docs/EXPERIMENTS.md, "One model over every signal" has a run. One thing the replay cannot
do: an answer whose best window is a table row answering by its columns states at least
``rows.ANSWERED_RIGHT`` in the pipeline (``gate.row_lookup``), and a record does not keep the
row's verdict, so the replay judges such an answer by its P(right) alone and may refuse one
the pipeline gives (in that run it reproduced the real runs' counts exactly).
"""

from __future__ import annotations

import argparse
import glob
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from abstain.answer_confidence import shipped_answer_confidence, signals
from abstain.evaluate.answer_all import first_failing
from abstain.evaluate.logistic import fit_logistic
from abstain.evaluate.metrics import auroc
from abstain.evaluate.records import CheckValue, QuestionRecord, load_records
from abstain.gate import SETTLED_WITHOUT_READING, WAIVABLE
from abstain.presets import VETO
from abstain.records import CheckName

MODEL_SIGNALS = ("top_fused_norm", "in_both", "best_cosine", "term_coverage",
                 "informative_coverage", "passage_coverage", "chunk_confidence",
                 "answer_type_found", "answerability")
RANKED = ("answerability", "quote_reading", "passage_coverage", "informative_coverage",
          "top_fused_norm")
VETOES = (VETO["balanced"], 0.5, 0.7, 0.9)
WAIVERS = (0.9, 0.95, 0.98)


@dataclass(frozen=True, slots=True)
class Row:
    values: dict[str, float]
    right: bool
    answered: bool
    """The default gate answered it (as recorded)."""
    vetoed: bool
    """A check no reading overturns failed, or the quote read as answering nothing."""
    given: bool
    """The generator gave an answer when let through."""
    waived: tuple[bool, ...]
    """Answered with the word-level checks waived at each of :data:`WAIVERS`."""


def decides(record: QuestionRecord, *, waive_at: float | None = None) -> bool:
    """Whether the default gate answers ``record`` (an ``--answer-all`` record), the answer
    confidence recomputed by the shipped model; ``waive_at``: the word-level checks pass at
    and above this answerability."""
    checks: tuple[CheckValue, ...] = record.checks
    reading = record.features.get("answerability")
    if waive_at is not None and reading is not None and reading >= waive_at:
        checks = tuple(CheckValue(c.name, True, c.value, c.threshold, c.reason)
                       if c.name in WAIVABLE else c for c in checks)
    model = shipped_answer_confidence()
    return (record.answered and first_failing(checks, confidence=False) is None
            and model.confidence(signals(record.features, checks)) >= model.threshold)


def _row(record: QuestionRecord) -> Row:
    values = signals(record.features, record.checks)
    values.setdefault("answerability", 0.0)
    quote = record.check(CheckName.QUOTE_READING)
    values["quote_reading"] = (float(quote.value) if quote is not None
                               and isinstance(quote.value, int | float) else 1.0)
    vetoed = any(not c.passed and (c.name in SETTLED_WITHOUT_READING
                                   or c.name == CheckName.QUOTE_READING)
                 for c in record.checks)
    return Row(values, record.right, decides(record), vetoed, record.answered,
               tuple(decides(record, waive_at=w) for w in WAIVERS))


def load(spec: str) -> tuple[str, list[Row]]:
    name, _, pattern = spec.partition("=")
    paths = sorted(glob.glob(pattern))
    if not paths:
        raise SystemExit(f"{spec}: no records file matches")
    return name, [_row(r) for p in paths for r in load_records(p) if r.error is None]


def features(rows: Sequence[Row]) -> np.ndarray:
    def logit(p: float) -> float:
        p = min(max(p, 1e-4), 1 - 1e-4)
        return math.log(p / (1 - p))
    return np.asarray([[r.values.get(n, 0.0) for n in MODEL_SIGNALS]
                       + [logit(r.values["answerability"])] for r in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("judge", nargs="+", metavar="NAME=GLOB")
    parser.add_argument("--fit", action="append", default=[], metavar="NAME=GLOB",
                        help="Domains the one model is fitted on (repeatable).")
    args = parser.parse_args()
    judged = dict(load(s) for s in args.judge)

    print("| domain | answers (right) | " + " | ".join(RANKED) + " |")
    print("|---|---|" + "---|" * len(RANKED))
    for name, rows in judged.items():
        given = [r for r in rows if r.answered]
        labels = [r.right for r in given]
        cells = []
        for signal in RANKED:
            value = auroc([r.values.get(signal, 0.0) for r in given], labels)
            cells.append("–" if math.isnan(value) else f"{value:.2f}")
        print(f"| {name} | {len(given)} ({sum(labels)}) | " + " | ".join(cells) + " |")

    print("\n| domain | " + " | ".join(f"answerability ≥ {v:g}" for v in VETOES) + " | "
          + " | ".join(f"waived at {w:g}" for w in WAIVERS) + " |")
    print("|---|" + "---|" * (len(VETOES) + len(WAIVERS)))
    for name, rows in judged.items():
        cells = []
        for bar in VETOES:
            kept = [r for r in rows if r.answered and r.values["answerability"] >= bar]
            cells.append(f"{sum(r.right for r in kept)} / {len(kept)}")
        for i, _ in enumerate(WAIVERS):
            kept = [r for r in rows if r.waived[i]]
            cells.append(f"{sum(r.right for r in kept)} / {len(kept)}")
        print(f"| {name} | " + " | ".join(cells) + " |")

    if not args.fit:
        return
    fitted = [r for s in args.fit for r in load(s)[1] if not r.vetoed and r.given]
    model = fit_logistic(features(fitted), [r.right for r in fitted], l2=1.0)
    print(f"\nOne model, fitted on {len(fitted)} questions ({sum(r.right for r in fitted)} "
          f"right if answered): " + ", ".join(
              f"{n} {w:+.2f}" for n, w in zip([*MODEL_SIGNALS, "logit(answerability)"],
                                             model.coefficients, strict=True)))
    print("\n| domain | the default: right / given | the model, as many answers: right "
          "| the model at the default's precision: right / given |")
    print("|---|---|---|---|")
    for name, rows in judged.items():
        eligible = [r for r in rows if not r.vetoed and r.given]
        answered = sum(r.answered for r in rows)
        right = sum(r.right for r in rows if r.answered)
        order = np.argsort(-model.predict(features(eligible))) if eligible else np.array([])
        hits = np.cumsum([eligible[i].right for i in order])
        same = int(hits[min(answered, len(hits)) - 1]) if answered and len(hits) else 0
        precision = right / answered if answered else 1.0
        ok = [k for k in range(len(hits)) if hits[k] / (k + 1) >= precision]
        at = (int(hits[ok[-1]]), ok[-1] + 1) if ok else (0, 0)
        print(f"| {name} | {right} / {answered} | {same} | {at[0]} / {at[1]} |")


if __name__ == "__main__":
    main()
