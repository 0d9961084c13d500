"""Safe refits: a new calibration is judged against the current one on the same questions.

``abstain calibrate`` fits new coefficients by cross-validation; before it writes them it
scores both calibrations on the labelled questions of the fit, fold by fold:

* the new fit by its out-of-fold predictions — each question scored by the fit that did
  not see it, so the new fit gets no credit for memorising its data;
* the model in use (``--calibration FILE`` or ``--answer-confidence FILE``, else the
  shipped one) as it is — it was not fit on these questions.

The new fit is *worse* when it ranks these questions worse (AUROC lower by more than
:data:`AUROC_TOLERANCE`) or states its probabilities less honestly (ECE higher by more than
:data:`ECE_TOLERANCE`); the CLI then refuses to write it unless ``--force``. An intercept
offset of the answer confidence (``--refit offset``) must do better: it keeps the model's
ranking but moves which questions pass the threshold, so it is written only when it lowers
ECE by :data:`ECE_TOLERANCE` or more (on documentation it was not fitted on, offsets that
merely did not state worse cost a quarter of the answers at the same precision:
docs/EVALUATION.md). How many more labels would help follows the usual rule for a logistic
fit: at least :data:`PER_FEATURE` questions of each label per coefficient.
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
    decided: int | None = None
    """For an offset: how many of the questions it was fitted on (those every other gate
    check passes); ``labels_needed`` then counts for them."""

    @property
    def worse(self) -> bool:
        """Not to be written: it ranks worse, or states worse — for an offset, not better
        (module docstring)."""
        gain = -ECE_TOLERANCE if self.decided is not None else ECE_TOLERANCE
        return bool(self.new.auroc < self.old.auroc - AUROC_TOLERANCE
                    or self.new.ece > self.old.ece + gain)

    @property
    def message(self) -> str:
        verdict = (("no better than" if self.worse else "better than")
                   if self.decided is not None
                   else "worse than" if self.worse else "at least as good as")
        ranked = (f"AUROC {self.new.auroc:.3f} against {self.old.auroc:.3f} "
                  f"({self.new.auroc - self.old.auroc:+.3f})"
                  if math.isfinite(self.new.auroc) and math.isfinite(self.old.auroc)
                  else "AUROC undefined (one label only)")
        subject = "the new fit" if self.decided is None else "the offset"
        text = (f"{subject} is {verdict} the current {self.kind} ({self.current}) on the "
                f"same {self.questions} labelled questions"
                + ("" if self.decided is None else " as the pipeline states them")
                + f": cross-validated {ranked}, ECE {self.new.ece:.3f} against "
                f"{self.old.ece:.3f} ({self.new.ece - self.old.ece:+.3f})")
        if not self.worse:
            return text
        if self.decided is not None:
            text += (f" (an offset changes which questions are answered, so it must lower ECE "
                     f"by {ECE_TOLERANCE} or more)")
        if self.labels_needed is not None and self.decided is not None:
            share = self.decided / max(self.questions, 1)
            total = max(self.questions + 1, math.ceil(self.labels_needed / max(share, 1e-9)))
            return text + (f"; a stable offset needs about {total} labelled questions "
                           f"({total - self.questions} more, for at least {PER_FEATURE} of "
                           f"each label among those every other gate check passes)")
        if self.labels_needed is not None:
            return text + (f"; a stable fit needs about {self.labels_needed} labelled "
                           f"questions ({self.labels_needed - self.questions} more, at least "
                           f"{PER_FEATURE} of each label per coefficient)")
        if self.decided is not None:
            return text + (f"; it is not short of labels: the current {self.kind} already "
                           "states these questions about as well")
        return text + (f"; it is not short of labels, so the current {self.kind} suits these "
                       "questions better")

    def to_json(self) -> dict[str, Any]:
        return {"current": self.current, "kind": self.kind, "questions": self.questions,
                "new": self.new.to_json(), "current_scores": self.old.to_json(),
                "worse": self.worse, "labels_needed": self.labels_needed,
                "decided": self.decided,
                "per_fold": [{"new": n.to_json(), "current": o.to_json()}
                             for n, o in self.per_fold],
                "message": self.message}


def compare(cv: CrossValidation, current: str, current_confidences: Sequence[float],
            positive: Sequence[bool], features: int, kind: str = "calibration", *,
            ranked: Sequence[float] | None = None, fitted_on: Sequence[bool] | None = None
            ) -> Comparison:
    """The cross-validated new fit (``cv``, with its out-of-fold predictions) against the
    confidences of the model in use (named ``current``) on the same questions and folds.
    ``ranked``: scores that rank the questions as the new model does, for its AUROC in place
    of the out-of-fold predictions' — for an offset, which ranks them as the model it moves
    (pooled out-of-fold predictions, each fold moved by its own offset, would rank them
    otherwise, and worse: a fold with more positives than the rest gets a lower offset).
    ``fitted_on``: for an offset, the labels of the questions it was fitted on (those every
    other gate check passes), on which the labels it needs are counted."""
    y = [bool(v) for v in positive]
    new_p, old_p = list(cv.predictions), list(current_confidences)

    def scores(rows: Sequence[int]) -> tuple[Scores, Scores]:
        ys = [y[i] for i in rows]
        after = Scores.of([new_p[i] for i in rows], ys)
        if ranked is not None:
            after = Scores(auroc([ranked[i] for i in rows], ys), after.ece, after.log_loss)
        return after, Scores.of([old_p[i] for i in rows], ys)

    folds = tuple(scores([i for i, k in enumerate(cv.fold_of) if k == f])
                  for f in sorted(set(cv.fold_of)))
    new, old = scores(range(len(y)))
    return Comparison(current, len(y), new, old, folds,
                      labels_needed(y if fitted_on is None else fitted_on, features), kind,
                      None if fitted_on is None else len(fitted_on))


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
