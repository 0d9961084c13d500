"""The verifier seam: one method, a support score for one sentence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

DEFAULT_SUPPORT_THRESHOLD = 0.5
"""Support below which a sentence is removed: scores are probability-like, so the line
sits at even odds (the reader's support head is evaluated at p = 0.5, docs/MODEL_CARD.md)."""


@runtime_checkable
class Verifier(Protocol):
    """Scores how well ``evidence_texts`` support ``sentence``: 0 (not at all) to 1.

    Optional plain attributes, read when present: ``name`` (shown in the audit
    trail), ``threshold`` (the support below which a sentence is removed;
    default 0.5) and ``note`` (recorded in every verified answer's notes).
    """

    def check(self, sentence: str, evidence_texts: Sequence[str]) -> float: ...


def verifier_name(verifier: Verifier) -> str:
    return str(getattr(verifier, "name", type(verifier).__name__))


def support_threshold(verifier: Verifier) -> float:
    return float(getattr(verifier, "threshold", DEFAULT_SUPPORT_THRESHOLD))
