"""Fit the answer confidence on several domains, judge it leaving one domain out, and choose
its gate threshold by risk control.

The input is one run per domain recorded with ``abstain eval --answer-all``
(:mod:`abstain.evaluate.answer_all`): every question carries the gate checks' values and
verdicts and the answer the pipeline would have given. The label is that answer being
*right* (:attr:`QuestionRecord.right`); a question the generator found nothing to say about,
or that should have been refused, is not right.

* The model (:class:`~abstain.answer_confidence.AnswerConfidence`) is an L2-regularised
  logistic over :func:`~abstain.answer_confidence.signals`, a domain of n questions
  weighing √n (a large domain does not set the others' probabilities).
* A vetoed question (:data:`~abstain.answer_confidence.VETOES`) states the share of vetoed
  questions that answering got right on the fit data (smoothed), whatever the model says.
* **Leave one domain out**: for each domain, the model (its L2 strength chosen by leaving
  out each of the *other* domains in turn) is fitted on the others and judged on it: ECE
  and AUROC of the stated confidence against "right", and the same for the confidence the
  records carry (the one before).
* The thresholds: Learn-then-Test (:func:`abstain.evaluate.risk.control_risk`, the
  procedure of ``abstain calibrate --max-false-accept``) on the pooled questions, each
  scored by the model that did not see its domain. The controlled risk is ``refusable``'s
  with "right" as the label: of the questions whose answer would be wrong, the share that
  is answered (it does not depend on the mix of questions). One threshold per preset
  (:data:`PRESET_ALPHAS`); ``balanced``'s is the model's ``threshold``.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abstain import __version__
from abstain.answer_confidence import VETOES, AnswerConfidence, signals
from abstain.evaluate.answer_all import gate_decision
from abstain.evaluate.logistic import fit_logistic, log_loss
from abstain.evaluate.metrics import auroc, ece
from abstain.evaluate.records import CONFIDENCE_CHECK, QuestionRecord
from abstain.evaluate.risk import control_risk

DEFAULT_SIGNALS = ("top_fused_norm", "informative_coverage", "passage_coverage",
                   "chunk_confidence", "answer_type_found", "entity_in_evidence",
                   "checks_passed")
PRESET_ALPHAS = {"strict": 0.2, "balanced": 0.3, "lenient": 0.4}
"""Per preset, the largest share of would-be-wrong answers it may give (risk control)."""
L2_GRID = (0.1, 1.0, 10.0, 100.0)


@dataclass(frozen=True, slots=True)
class Row:
    """One recorded question as the fit sees it."""

    domain: str
    values: dict[str, float]
    right: bool
    vetoed: bool
    gate_passed: bool
    """The real gate answered it (no gate check failed)."""
    answered: bool
    """The generator gave an answer (with ``--answer-all``: for every question it could)."""
    before: float
    """The confidence the pipeline stated before this model (:mod:`abstain.stated_confidence`
    over the recorded checks)."""


def rows(domain: str, records: Sequence[QuestionRecord]) -> list[Row]:
    out = []
    for r in records:
        if r.error is not None:
            continue
        decision = gate_decision(r)
        out.append(Row(domain, signals(r.features, r.checks), r.right, decision in VETOES,
                       decision is None, r.answered, _before(r, decision, domain)))
    return out


def _before(record: QuestionRecord, decision: str | None, domain: str) -> float:
    """The one confidence as stated before this model: the retrieval calibration for an
    answer, the deciding check's refusal rate for a refusal — counted on the other domains
    (the shipped counts less ``domain``'s), so that it too is judged on a domain it did not
    see."""
    from abstain.records import Check
    from abstain.stated_confidence import shipped_counts
    from abstain.stated_confidence import stated as stated_before

    calibrated = record.check(CONFIDENCE_CHECK)
    value = calibrated.value if calibrated is not None and calibrated.value is not None else 0.0
    checks = [Check(c.name, c.passed, c.value, c.threshold, "", c.reason)
              for c in record.checks]
    answered = decision is None and record.answered
    reason = decision if decision is not None else None if answered else record.reason
    others = {d: c for d, c in shipped_counts().items() if d != domain}
    return stated_before(value, checks, answered=answered, reason=reason, domains=others)


def _matrix(data: Sequence[Row], names: Sequence[str]) -> np.ndarray:
    return np.asarray([[r.values.get(n, 0.0) for n in names] for r in data], dtype=np.float64)


def _weights(data: Sequence[Row]) -> np.ndarray:
    """A domain of n questions weighs √n in total (between one vote per question and one
    per domain: a large domain counts more, but does not set the others' probabilities);
    the weights average 1."""
    sizes: dict[str, int] = {}
    for r in data:
        sizes[r.domain] = sizes.get(r.domain, 0) + 1
    w = np.asarray([1.0 / math.sqrt(sizes[r.domain]) for r in data])
    out: np.ndarray = w * (len(data) / float(w.sum()))
    return out


def veto_rate(data: Sequence[Row]) -> float:
    """Share of vetoed questions whose answer would have been right (+1 / +2 smoothing)."""
    vetoed = [r for r in data if r.vetoed]
    return (sum(r.right for r in vetoed) + 1) / (len(vetoed) + 2)


def fit(data: Sequence[Row], names: Sequence[str], l2: float) -> AnswerConfidence:
    free = [r for r in data if not r.vetoed]
    model = fit_logistic(_matrix(free, names), [r.right for r in free], l2=l2,
                         weights=_weights(free))
    return AnswerConfidence(round(model.intercept, 6),
                            {n: round(w, 6) for n, w in zip(names, model.coefficients,
                                                            strict=True)},
                            threshold=0.5, report={"veto_confidence": round(veto_rate(data), 4)})


def stated(model: AnswerConfidence, row: Row) -> float:
    """The confidence a question states under ``model``: a vetoed one the vetoes' rate."""
    if row.vetoed:
        return float(model.report["veto_confidence"])
    return model.confidence(row.values)


def choose_l2(data: Sequence[Row], names: Sequence[str]) -> float:
    """The L2 strength with the lowest weighted log loss, each domain predicted by a fit on
    the others."""
    domains = sorted({r.domain for r in data})
    if len(domains) < 2:
        return 1.0
    losses = {}
    for lam in L2_GRID:
        total = 0.0
        for held in domains:
            test = [r for r in data if r.domain == held]
            model = fit([r for r in data if r.domain != held], names, lam)
            total += log_loss(np.asarray([stated(model, r) for r in test]),
                              [r.right for r in test])
        losses[lam] = total / len(domains)
    return min(losses, key=lambda lam: (losses[lam], -lam))


def _scores(p: Sequence[float], y: Sequence[bool]) -> dict[str, float | None]:
    a = auroc(p, y)
    return {"ece": round(ece(p, y)[0], 4),
            "auroc": None if math.isnan(a) else round(a, 4)}


def leave_one_domain_out(data: Sequence[Row], names: Sequence[str]
                         ) -> tuple[dict[str, Any], list[float]]:
    """Per domain: judged on it, fitted on the others; and each row's held-out confidence
    (in ``data``'s order)."""
    report: dict[str, Any] = {}
    held_out = [0.0] * len(data)
    for held in sorted({r.domain for r in data}):
        train = [r for r in data if r.domain != held]
        index = [i for i, r in enumerate(data) if r.domain == held]
        test = [data[i] for i in index]
        l2 = choose_l2(train, names)
        model = fit(train, names, l2)
        p = [stated(model, r) for r in test]
        for i, v in zip(index, p, strict=True):
            held_out[i] = v
        y = [r.right for r in test]
        report[held] = {"questions": len(test), "right_if_answered": sum(y),
                        "l2": l2, "answer_confidence": _scores(p, y),
                        "before": _scores([r.before for r in test], y)}
    return report, held_out


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
    lodo, held_out = leave_one_domain_out(data, names)
    l2 = choose_l2(data, names)
    model = fit(data, names, l2)
    controls = {preset: control_risk(held_out, [r.right for r in data], alpha=a, delta=delta,
                                     risk="refusable", base_pass=[not r.vetoed for r in data])
                for preset, a in alphas.items()}
    thresholds = {p: round(c.threshold, 4) for p, c in controls.items()
                  if c.certified and c.threshold is not None}
    main = "balanced" if "balanced" in alphas else next(iter(alphas))
    control = controls[main]
    threshold = thresholds.get(main, 0.5)
    after = [not r.vetoed and c >= threshold for r, c in zip(data, held_out, strict=True)]
    shipped = [not r.vetoed and model.confidence(r.values) >= threshold for r in data]
    report = {
        "label": "right: the answer the pipeline gives (abstain eval --answer-all) cites a gold "
                 "source and holds an answer key or the gold answer",
        "signals": list(names), "l2": l2, "domain_weighting": "each domain weighs the same",
        "veto_confidence": model.report["veto_confidence"],
        "vetoes": sorted(str(v) for v in VETOES),
        "data": {d: {"questions": sum(r.domain == d for r in data),
                     "right_if_answered": sum(r.right for r in data if r.domain == d),
                     **({"records": sources[d]} if sources and d in sources else {})}
                 for d in runs},
        "leave_one_domain_out": lodo,
        "risk_control": {**control.to_json(),
                         "error": "answered, of the questions whose answer would not be right",
                         "scores": "each question scored by the fit that left its domain out"},
        "preset_thresholds": thresholds,
        "preset_risk_control": {p: c.to_json() for p, c in controls.items()},
        "outcomes": {"before": outcomes(data, [r.gate_passed for r in data]),
                     "after": outcomes(data, after), "after_pooled_fit": outcomes(data, shipped),
                     "note": "before: the gate's checks; after: not vetoed and confidence >= "
                             "the balanced threshold, scored by the fit that left the domain "
                             "out (after_pooled_fit: by the shipped fit, which saw it)"},
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "abstain_version": __version__,
    }
    return AnswerConfidence(model.intercept, model.coefficients, threshold,
                            name="answer-confidence", report=report)
