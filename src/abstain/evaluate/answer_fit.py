"""Fit the answer confidence on several domains, judge it leaving one domain out, and choose
its gate thresholds by risk control.

The input is one run per domain recorded with ``abstain eval --answer-all``
(:mod:`abstain.evaluate.answer_all`): every question carries the gate checks' values and
verdicts and the answer the pipeline would have given. The label is that answer being
*right* (:attr:`QuestionRecord.right`); a question the generator found nothing to say about,
or that should have been refused, is not right.

* The model (:class:`~abstain.answer_confidence.AnswerConfidence`) is an L2-regularised
  logistic over :func:`~abstain.answer_confidence.signals`, a domain of n questions
  weighing √n (a large domain does not set the others' probabilities), its L2 strength
  chosen by leaving out each domain in turn.
* What a question states is what the pipeline would state
  (:func:`abstain.stated_confidence.stated`): an answer its P(right), a refusal by the
  confidence that P(right), a refusal by another check the lower of P(right) and that
  check's refusal rate (counted on the other domains only).
* **Leave one domain out**: for each domain, the model is fitted on the others and judged
  on it: ECE and AUROC of the stated confidence against "right", beside the confidence as
  stated before (the retrieval calibration, also with the other domains' refusal rates).
* The thresholds: Learn-then-Test (:func:`abstain.evaluate.risk.control_risk`, the
  procedure of ``abstain calibrate --max-false-accept``) on the pooled questions, each
  scored by the fit that left its domain out. The controlled risk is ``refusable``'s with
  "right" as the label — of the questions whose answer would be wrong, the share that is
  answered (it does not depend on the mix of questions) — among the questions every other
  gate check passes. One threshold per preset (:data:`PRESET_ALPHAS`); ``balanced``'s is the
  model's ``threshold``.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abstain import __version__
from abstain.answer_confidence import AnswerConfidence, shipped_answer_confidence, signals
from abstain.evaluate.answer_all import first_failing, gate_decision
from abstain.evaluate.logistic import fit_logistic, log_loss
from abstain.evaluate.metrics import auroc, ece
from abstain.evaluate.records import CONFIDENCE_CHECK, QuestionRecord
from abstain.evaluate.risk import control_risk
from abstain.records import Check, CheckName, RefusalReason
from abstain.stated_confidence import Counts, shipped_counts, stated

DEFAULT_SIGNALS = ("top_fused_norm", "informative_coverage", "passage_coverage",
                   "chunk_confidence", "answer_type_found", "entity_in_evidence",
                   "checks_passed")
PRESET_ALPHAS = {"strict": 0.3, "balanced": 0.42, "lenient": 0.45}
"""Per preset, the largest share of the questions whose answer would be wrong that may be
answered (risk control). ``balanced``'s is the strictest level, in steps of 0.01, at which
no domain's answer precision falls on the recorded data (docs/EVALUATION.md); at 0.43 and
above the other checks alone keep the promise and the certified threshold is 0."""
L2_GRID = (0.1, 1.0, 10.0, 100.0)


@dataclass(frozen=True, slots=True)
class Row:
    """One recorded question as the fit sees it."""

    domain: str
    values: dict[str, float]
    right: bool
    gate_passed: bool
    """Every gate check but the confidence passed."""
    old_passed: bool
    """The gate as recorded passed it (its confidence check on the retrieval calibration)."""
    answered: bool
    """The generator gave an answer (with ``--answer-all``: for every question it could)."""
    checks: tuple[Check, ...]
    reason: str | None
    """The refusal reason a check other than the confidence gave (None: none)."""
    before: float
    """The confidence as stated before any answer confidence (:mod:`abstain.stated_confidence`
    over the recorded checks, with the other domains' refusal rates): an ``--answer-all``
    record's confidence check is the retrieval calibration's, not the shipped answer
    confidence's, so this is *not* what the default states (:func:`stated_under` with
    :func:`~abstain.answer_confidence.shipped_answer_confidence` is)."""


def others(domain: str) -> Counts:
    """The shipped refusal counts less ``domain``'s: the rates a domain did not set."""
    return {d: c for d, c in shipped_counts().items() if d != domain}


def rows(domain: str, records: Sequence[QuestionRecord]) -> list[Row]:
    out = []
    for r in records:
        if r.error is None:
            out.append(_row(domain, r))
    return out


