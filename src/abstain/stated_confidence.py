"""The one confidence an answer states: P(this answer is right), or for a refusal P(answering
would have been right).

The calibrated confidence (:mod:`abstain.confidence`) estimates the first from the
retrieval (and reading) features; it knows nothing of the word-level checks. So:

* an **answer** states the calibrated confidence, which passed the gate's
  ``calibrated_confidence`` check and so is at or above its threshold. A curated close match
  is exempt from that check; its confidence is raised to the threshold.
* a **refusal by the calibrated confidence** states that confidence (below the threshold).
* a **refusal by any other check** states the share of questions refused by that check that
  the documents could in fact answer, measured on labelled data (``data/refusal_rates.json``,
  written by ``bench/refusal_rates.py``), when that is lower than the calibrated confidence,
  and never more than the gate threshold. Each check's share is shrunk towards the pooled
  share of all checks by :data:`PRIOR_WEIGHT` pseudo-questions, so a check seen rarely borrows
  from the others.

``Answer.confidence`` is this number, ``display_confidence`` is it in percent, and the triage
tier (:func:`abstain.answer.triage`) is a function of it and the verification outcome alone.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from importlib import resources

from abstain.records import Check, CheckName

PRIOR_WEIGHT = 10.0
"""Pseudo-questions at the pooled share added to each check's own counts."""
RATES_FILE = "refusal_rates.json"


@functools.cache
def _counts() -> tuple[dict[str, tuple[int, int]], float]:
    """(answerable, refused) per deciding check, summed over the measured domains; and the
    pooled share with a uniform prior."""
    raw = json.loads(resources.files("abstain").joinpath("data", RATES_FILE).read_text())
    counts: dict[str, tuple[int, int]] = {}
    for domain in raw["domains"].values():
        for name, (answerable, refused) in domain.items():
            a, n = counts.get(name, (0, 0))
            counts[name] = (a + int(answerable), n + int(refused))
    total_a = sum(a for a, _ in counts.values())
    total_n = sum(n for _, n in counts.values())
    return counts, (total_a + 1) / (total_n + 2)


def refusal_rate(check: str) -> float:
    """The estimated share of questions refused by ``check`` that could have been answered."""
    counts, pooled = _counts()
    answerable, refused = counts.get(check, (0, 0))
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
           reason: str | None = None) -> float:
    """The confidence the answer states (module docstring). The calibrated one stays in the
    audit trail as the ``calibrated_confidence`` check's value."""
    floor = gate_threshold(checks)
    if answered:
        return confidence if floor is None else max(confidence, floor)
    deciding = next((c for c in checks if not c.passed
                     and (reason is None or reason in (c.reason, c.name))), None)
    out = confidence
    if deciding is not None and deciding.name not in NOT_ABOUT_THE_EVIDENCE | {
            CheckName.CALIBRATED_CONFIDENCE}:
        out = min(out, refusal_rate(deciding.name))
    return out if floor is None else min(out, floor)
