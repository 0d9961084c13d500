"""Refit the answer confidence on one collection's labelled questions (``abstain calibrate
--target answer-confidence``), judged against the model in use before it is written.

The shipped model (:mod:`abstain.evaluate.answer_fit`) is fitted on several domains pooled;
a user refits it on their own labelled questions — a labelled file, a built-in set or the
query log's labelled entries — the way the retrieval calibration is refitted
(:func:`abstain.evaluate.calibrate.refit`): cross-validated, compared fold by fold with the
model in use on the same questions, and a threshold certified on a held-out part when a
risk target is given. Without one the new model keeps the threshold of the model in use:
both state P(right), so the same threshold asks for the same probability.

Two refits (:func:`auto_refit` chooses when asked to):

* **every coefficient** (:func:`refit_answer_confidence`), when the labels are enough for a
  stable fit: at least :data:`~abstain.evaluate.refit.PER_FEATURE` of the rarer label per
  coefficient (80 for the shipped model's seven signals);
* **one offset of the intercept** (:func:`shift_answer_confidence`), below that: the model
  in use keeps its coefficients, so it ranks the questions as before, and one number moves
  every P(right) up or down on the logit scale to match the share of right answers in the
  user's own collection — the part of the model that differs most between collections
  (docs/EVALUATION.md, "One confidence across domains"). The offset is fitted on the
  questions every other gate check passes (:func:`decided`), the ones whose P(right) the
  pipeline states and decides on (a refusal by another check states at most that check's
  refusal rate), with a N(0, 1) prior (:data:`OFFSET_PRIOR_SD`), so a handful of labels
  moves it little. It is judged against the model in use on every labelled question as the
  pipeline would state it (:func:`~abstain.evaluate.answer_fit.stated_under`), each with the
  offset fitted on the other folds: moving the intercept also moves what the refusals by
  other checks state, up to their refusal rates.

The label is whether answering was right (:func:`right`): for an answer the labels can
judge, that it was judged correct; otherwise the reviewer's ``expected`` (a query-log entry
labelled ``answer`` states that the documents hold its answer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from abstain.answer_confidence import READING_SIGNAL, AnswerConfidence, signals
from abstain.confidence import log_odds, logistic
from abstain.evaluate.answer_fit import Row, rows, stated_under
from abstain.evaluate.calibrate import Refit, Target, certify, described, refit, split
from abstain.evaluate.logistic import CrossValidation, fit_offset, fold_ids, log_loss
from abstain.evaluate.metrics import _clean, auroc, ece
from abstain.evaluate.records import CONFIDENCE_CHECK, QuestionRecord
from abstain.evaluate.refit import PER_FEATURE, compare, labels_needed

OFFSET_PRIOR_SD = 1.0
"""The offset's prior: N(0, 1²) on the logit scale. With 40 labelled questions of a
collection the model was not fitted on it took the ECE of RGB's other questions from 0.435
to 0.092 and of the sample corpus's from 0.264 to 0.138 (``bench/answer_confidence_shift.py
--left-out``; docs/EVALUATION.md)."""
YOURS = "your collection"
"""The domain name the user's labelled questions take: refusal rates are the shipped ones."""
MIN_DECIDED = 5
"""Labelled questions every other check passes that an offset needs (one per fold)."""


_LABEL = ("right: answering was right (an answer the labels judge correct; otherwise the "
          "question's expected label)")


def right(record: QuestionRecord) -> bool:
    """Answering was right: the question should be answered and, when it was answered and
    the labels can judge the answer, the answer was judged correct."""
    return record.should_answer and record.correct is not False


def values(record: QuestionRecord) -> Mapping[str, float]:
    """The answer confidence's inputs, from the recorded features and checks."""
    return signals(record.features, record.checks)


def decided(record: QuestionRecord) -> bool:
    """Every gate check but the confidence passed: the confidence decides the question, and
    its P(right) is the number the pipeline states."""
    return record.passes_except(CONFIDENCE_CHECK)


