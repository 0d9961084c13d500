"""Refit the answer confidence on one collection's labelled questions (``abstain calibrate
--target answer-confidence``), judged against the model in use before it is written.

The shipped model (:mod:`abstain.evaluate.answer_fit`) is fitted on several domains pooled;
a user refits it on their own labelled questions — a labelled file, a built-in set or the
query log's labelled entries — the way the retrieval calibration is refitted
(:func:`abstain.evaluate.calibrate.refit`): cross-validated, compared fold by fold with the
model in use on the same questions, and a threshold certified on a held-out part when a
risk target is given. Without one the new model keeps the threshold of the model in use:
both state P(right), so the same threshold asks for the same probability.

The label is whether answering was right (:func:`right`): for an answer the labels can
judge, that it was judged correct; otherwise the reviewer's ``expected`` (a query-log entry
labelled ``answer`` states that the documents hold its answer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from abstain.answer_confidence import READING_SIGNAL, AnswerConfidence, signals
from abstain.evaluate.calibrate import Refit, Target, refit
from abstain.evaluate.records import QuestionRecord


def right(record: QuestionRecord) -> bool:
    """Answering was right: the question should be answered and, when it was answered and
    the labels can judge the answer, the answer was judged correct."""
    return record.should_answer and record.correct is not False


def values(record: QuestionRecord) -> Mapping[str, float]:
    """The answer confidence's inputs, from the recorded features and checks."""
    return signals(record.features, record.checks)


@dataclass(frozen=True, slots=True)
class AnswerRefit:
    model: AnswerConfidence
    fit: Refit


def refit_answer_confidence(records: Sequence[QuestionRecord], current: AnswerConfidence, *,
                            source: str, folds: int = 5, holdout: float = 0.0,
                            alpha: float | None = None, delta: float = 0.05,
                            risk: str = "answered", seed: int = 0,
                            extra_fit_on: dict[str, Any] | None = None) -> AnswerRefit:
    """A new answer confidence over the signals ``current`` uses (the reader's
    answerability only when every record has it), compared with ``current``."""
    read = all(READING_SIGNAL in r.features for r in records)
    names = tuple(n for n in current.coefficients if read or n != READING_SIGNAL)

    def old(part: Sequence[QuestionRecord]) -> list[float]:
        return [current.confidence(values(r)) for r in part]

    target = Target(names, values, right, ("right", "not_right"), current.name, old,
                    kind="answer confidence")
    result = refit(records, target, source=source, folds=folds, holdout=holdout, alpha=alpha,
                   delta=delta, risk=risk, seed=seed, extra_fit_on=extra_fit_on)
    threshold = result.threshold
    report = {"label": "right: answering was right (an answer the labels judge correct; "
                       "otherwise the question's expected label)",
              "refit_of": current.name,
              "threshold": "certified by risk control" if threshold is not None
              else f"kept from {current.name}",
              "fit_on": result.fit_on, "metrics": result.metrics}
    model = AnswerConfidence(result.intercept, result.coefficients,
                             current.threshold if threshold is None else threshold,
                             name=f"fit:{source}", report=report)
    return AnswerRefit(model, result)
