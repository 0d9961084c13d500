"""Chunk confidence (0–100) and the calibrated answer confidence (0–1).

Chunk confidence is a linear map of cosine distance with a ceiling; beyond the
ceiling a chunk scores 0. It is a consistent scale for
thresholds, not a probability.

Answer confidence is a logistic over named features whose coefficients come
from a calibration file (:func:`default_calibration` holds hand-set starting values;
``abstain calibrate`` refits them on labelled questions).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from abstain.errors import ConfigError
from abstain.evidence import Evidence
from abstain.fuse import RRF_K, max_fused_score
from abstain.question import Question
from abstain.records import AnswerFeatures as AnswerFeatures
from abstain.text import holds_word, joined, stem, stems

DISTANCE_CEILING = 0.65


def chunk_confidence(distance: float | None, ceiling: float = DISTANCE_CEILING) -> float:
    """0–100 from a cosine distance: ``(1 - d) * 100`` below the ceiling, else 0."""
    if distance is None or distance >= ceiling:
        return 0.0
    if distance <= 0:
        return 100.0
    return round((1.0 - distance) * 100.0, 1)


def answer_features(question: Question, evidence: tuple[Evidence, ...], *, rrf_k: int = RRF_K
                    ) -> AnswerFeatures:
    if not evidence:
        return AnswerFeatures(0.0, 0.0, 0.0, 0.0, question.words)
    top = evidence[0].hit
    distances = [e.hit.vector_distance for e in evidence if e.hit.vector_distance is not None]
    coverage, missing = term_coverage(question.words, evidence,
                                      {t.word: t.joins for t in question.terms})
    return AnswerFeatures(
        top_fused_norm=min(1.0, top.fused_score / max_fused_score(rrf_k)),
        in_both=1.0 if top.in_both else 0.0,
        best_cosine=max(0.0, 1.0 - min(distances)) if distances else 0.0,
        term_coverage=coverage,
        missing_terms=missing,
    )


def term_coverage(terms: Sequence[str], evidence: Sequence[Evidence],
                  joins: Mapping[str, Sequence[str]] | None = None
                  ) -> tuple[float, tuple[str, ...]]:
    """Share of the question's content words (:attr:`abstain.question.Question.words`)
    present in the evidence (the same word as everywhere in abstain: stem-equal, or written
    whole on one side and apart on the other, :func:`abstain.text.holds_word`; ``joins``:
    each word's :attr:`~abstain.mentions.Term.joins`), and the absent ones."""
    if not terms:
        return 0.0, ()
    texts = [stems(ev.labelled_text) for ev in evidence]
    present = {s for t in texts for s in t}
    apart = functools.cache(lambda: {j for t in texts for j in joined(t)})
    joins = joins or {}
    missing = tuple(t for t in terms
                    if not holds_word(stem(t), joins.get(t, ()), present, apart))
    return round(1.0 - len(missing) / len(terms), 4), missing


def logistic(intercept: float, coefficients: Mapping[str, float],
             values: Mapping[str, float]) -> float:
    """σ(intercept + Σ wᵢ·valuesᵢ) (a value missing counts as 0), clipped so that an extreme
    sum cannot overflow: the calibrated and the answer confidence's model."""
    z = log_odds(intercept, coefficients, values)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def log_odds(intercept: float, coefficients: Mapping[str, float],
             values: Mapping[str, float]) -> float:
    """intercept + Σ wᵢ·valuesᵢ (a value missing counts as 0): what :func:`logistic` maps
    to a probability."""
    return intercept + sum(w * values.get(name, 0.0) for name, w in coefficients.items())


@dataclass(frozen=True, slots=True)
class Calibration:
    """A logistic model of P(answer right) over the retrieval features, and the gate
    threshold it was certified at: the shipped ``calibration.json``, or one written by
    ``abstain calibrate`` (docs/TUNING.md). :meth:`load` / :meth:`save` read and write it."""

    intercept: float
    coefficients: dict[str, float]
    version: int = 1
    name: str = "seed"
    description: str = ""
    fit_on: dict[str, Any] | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    gate_threshold: float | None = None
    """When set (``abstain calibrate --max-false-accept``), the gate's min_confidence."""

    def confidence(self, features: AnswerFeatures) -> float:
        values = features.as_dict()
        unknown = set(self.coefficients) - set(values)
        if unknown:
            raise ConfigError(f"calibration uses unknown features: {sorted(unknown)}")
        return logistic(self.intercept, self.coefficients, values)

    @classmethod
    def load(cls, path: str | Path | None = None) -> Calibration:
        try:
            if path is None:
                raw = resources.files("abstain").joinpath("data/calibration.json").read_text()
            else:
                raw = Path(path).read_text()
            data = json.loads(raw)
            if isinstance(data, dict) and "threshold" in data and "version" not in data:
                raise ConfigError(f"{path} is an answer confidence (abstain calibrate --target "
                                  "answer-confidence): give it with --answer-confidence")
            return cls(intercept=float(data["intercept"]),
                       coefficients={k: float(v) for k, v in data["coefficients"].items()},
                       version=int(data.get("version", 1)), name=str(data.get("name", "custom")),
                       description=str(data.get("description", "")), fit_on=data.get("fit_on"),
                       metrics=dict(data.get("metrics") or {}),
                       gate_threshold=None if data.get("gate_threshold") is None
                       else float(data["gate_threshold"]))
        except ConfigError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"cannot read calibration file {path}: {exc}") from exc

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(asdict(self), indent=2) + "\n")


READING_CALIBRATION = "calibration-reading.json"
"""The shipped calibration with the reader's ``answerability`` feature."""


@functools.cache
def default_calibration(reading: bool = False) -> Calibration:
    """The shipped calibration, read on first use, not at import: ``data/calibration.json``
    over the retrieval features, or with ``reading`` the one fitted with the reader's
    answerability too (``data/calibration-reading.json``)."""
    if not reading:
        return Calibration.load()
    return Calibration.load(str(resources.files("abstain").joinpath("data",
                                                                   READING_CALIBRATION)))
