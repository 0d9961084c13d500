"""Safe refits: a new calibration is judged against the current one on the same questions.

``abstain calibrate`` fits new coefficients by cross-validation; before it writes them it
scores both calibrations on the labelled questions of the fit, fold by fold:

* the new fit by its out-of-fold predictions — each question scored by the fit that did
  not see it, so the new fit gets no credit for memorising its data;
* the model in use (``--calibration FILE`` or ``--answer-confidence FILE``, else the
  shipped one) as it is — it was not fit on these questions.

The new fit is *worse* when it ranks these questions worse (AUROC lower by more than
:data:`AUROC_TOLERANCE`) or states its probabilities less honestly (ECE higher by more than
:data:`ECE_TOLERANCE`); the CLI then refuses to write it unless ``--force``. How many more
labels would help follows the usual rule for a logistic fit: at least
:data:`PER_FEATURE` questions of each label per coefficient.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abstain.confidence import Calibration
from abstain.errors import ConfigError
from abstain.evaluate.logistic import CrossValidation, log_loss
from abstain.evaluate.metrics import _clean, auroc, ece

AUROC_TOLERANCE = 0.01
"""A new fit that ranks the questions this much worse (or more) is worse."""
ECE_TOLERANCE = 0.02
"""A new fit whose calibration error is this much higher (or more) is worse."""
PER_FEATURE = 10
"""Questions of the rarer label per coefficient a logistic fit needs to be stable."""


@dataclass(frozen=True, slots=True)
class Scores:
    auroc: float
    ece: float
    log_loss: float

    @classmethod
    def of(cls, confidences: Sequence[float], positive: Sequence[bool]) -> Scores:
        return cls(auroc(confidences, positive), ece(confidences, positive)[0],
                   log_loss(np.asarray(confidences), positive))

    def to_json(self) -> dict[str, Any]:
        return {"auroc": _clean(self.auroc), "ece": _clean(self.ece),
                "log_loss": _clean(self.log_loss)}


@dataclass(frozen=True, slots=True)
class Comparison:
    """The new fit against the current calibration on the same labelled questions."""

    current: str
    """The name of the model in use."""
    questions: int
    new: Scores
    """Out of fold."""
    old: Scores
    per_fold: tuple[tuple[Scores, Scores], ...]
    """(new, current) on each fold's questions."""
    labels_needed: int | None
    """About how many labelled questions in all a stable fit needs; None when it has them."""
    kind: str = "calibration"
    """What the model in use is: ``calibration`` or ``answer confidence``."""

    @property
    def worse(self) -> bool:
        return bool(self.new.auroc < self.old.auroc - AUROC_TOLERANCE
                    or self.new.ece > self.old.ece + ECE_TOLERANCE)

    @property
    def message(self) -> str:
        verdict = "worse than" if self.worse else "at least as good as"
        text = (f"the new fit is {verdict} the current {self.kind} ({self.current}) on the "
                f"same {self.questions} labelled questions: cross-validated AUROC "
                f"{self.new.auroc:.3f} against {self.old.auroc:.3f} "
                f"({self.new.auroc - self.old.auroc:+.3f}), ECE {self.new.ece:.3f} against "
                f"{self.old.ece:.3f} ({self.new.ece - self.old.ece:+.3f})")
        if not self.worse:
            return text
        if self.labels_needed is not None:
            return text + (f"; a stable fit needs about {self.labels_needed} labelled "
                           f"questions ({self.labels_needed - self.questions} more, at least "
                           f"{PER_FEATURE} of each label per coefficient)")
        return text + (f"; it is not short of labels, so the current {self.kind} suits these "
                       "questions better")

    def to_json(self) -> dict[str, Any]:
        return {"current": self.current, "kind": self.kind, "questions": self.questions,
                "new": self.new.to_json(), "current_scores": self.old.to_json(),
                "worse": self.worse, "labels_needed": self.labels_needed,
                "per_fold": [{"new": n.to_json(), "current": o.to_json()}
                             for n, o in self.per_fold],
                "message": self.message}


def compare(cv: CrossValidation, current: str, current_confidences: Sequence[float],
            positive: Sequence[bool], features: int, kind: str = "calibration") -> Comparison:
    """The cross-validated new fit (``cv``, with its out-of-fold predictions) against the
    confidences of the model in use (named ``current``) on the same questions and folds."""
    y = [bool(v) for v in positive]
    new_p, old_p = list(cv.predictions), list(current_confidences)
    folds = []
    for f in sorted(set(cv.fold_of)):
        rows = [i for i, k in enumerate(cv.fold_of) if k == f]
        ys = [y[i] for i in rows]
        folds.append((Scores.of([new_p[i] for i in rows], ys),
                      Scores.of([old_p[i] for i in rows], ys)))
    return Comparison(current, len(y), Scores.of(new_p, y), Scores.of(old_p, y),
                      tuple(folds), labels_needed(y, features), kind)


def labels_needed(positive: Sequence[bool], features: int) -> int | None:
    """Labelled questions in all for :data:`PER_FEATURE` of the rarer label per coefficient
    (at the present share of that label); None when there are enough."""
    n = len(positive)
    rarer = min(sum(positive), n - sum(positive))
    want = PER_FEATURE * (features + 1)
    if rarer >= want:
        return None
    share = max(rarer, 1) / max(n, 1)
    return max(n + 1, math.ceil(want / share))


def current_confidences(current: Calibration, features: Sequence[Any]) -> list[float] | None:
    """The current calibration's confidence for each question's features; None when it
    needs a feature the questions lack (the reading calibration on unread questions)."""
    try:
        return [current.confidence(f) for f in features]
    except ConfigError:
        return None
