"""Fit confidence coefficients on recorded questions, and certify a threshold.

``abstain calibrate`` refits one of two models, the same way (:func:`refit`):

* the **retrieval calibration** (:func:`fit_calibration`): a logistic over the features of
  :class:`~abstain.confidence.AnswerFeatures`, labelled by the question's ``expected``
  field — P(the documents can answer the question | its features);
* the **answer confidence** (:func:`abstain.evaluate.answer_refit.refit_answer_confidence`):
  a logistic over every gate signal, labelled by whether the answer was right.

The fit is a cross-validated L2 logistic regression (:mod:`abstain.evaluate.logistic`);
the new fit is compared with the model in use on the same questions and folds
(:mod:`abstain.evaluate.refit`). With a risk target, the questions are first split by
group (a SQuAD article, say) into a fit part and a hold-out part: the coefficients are fit
on the first, the threshold is certified on the second (:mod:`abstain.evaluate.risk`), so
the guarantee is not spoiled by reusing the data the model was fit on.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from abstain import __version__
from abstain.confidence import Calibration, logistic
from abstain.evaluate.data import split_groups
from abstain.evaluate.logistic import cross_validate, fit_logistic, log_loss
from abstain.evaluate.metrics import _clean, auroc, ece
from abstain.evaluate.records import CONFIDENCE_CHECK, QuestionRecord
from abstain.evaluate.refit import Comparison, compare, current_confidences
from abstain.evaluate.risk import RiskControl, control_risk
from abstain.records import AnswerFeatures

READING_FEATURE = "answerability"
FEATURES = tuple(f.name for f in fields(AnswerFeatures)
                 if f.name not in ("missing_terms", READING_FEATURE))
"""The retrieval-level features every question has."""
READING_FEATURES = (*FEATURES, READING_FEATURE)
"""With the reader's answerability: the questions the reader read (``--reader``)."""


@dataclass(frozen=True, slots=True)
class Target:
    """What a refit learns: each record's named inputs and label, and the model in use."""

    features: tuple[str, ...]
    values: Callable[[QuestionRecord], Mapping[str, float]]
    label: Callable[[QuestionRecord], bool]
    label_names: tuple[str, str]
    """How the two labels read in messages: (positive, negative)."""
    current: str | None = None
    """The name of the model in use (None: no comparison)."""
    current_confidences: Callable[[Sequence[QuestionRecord]], list[float] | None] | None = None
    """The model in use's confidence per record (None: it needs inputs they lack)."""
    kind: str = "calibration"
    """What the model is, in messages."""


@dataclass(frozen=True, slots=True)
class Refit:
    """A cross-validated fit of a :class:`Target`, judged against the model in use."""

    intercept: float
    coefficients: dict[str, float]
    fit_on: dict[str, Any]
    metrics: dict[str, Any]
    risk: RiskControl | None
    fit_indices: list[int]
    holdout_indices: list[int]
    holdout: dict[str, Any] = field(default_factory=dict)
    comparison: Comparison | None = None
    """The new fit against the model in use on the same questions and folds."""

    @property
    def threshold(self) -> float | None:
        """The certified gate threshold; None without one."""
        r = self.risk
        return r.threshold if r is not None and r.certified else None


@dataclass(frozen=True, slots=True)
class CalibrationFit:
    calibration: Calibration
    risk: RiskControl | None
    fit_indices: list[int]
    holdout_indices: list[int]
    holdout: dict[str, Any] = field(default_factory=dict)
    comparison: Comparison | None = None
    """The new fit against ``current`` on the same questions (:mod:`abstain.evaluate.refit`)."""


def feature_matrix(records: Sequence[QuestionRecord], names: Sequence[str] = FEATURES,
                   values: Callable[[QuestionRecord], Mapping[str, float]] | None = None
                   ) -> np.ndarray:
    """One row per record: its ``names`` (0 where missing), from ``values`` (a
    :class:`Target`'s; None: the recorded features)."""
    return np.asarray([[(r.features if values is None else values(r)).get(f, 0.0)
                        for f in names] for r in records], dtype=np.float64)