@dataclass(frozen=True, slots=True)
class AnswerRefit:
    model: AnswerConfidence
    fit: Refit
    offset: float | None = None
    """The intercept offset of a shift (:func:`shift_answer_confidence`); None for a refit
    of every coefficient."""


def _target(records: Sequence[QuestionRecord], current: AnswerConfidence) -> Target:
    """The refit's target: the signals ``current`` uses (the reader's answerability only
    when every record has it), labelled by :func:`right`, compared with ``current``."""
    read = all(READING_SIGNAL in r.features for r in records)
    names = tuple(n for n in current.coefficients if read or n != READING_SIGNAL)

    def old(part: Sequence[QuestionRecord]) -> list[float]:
        return [current.confidence(values(r)) for r in part]

    return Target(names, values, right, ("right", "not_right"), current.name, old,
                  kind="answer confidence")


def auto_refit(records: Sequence[QuestionRecord], current: AnswerConfidence
               ) -> tuple[str, str]:
    """What ``--refit auto`` refits, and why, in words for the user: ``all`` when the
    labelled questions hold at least :data:`~abstain.evaluate.refit.PER_FEATURE` of the
    rarer label per coefficient of ``current``, else ``offset``."""
    usable = [right(r) for r in records if r.error is None and r.features]
    needed = labels_needed(usable, len(_target(records, current).features))
    if needed is None:
        return "all", (f"--refit auto: every coefficient, as the {len(usable)} labelled "
                       f"questions hold at least {PER_FEATURE} of the rarer label per "
                       f"coefficient")
    return "offset", (f"--refit auto: an offset of the intercept only, not every coefficient: "
                      f"a stable refit of every coefficient needs about {needed} labelled "
                      f"questions ({PER_FEATURE} of the rarer label per coefficient), these "
                      f"are {len(usable)}")


def refit_answer_confidence(records: Sequence[QuestionRecord], current: AnswerConfidence, *,
                            source: str, folds: int = 5, holdout: float = 0.0,
                            alpha: float | None = None, delta: float = 0.05,
                            risk: str = "answered", seed: int = 0,
                            extra_fit_on: dict[str, Any] | None = None) -> AnswerRefit:
    """A new answer confidence over the signals ``current`` uses (the reader's
    answerability only when every record has it), compared with ``current``."""
    target = _target(records, current)
    result = refit(records, target, source=source, folds=folds, holdout=holdout, alpha=alpha,
                   delta=delta, risk=risk, seed=seed, extra_fit_on=extra_fit_on)
    model = _model(current, result, f"fit:{source}", {"refit": "all", "refit_of": current.name})
    return AnswerRefit(model, result)


