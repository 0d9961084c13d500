"""Fit the answer-confidence coefficients on recorded questions, and certify a threshold.

The label is the question's ``expected`` field: confidence estimates
P(the documents can answer the question | its features). The fit is a
cross-validated L2 logistic regression (:mod:`abstain.evaluate.logistic`) over
the features of :class:`~abstain.confidence.AnswerFeatures`.

With a risk target, the questions are first split by group (a SQuAD article,
say) into a fit part and a hold-out part: the coefficients are fit on the
first, the threshold is certified on the second (:mod:`abstain.evaluate.risk`),
so the guarantee is not spoiled by reusing the data the model was fit on.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from abstain import __version__
from abstain.confidence import Calibration
from abstain.evaluate.data import split_groups
from abstain.evaluate.logistic import cross_validate, fit_logistic, log_loss
from abstain.evaluate.metrics import _clean, auroc, ece
from abstain.evaluate.records import CONFIDENCE_CHECK, QuestionRecord
from abstain.evaluate.risk import RiskControl, control_risk
from abstain.records import AnswerFeatures

READING_FEATURE = "answerability"
FEATURES = tuple(f.name for f in fields(AnswerFeatures)
                 if f.name not in ("missing_terms", READING_FEATURE))
"""The retrieval-level features every question has."""
READING_FEATURES = (*FEATURES, READING_FEATURE)
"""With the reader's answerability: the questions the reader read (``--reader``)."""


@dataclass(frozen=True, slots=True)
class CalibrationFit:
    calibration: Calibration
    risk: RiskControl | None
    fit_indices: list[int]
    holdout_indices: list[int]
    holdout: dict[str, Any] = field(default_factory=dict)


def feature_matrix(records: Sequence[QuestionRecord], names: Sequence[str] = FEATURES
                   ) -> np.ndarray:
    return np.asarray([[r.features.get(f, 0.0) for f in names] for r in records],
                      dtype=np.float64)


def recalibrated(records: Sequence[QuestionRecord], calibration: Calibration) -> list[float]:
    """The confidence each record gets under ``calibration`` (the pipeline's own formula)."""
    return [calibration.confidence(record_features(r)) for r in records]


def record_features(record: QuestionRecord) -> AnswerFeatures:
    values: dict[str, Any] = {f: record.features.get(f, 0.0) for f in FEATURES}
    return AnswerFeatures(**values, answerability=record.features.get(READING_FEATURE))


def read_records(records: Sequence[QuestionRecord]) -> list[QuestionRecord]:
    """The records whose evidence the reader read (they carry its answerability)."""
    return [r for r in records if READING_FEATURE in r.features]


def fit_calibration(records: Sequence[QuestionRecord], *, source: str, folds: int = 5,
                    holdout: float = 0.0, alpha: float | None = None, delta: float = 0.05,
                    risk: str = "answered", seed: int = 0,
                    extra_fit_on: dict[str, Any] | None = None,
                    features: Sequence[str] = FEATURES) -> CalibrationFit:
    """``features``: :data:`FEATURES`, or :data:`READING_FEATURES` for the calibration used
    once the reader has read the evidence (fit it on :func:`read_records`)."""
    usable = [r for r in records if r.error is None and r.features]
    if len(usable) < 10 or len({r.should_answer for r in usable}) < 2:
        raise ValueError("need at least 10 questions with both 'answer' and 'refuse' labels")
    fit_idx, hold_idx = (split_groups([r.item for r in usable], holdout, seed=seed)
                         if holdout > 0 else (list(range(len(usable))), []))
    fit = [usable[i] for i in fit_idx]
    hold = [usable[i] for i in hold_idx]
    x, y = feature_matrix(fit, features), np.asarray([r.should_answer for r in fit])
    groups = [r.item.group or f"#{i}" for i, r in enumerate(fit)]
    cv = cross_validate(x, y, folds=folds, groups=groups, seed=seed)
    model = fit_logistic(x, y, l2=cv.l2)
    metrics: dict[str, Any] = {"cross_validation": {
        "folds": cv.folds, "l2": cv.l2, "log_loss": _clean(cv.log_loss),
        "brier": _clean(cv.brier), "auroc": _clean(cv.auroc), "ece": _clean(cv.ece),
        "log_loss_by_l2": {str(k): _clean(v) for k, v in cv.by_l2.items()}}}
    fit_on = {
        "source": source, "questions": len(fit), "answerable": int(y.sum()),
        "should_refuse": int((~y).sum()), "categories": _counts(r.item.category for r in fit),
        "holdout_questions": len(hold), "features": list(features),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "abstain_version": __version__, **(extra_fit_on or {})}
    coefficients = {f: round(w, 6) for f, w in zip(features, model.coefficients, strict=True)}
    probe = Calibration(intercept=round(model.intercept, 6), coefficients=coefficients)
    held: dict[str, Any] = {}
    control: RiskControl | None = None
    if hold:
        conf = recalibrated(hold, probe)
        pos = [r.should_answer for r in hold]
        held = {"questions": len(hold), "auroc": _clean(auroc(conf, pos)),
                "ece": _clean(ece(conf, pos)[0]),
                "log_loss": _clean(log_loss(np.asarray(conf), pos))}
        metrics["holdout"] = held
    if alpha is not None:
        target = hold or fit
        control = control_risk(
            recalibrated(target, probe), [r.should_answer for r in target], alpha=alpha,
            delta=delta, risk=risk,
            base_pass=[r.passes_except(CONFIDENCE_CHECK) for r in target],
            exempt=[r.curated for r in target])
        if hold and not control.certified and control.needed:
            total = math.ceil(control.needed * len(usable) / len(hold))
            control = replace(control, message=control.message + (
                f"; certification uses the held-out part only, so with --holdout "
                f"{holdout:g} that is about {total} labelled questions in all"))
        metrics["risk_control"] = {
            **control.to_json(),
            "certified_on": "holdout" if hold else "the fit data (no holdout: optimistic)"}
    calibration = Calibration(
        intercept=probe.intercept, coefficients=coefficients, version=1, name=f"fit:{source}",
        description="Logistic regression fit by `abstain calibrate` (L2, cross-validated); "
                    "confidence = P(the documents answer the question | features).",
        fit_on=fit_on, metrics=metrics,
        gate_threshold=control.threshold if control and control.certified
        and control.threshold is not None else None)
    return CalibrationFit(calibration, control, fit_idx, hold_idx, held)


def _counts(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out