def recalibrated(records: Sequence[QuestionRecord], calibration: Calibration) -> list[float]:
    """The confidence each record gets under ``calibration`` (the pipeline's own formula)."""
    return [calibration.confidence(record_features(r)) for r in records]


def record_features(record: QuestionRecord) -> AnswerFeatures:
    values: dict[str, Any] = {f: record.features.get(f, 0.0) for f in FEATURES}
    return AnswerFeatures(**values, answerability=record.features.get(READING_FEATURE))


def read_records(records: Sequence[QuestionRecord]) -> list[QuestionRecord]:
    """The records whose evidence the reader read (they carry its answerability)."""
    return [r for r in records if READING_FEATURE in r.features]


def split(records: Sequence[QuestionRecord], target: Target, holdout: float, seed: int
          ) -> tuple[list[QuestionRecord], list[int], list[int]]:
    """The usable records (no error, features recorded), and the indices of the part the
    model is fitted on and of the part held out (``holdout``: its share, by group)."""
    usable = [r for r in records if r.error is None and r.features]
    yes, no = target.label_names
    if len(usable) < 10 or len({target.label(r) for r in usable}) < 2:
        raise ValueError(f"need at least 10 labelled questions in all, some {yes!r} and some "
                         f"{no!r} (these are {len(usable)}: "
                         f"{sum(target.label(r) for r in usable)} {yes!r})")
    fit_idx, hold_idx = (split_groups([r.item for r in usable], holdout, seed=seed)
                         if holdout > 0 else (list(range(len(usable))), []))
    return usable, fit_idx, hold_idx


