"""Answer every question as if the gate had passed it, and keep each check's verdict.

An answer's confidence estimates P(this answer is right), and a refusal's P(answering would
have been right): to fit and judge that on labelled questions, each refused question needs
the answer the pipeline would have given. :class:`ObservingGate` runs every check of the
real gate (same thresholds, same order, same values) and reports them as they are, failing
ones included, but never refuses: the question goes on to the generator. The record then
holds both what the gate decided (:func:`gate_decision`) and what answering would have
said (its answer text and citations, judged by the labels as any answer is).

``abstain eval --answer-all`` runs this way; records saved with it are what
``bench/fit_answer_confidence.py`` fits on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, TypeVar

from abstain.answer_confidence import CheckLike
from abstain.evaluate.records import QuestionRecord
from abstain.gate import CHECKS, Gate, GateInput, GateResult, deciding
from abstain.records import CheckName

GATE_CHECKS = frozenset({*(str(c.name) for c in CHECKS), str(CheckName.QUOTE_READING)})
"""The names of the gate's own checks (user rules are named ``rule:NAME``), and the reader's
check of the extractive answer's quote, which refuses before anything is shown."""


class ObservingGate(Gate):
    """The real gate's checks, reported with their verdicts; the question always passes."""

    def evaluate(self, data: GateInput, *args: Any, **kwargs: Any) -> GateResult:
        result = super().evaluate(data, *args, **kwargs)
        return replace(result, passed=True, failed=None)


    def weigh(self, result: GateResult, data: GateInput) -> tuple[GateResult, float]:
        """The checks' own verdicts, unweighed (what the answer confidence is fitted on)."""
        return result, data.confidence


def observing(gate: Gate) -> ObservingGate:
    """The same thresholds and rules, never refusing."""
    return ObservingGate(gate.thresholds, gate.rules, gate.answer_confidence)


V = TypeVar("V", bound=CheckLike)


def first_failing(checks: Iterable[V], *, confidence: bool = True) -> V | None:
    """The failing check that refuses before anything is shown (:func:`abstain.gate.deciding`
    of the failing ones): one of the gate's own (:data:`GATE_CHECKS`, the confidence's own
    unless ``confidence`` is False) or a user rule."""
    return deciding([c for c in checks if not c.passed
                     and (c.name in GATE_CHECKS or c.name.startswith("rule:"))
                     and (confidence or c.name != CheckName.CALIBRATED_CONFIDENCE)])


def gate_decision(record: QuestionRecord) -> str | None:
    """The refusal reason the real pipeline gave before anything was shown (or would have
    given, for a record saved with ``--answer-all``): the first failing gate check's, or the
    extractive answer's ``quote_reading``; None when it passed them all."""
    failing = first_failing(record.checks)
    if failing is None:
        return None
    return failing.reason or failing.name