def shift_answer_confidence(records: Sequence[QuestionRecord], current: AnswerConfidence, *,
                            source: str, folds: int = 5, holdout: float = 0.0,
                            alpha: float | None = None, delta: float = 0.05,
                            risk: str = "answered", seed: int = 0,
                            extra_fit_on: dict[str, Any] | None = None) -> AnswerRefit:
    """``current`` with its intercept moved by the one offset that fits the labelled
    questions it decides (:func:`decided`), compared with ``current`` on every labelled
    question as the pipeline states it (each with the offset fitted on the other folds). With
    ``alpha`` the threshold is certified on the held-out part as for a refit; else
    ``current``'s is kept."""
    target = _target(records, current)
    usable, fit_idx, hold_idx = split(records, target, holdout, seed)
    fit = [usable[i] for i in fit_idx]
    hold = [usable[i] for i in hold_idx]
    mine = np.asarray([decided(r) for r in fit])
    if mine.sum() < MIN_DECIDED:
        raise ValueError(f"an offset is fitted on the labelled questions every other gate "
                         f"check passes (the ones the confidence decides): need at least "
                         f"{MIN_DECIDED}, got {int(mine.sum())}")
    z = np.asarray([log_odds(current.intercept, current.coefficients, values(r))
                    for r in fit])
    y = np.asarray([right(r) for r in fit])
    offset = fit_offset(z[mine], y[mine], prior_sd=OFFSET_PRIOR_SD)
    data = rows(YOURS, fit)
    cv = _cross_validate(fit, data, z, y, mine, current, folds=folds, seed=seed)
    comparison = compare(cv, current.name, [stated_under(current, r) for r in data], list(y),
                         0, "answer confidence", fitted_on=[bool(v) for v in y[mine]],
                         ranked=[stated_under(_moved(current, offset), r) for r in data])
    metrics: dict[str, Any] = {
        "cross_validation": {"folds": cv.folds, "l2": cv.l2, "judged": "as stated",
                             "log_loss": _clean(cv.log_loss), "brier": _clean(cv.brier),
                             "auroc": _clean(comparison.new.auroc), "ece": _clean(cv.ece)},
        "compared_with_current": comparison.to_json()}
    intercept = round(current.intercept + offset, 6)
    coefficients = dict(current.coefficients)

    def scored(part: Sequence[QuestionRecord]) -> list[float]:
        return [logistic(intercept, coefficients, values(r)) for r in part]

    held, control = certify(fit, hold, scored, right, metrics, alpha=alpha, delta=delta,
                            risk=risk, holdout=holdout, total=len(usable))
    fit_on = {**described(fit, hold, target, source, extra_fit_on),
              "decided_by_confidence": int(mine.sum()),
              "right_among_decided": int(y[mine].sum())}
    result = Refit(intercept, coefficients, fit_on, metrics, control, fit_idx, hold_idx,
                   held, comparison)
    shifted = {"model": current.name, "intercept": current.intercept,
               "offset": round(offset, 6), "prior_sd": OFFSET_PRIOR_SD,
               "fitted_on": f"the {fit_on['decided_by_confidence']} labelled questions "
                            f"every other gate check passes "
                            f"({fit_on['right_among_decided']} right)"}
    model = _model(current, result, f"shift:{source}", {"refit": "offset", "shift_of": shifted})
    return AnswerRefit(model, result, offset)


def _model(current: AnswerConfidence, result: Refit, name: str, how: dict[str, Any]
           ) -> AnswerConfidence:
    """The refitted model as written: at the certified threshold, else ``current``'s; its
    report says how it was refitted (``how``), on what, and how it did."""
    threshold = result.threshold
    report = {"label": _LABEL, **how,
              "threshold": "certified by risk control" if threshold is not None
              else f"kept from {current.name}",
              "fit_on": result.fit_on, "metrics": result.metrics}
    return AnswerConfidence(result.intercept, result.coefficients,
                            current.threshold if threshold is None else threshold,
                            name=name, report=report)


def _moved(model: AnswerConfidence, offset: float) -> AnswerConfidence:
    return replace(model, intercept=model.intercept + offset)


def _cross_validate(fit: Sequence[QuestionRecord], data: Sequence[Row], z: np.ndarray,
                    y: np.ndarray, mine: np.ndarray, current: AnswerConfidence, *, folds: int,
                    seed: int) -> CrossValidation:
    """Each labelled question as the pipeline would state it (:func:`~abstain.evaluate.
    answer_fit.stated_under`: an answer or a refusal by the confidence its P(right), a
    refusal by another check at most that check's refusal rate) with the offset fitted on
    the questions of the other folds that every other check passes."""
    k = max(2, min(folds, len(y)))
    fid = fold_ids(len(y), k, [r.item.group or f"#{i}" for i, r in enumerate(fit)], seed)
    p = np.zeros(len(y))
    for f in range(k):
        train = (fid != f) & mine
        moved = _moved(current, fit_offset(z[train], y[train], prior_sd=OFFSET_PRIOR_SD))
        for i in np.flatnonzero(fid == f):
            p[i] = stated_under(moved, data[int(i)])
    loss, l2 = log_loss(p, y), 1 / OFFSET_PRIOR_SD**2
    return CrossValidation(l2, k, loss, float(np.mean((p - y) ** 2)), auroc(p, y),
                           ece(p, y)[0], {l2: loss}, tuple(float(v) for v in p),
                           tuple(int(f) for f in fid))