def _row(domain: str, record: QuestionRecord) -> Row:
    checks = tuple(Check(c.name, c.passed, c.value, c.threshold, "", c.reason)
                   for c in record.checks)
    failing = first_failing(checks, confidence=False)
    reason = (failing.reason or failing.name if failing is not None
              else None if record.answered else record.reason)
    calibrated = record.check(CONFIDENCE_CHECK)
    old = calibrated.value if calibrated is not None and calibrated.value is not None else 0.0
    decision = gate_decision(record)
    old_answered = decision is None and record.answered
    before = stated(old, checks, answered=old_answered,
                    reason=decision or (None if old_answered else record.reason),
                    domains=others(domain))
    return Row(domain, signals(record.features, record.checks), record.right,
               failing is None, decision is None, record.answered, checks, reason, before)


def _matrix(data: Sequence[Row], names: Sequence[str]) -> np.ndarray:
    return np.asarray([[r.values.get(n, 0.0) for n in names] for r in data], dtype=np.float64)


def domain_weights(data: Sequence[Row]) -> np.ndarray:
    """A domain of n questions weighs √n in total (between one vote per question and one
    per domain: a large domain counts more, but does not set the others' probabilities);
    the weights average 1."""
    sizes: dict[str, int] = {}
    for r in data:
        sizes[r.domain] = sizes.get(r.domain, 0) + 1
    w = np.asarray([1.0 / math.sqrt(sizes[r.domain]) for r in data])
    out: np.ndarray = w * (len(data) / float(w.sum()))
    return out


def fit(data: Sequence[Row], names: Sequence[str], l2: float) -> AnswerConfidence:
    model = fit_logistic(_matrix(data, names), [r.right for r in data], l2=l2,
                         weights=domain_weights(data))
    return AnswerConfidence(round(model.intercept, 6),
                            {n: round(w, 6) for n, w in zip(names, model.coefficients,
                                                            strict=True)}, threshold=0.5,
                            report={"l2": l2})


def answered_under(model: AnswerConfidence, row: Row, threshold: float | None = None) -> bool:
    """The pipeline answers ``row`` with ``model`` deciding at ``threshold`` (None: the
    model's own): every other check passed, an answer was given, P(right) reaches it."""
    t = model.threshold if threshold is None else threshold
    return row.gate_passed and row.answered and model.confidence(row.values) >= t


def stated_under(model: AnswerConfidence, row: Row, threshold: float | None = None) -> float:
    """What the pipeline states for ``row`` with ``model`` deciding at ``threshold`` (None:
    the model's own), refusal rates from the other domains."""
    t = model.threshold if threshold is None else threshold
    p = model.confidence(row.values)
    answered = answered_under(model, row, t)
    checks = [c for c in row.checks if c.name != CONFIDENCE_CHECK]
    checks.append(Check(CheckName.CALIBRATED_CONFIDENCE, p >= t, p, t, "",
                        RefusalReason.LOW_CONFIDENCE))
    reason = row.reason if row.reason is not None else (
        None if answered else RefusalReason.LOW_CONFIDENCE)
    return stated(p, checks, answered=answered, reason=reason, domains=others(row.domain))


def choose_l2(data: Sequence[Row], names: Sequence[str]) -> float:
    """The L2 strength with the lowest log loss of P(right), each domain predicted by a fit
    on the others (averaged over domains)."""
    domains = sorted({r.domain for r in data})
    if len(domains) < 2:
        return 1.0
    losses = {}
    for lam in L2_GRID:
        total = 0.0
        for held in domains:
            test = [r for r in data if r.domain == held]
            model = fit([r for r in data if r.domain != held], names, lam)
            total += log_loss(model_scores(model, test), [r.right for r in test])
        losses[lam] = total / len(domains)
    return min(losses, key=lambda lam: (losses[lam], -lam))


def model_scores(model: AnswerConfidence, data: Sequence[Row]) -> np.ndarray:
    return np.asarray([model.confidence(r.values) for r in data])


def _scores(p: Sequence[float], y: Sequence[bool]) -> dict[str, float | None]:
    a = auroc(p, y)
    return {"ece": round(ece(p, y)[0], 4),
            "auroc": None if math.isnan(a) else round(a, 4)}


def leave_one_domain_out(data: Sequence[Row], names: Sequence[str],
                         threshold: Callable[[list[float]], float] | None = None
                         ) -> tuple[dict[str, Any], list[float], dict[str, AnswerConfidence]]:
    """Per domain: fitted on the others and judged on it; each row's P(right) from the fit
    that left its domain out (in ``data``'s order); and those fits."""
    report: dict[str, Any] = {}
    held_out = [0.0] * len(data)
    fits = {}
    for held in sorted({r.domain for r in data}):
        index = [i for i, r in enumerate(data) if r.domain == held]
        train = [r for r in data if r.domain != held]
        fits[held] = fit(train, names, choose_l2(train, names))
        for i in index:
            held_out[i] = fits[held].confidence(data[i].values)
    return report, held_out, fits