def described(fit: Sequence[QuestionRecord], hold: Sequence[QuestionRecord], target: Target,
              source: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The labelled questions a model was fitted on, as its file records them."""
    yes, no = target.label_names
    right = sum(target.label(r) for r in fit)
    return {"source": source, "questions": len(fit), yes: right, no: len(fit) - right,
            "categories": _counts(r.item.category for r in fit),
            "holdout_questions": len(hold), "features": list(target.features),
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "abstain_version": __version__, **(extra or {})}


def refit(records: Sequence[QuestionRecord], target: Target, *, source: str, folds: int = 5,
          holdout: float = 0.0, alpha: float | None = None, delta: float = 0.05,
          risk: str = "answered", seed: int = 0,
          extra_fit_on: dict[str, Any] | None = None) -> Refit:
    """Cross-validate and fit ``target`` on ``records``; compare the out-of-fold
    predictions with the model in use on the same folds; with ``alpha``, certify a
    threshold on the held-out part (``holdout``, by group)."""
    usable, fit_idx, hold_idx = split(records, target, holdout, seed)
    fit = [usable[i] for i in fit_idx]
    hold = [usable[i] for i in hold_idx]
    names = target.features
    x = feature_matrix(fit, names, target.values)
    y = np.asarray([target.label(r) for r in fit])
    groups = [r.item.group or f"#{i}" for i, r in enumerate(fit)]
    cv = cross_validate(x, y, folds=folds, groups=groups, seed=seed)
    model = fit_logistic(x, y, l2=cv.l2)
    metrics: dict[str, Any] = {"cross_validation": {
        "folds": cv.folds, "l2": cv.l2, "log_loss": _clean(cv.log_loss),
        "brier": _clean(cv.brier), "auroc": _clean(cv.auroc), "ece": _clean(cv.ece),
        "log_loss_by_l2": {str(k): _clean(v) for k, v in cv.by_l2.items()}}}
    comparison = None
    old = target.current_confidences(fit) if target.current_confidences is not None else None
    if target.current is not None and old is not None:
        comparison = compare(cv, target.current, old, list(y), len(names), target.kind)
        metrics["compared_with_current"] = comparison.to_json()
    fit_on = described(fit, hold, target, source, extra_fit_on)
    coefficients = {f: round(w, 6) for f, w in zip(names, model.coefficients, strict=True)}
    intercept = round(model.intercept, 6)

    def scored(part: Sequence[QuestionRecord]) -> list[float]:
        return [logistic(intercept, coefficients, target.values(r)) for r in part]

    held, control = certify(fit, hold, scored, target.label, metrics, alpha=alpha,
                            delta=delta, risk=risk, holdout=holdout, total=len(usable))
    return Refit(intercept, coefficients, fit_on, metrics, control, fit_idx, hold_idx, held,
                 comparison)


def certify(fit: Sequence[QuestionRecord], hold: Sequence[QuestionRecord],
            scored: Callable[[Sequence[QuestionRecord]], list[float]],
            label: Callable[[QuestionRecord], bool], metrics: dict[str, Any], *,
            alpha: float | None, delta: float, risk: str, holdout: float, total: int
            ) -> tuple[dict[str, Any], RiskControl | None]:
    """Judge a new model (``scored``) on the held-out part ``hold`` and, with ``alpha``,
    certify its threshold there (on ``fit`` when nothing is held out: optimistic); the
    results also go into ``metrics``. ``total``: the labelled questions in all."""
    held: dict[str, Any] = {}
    control: RiskControl | None = None
    if hold:
        conf = scored(hold)
        pos = [label(r) for r in hold]
        held = {"questions": len(hold), "auroc": _clean(auroc(conf, pos)),
                "ece": _clean(ece(conf, pos)[0]),
                "log_loss": _clean(log_loss(np.asarray(conf), pos))}
        metrics["holdout"] = held
    if alpha is not None:
        target_part = hold or fit
        control = control_risk(
            scored(target_part), [label(r) for r in target_part], alpha=alpha,
            delta=delta, risk=risk,
            base_pass=[r.passes_except(CONFIDENCE_CHECK) for r in target_part],
            exempt=[r.curated for r in target_part])
        if hold and not control.certified and control.needed:
            needed = math.ceil(control.needed * total / len(hold))
            control = replace(control, message=control.message + (
                f"; certification uses the held-out part only, so with --holdout "
                f"{holdout:g} that is about {needed} labelled questions in all"))
        metrics["risk_control"] = {
            **control.to_json(),
            "certified_on": "holdout" if hold else "the fit data (no holdout: optimistic)"}
    return held, control


def calibration_target(features: Sequence[str] = FEATURES,
                       current: Calibration | None = None) -> Target:
    """The retrieval calibration: labelled by the question's ``expected`` field."""
    def values(r: QuestionRecord) -> Mapping[str, float]:
        return r.features

    def old(part: Sequence[QuestionRecord]) -> list[float] | None:
        assert current is not None
        return current_confidences(current, [record_features(r) for r in part])

    return Target(tuple(features), values, lambda r: r.should_answer,
                  ("answerable", "should_refuse"),
                  None if current is None else current.name,
                  None if current is None else old)


def fit_calibration(records: Sequence[QuestionRecord], *, source: str, folds: int = 5,
                    holdout: float = 0.0, alpha: float | None = None, delta: float = 0.05,
                    risk: str = "answered", seed: int = 0,
                    extra_fit_on: dict[str, Any] | None = None,
                    features: Sequence[str] = FEATURES,
                    current: Calibration | None = None) -> CalibrationFit:
    """``features``: :data:`FEATURES`, or :data:`READING_FEATURES` for the calibration used
    once the reader has read the evidence (fit it on :func:`read_records`). ``current``: the
    calibration in use, judged on the same questions and folds as the new fit
    (``comparison``; None when it needs features the questions lack)."""
    result = refit(records, calibration_target(features, current), source=source,
                   folds=folds, holdout=holdout, alpha=alpha, delta=delta, risk=risk,
                   seed=seed, extra_fit_on=extra_fit_on)
    calibration = Calibration(
        intercept=result.intercept, coefficients=result.coefficients, version=1,
        name=f"fit:{source}",
        description="Logistic regression fit by `abstain calibrate` (L2, cross-validated); "
                    "confidence = P(the documents answer the question | features).",
        fit_on=result.fit_on, metrics=result.metrics, gate_threshold=result.threshold)
    return CalibrationFit(calibration, result.risk, result.fit_indices,
                          result.holdout_indices, result.holdout, result.comparison)


def _counts(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out
