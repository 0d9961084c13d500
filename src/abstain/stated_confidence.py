"""The one confidence an answer states: P(this answer is right), or for a refusal P(answering
would have been right).

The gate's ``calibrated_confidence`` check holds the estimate: the answer confidence
(:mod:`abstain.answer_confidence`, P(right) from every other check's value and verdict), or
with a calibration file or a reading the retrieval calibration (:mod:`abstain.confidence`).
So:

* an **answer** states that confidence, which passed the check and so is at or above its
  threshold. A curated match (:func:`abstain.gate.curated_match`) is exempt from that
  check; its confidence is raised to the threshold.
* a **refusal by the confidence** states that confidence (below the threshold), also when
  a check before it failed too.
* a **refusal by any other check** states the share of questions refused by that check that
  the documents could in fact answer, measured on labelled data (``data/refusal_rates.json``,
  written by ``bench/refusal_rates.py``), when that is lower than the confidence, and never
  more than the gate threshold. Each check's share is shrunk towards the pooled
  share of all checks by :data:`PRIOR_WEIGHT` pseudo-questions, so a check seen rarely borrows
  from the others.

``Answer.confidence`` is this number, ``display_confidence`` is it in percent, and the triage
tier (:func:`abstain.answer.triage`) is a function of it and the verification outcome alone.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from importlib import resources

from abstain.records import Check, CheckName

PRIOR_WEIGHT = 10.0
"""Pseudo-questions at the pooled share added to each check's own counts."""
RATES_FILE = "refusal_rates.json"


Counts = Mapping[str, Mapping[str, Sequence[int]]]
"""Per domain, per deciding check: (questions the documents could answer, questions refused)."""


@functools.cache
def shipped_counts() -> Counts:
    raw = json.loads(resources.files("abstain").joinpath("data", RATES_FILE).read_text())
    domains: Counts = raw["domains"]
    return domains


def refusal_rate(check: str, domains: Counts | None = None) -> float:
    """The estimated share of questions refused by ``check`` that could have been answered,
    from ``domains``' counts (None: the shipped ones), summed over the domains; shrunk towards
    the pooled share of all checks (itself with a uniform prior)."""
    answerable = refused = total_a = total_n = 0
    for counts in (shipped_counts() if domains is None else domains).values():
        for name, (a, n) in counts.items():
            total_a, total_n = total_a + a, total_n + n
            if name == check:
                answerable, refused = answerable + a, refused + n
    pooled = (total_a + 1) / (total_n + 2)
    return (answerable + PRIOR_WEIGHT * pooled) / (refused + PRIOR_WEIGHT)


def gate_threshold(checks: Sequence[Check]) -> float | None:
    """The calibrated-confidence threshold the gate applied (None when it did not run)."""
    found = [c for c in checks if c.name == CheckName.CALIBRATED_CONFIDENCE]
    if not found or not isinstance(found[-1].threshold, int | float):
        return None
    return float(found[-1].threshold)


NOT_ABOUT_THE_EVIDENCE = frozenset({CheckName.GENERATION, CheckName.QUESTION})
"""Checks whose refusal says nothing about whether the documents answer the question."""


def stated(confidence: float, checks: Sequence[Check], *, answered: bool,
           reason: str | None = None, domains: Counts | None = None) -> float:
    """The confidence the answer states (module docstring). The calibrated one stays in the
    audit trail as the ``calibrated_confidence`` check's value. ``domains``: refusal counts
    to use instead of the shipped ones (:func:`refusal_rate`)."""
    floor = gate_threshold(checks)
    if answered:
        return confidence if floor is None else max(confidence, floor)
    deciding = next((c for c in checks if not c.passed
                     and (reason is None or reason in (c.reason, c.name))), None)
    out = confidence
    own = next((c for c in checks if c.name == CheckName.CALIBRATED_CONFIDENCE), None)
    if deciding is not None and deciding.name not in NOT_ABOUT_THE_EVIDENCE | {
            CheckName.CALIBRATED_CONFIDENCE} and (own is None or own.passed):
        out = min(out, refusal_rate(deciding.name, domains))
    return out if floor is None else min(out, floor)