def judge(data: Sequence[Row], fits: Mapping[str, AnswerConfidence], threshold: float
          ) -> dict[str, Any]:
    """Per held-out domain: ECE / AUROC of what the pipeline would state with the fit that
    left it out (``answer_confidence``), with the shipped model as the default runs
    (``shipped``), and before any answer confidence (``before``: the retrieval calibration,
    as ``--answer-all`` records hold it)."""
    out: dict[str, Any] = {}
    shipped = shipped_answer_confidence()
    for held, model in fits.items():
        test = [r for r in data if r.domain == held]
        y = [r.right for r in test]
        out[held] = {"questions": len(test), "right_if_answered": sum(y),
                     "fit_on": sorted(d for d in fits if d != held),
                     "l2": model.report.get("l2"),
                     "answer_confidence": _scores([stated_under(model, r, threshold)
                                                   for r in test], y),
                     "shipped": _scores([stated_under(shipped, r) for r in test], y),
                     "before": _scores([r.before for r in test], y)}
    return out


def outcomes(data: Sequence[Row], answered: Sequence[bool]) -> dict[str, Any]:
    """Answer precision, right answers and answers given, per domain."""
    out: dict[str, Any] = {}
    for domain in sorted({r.domain for r in data}):
        pairs = [(r, a) for r, a in zip(data, answered, strict=True) if r.domain == domain]
        given = sum(a and r.answered for r, a in pairs)
        right = sum(a and r.answered and r.right for r, a in pairs)
        out[domain] = {"answers": given, "right": right,
                       "precision": round(right / given, 4) if given else None}
    return out


def fit_answer_confidence(runs: Mapping[str, Sequence[QuestionRecord]], *,
                          names: Sequence[str] = DEFAULT_SIGNALS,
                          alphas: Mapping[str, float] = PRESET_ALPHAS, delta: float = 0.05,
                          sources: Mapping[str, str] | None = None) -> AnswerConfidence:
    """The shipped model's fit: pooled over ``runs`` (domain -> answer-all records), with the
    leave-one-domain-out report and the risk-controlled thresholds (one per preset named in
    ``alphas``; ``balanced``'s, else the first, is the model's) in ``report``."""
    data = [row for domain, records in runs.items() for row in rows(domain, records)]
    _, held_out, fits = leave_one_domain_out(data, names)
    l2 = choose_l2(data, names)
    model = fit(data, names, l2)
    controls = {preset: control_risk(held_out, [r.right for r in data], alpha=a, delta=delta,
                                     risk="refusable",
                                     base_pass=[r.gate_passed for r in data])
                for preset, a in alphas.items()}
    thresholds = {p: round(c.threshold, 4) for p, c in controls.items()
                  if c.certified and c.threshold is not None}
    main = "balanced" if "balanced" in alphas else next(iter(alphas))
    threshold = thresholds.get(main, 0.5)
    after = [r.gate_passed and c >= threshold for r, c in zip(data, held_out, strict=True)]
    pooled = [r.gate_passed and model.confidence(r.values) >= threshold for r in data]
    report = {
        "label": "right: the answer the pipeline gives (abstain eval --answer-all) cites a gold "
                 "source and holds an answer key or the gold answer",
        "signals": list(names), "l2": l2,
        "domain_weighting": "a domain of n questions weighs sqrt(n)",
        "data": {d: {"questions": sum(r.domain == d for r in data),
                     "right_if_answered": sum(r.right for r in data if r.domain == d),
                     **({"records": sources[d]} if sources and d in sources else {})}
                 for d in runs},
        "leave_one_domain_out": judge(data, fits, threshold),
        "risk_control": {**controls[main].to_json(),
                         "error": "answered, of the questions whose answer would not be right "
                                  "(among those every other gate check passes)",
                         "scores": "each question scored by the fit that left its domain out"},
        "preset_thresholds": thresholds,
        "preset_alphas": dict(alphas),
        "outcomes": {"before": outcomes(data, [r.old_passed for r in data]),
                     "after": outcomes(data, after), "after_pooled_fit": outcomes(data, pooled),
                     "note": "before: the gate's checks with the retrieval calibration; "
                             "after: the same checks and P(right) >= the balanced threshold, "
                             "scored by the fit that left the domain out (after_pooled_fit: "
                             "by the shipped fit, which saw it)"},
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "abstain_version": __version__,
    }
    return AnswerConfidence(model.intercept, model.coefficients, threshold,
                            name="answer-confidence", report=report)
