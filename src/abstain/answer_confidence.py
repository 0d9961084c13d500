"""The answer confidence: P(this answer is right), from every signal the gate has.

The calibrated confidence of :mod:`abstain.confidence` is a logistic over four retrieval
features; the word-level checks refuse beside it and it knows nothing of them. This model
reads them all, once the gate's checks have run: the retrieval features, the checks' values
(informative and passage coverage, the mean chunk confidence) and verdicts (entity, answer
type), and — when the reader ran — its answerability. Its label is whether the answer was
*right* (``abstain eval``'s judgement: it cites a gold source and holds an answer key), not
whether the documents could answer: so an answer states the probability that it is right,
and a refusal the probability that answering would have been.

:func:`signals` turns a question's features and checks into the model's inputs, each on a
0–1 scale; it is the one definition the pipeline, ``abstain eval`` records and the fit
(``bench/fit_answer_confidence.py``) share. :class:`AnswerConfidence` is the fitted model
as it ships in ``data/answer_confidence.json``, with the report of its fit (data,
leave-one-domain-out folds, per-domain ECE and AUROC) and its gate threshold, chosen by the
risk control of ``abstain calibrate --max-false-accept`` on the pooled data.

:func:`weigh` puts it in the gate: the ``calibrated_confidence`` check decides on this
P(right). The checks it weighs (:data:`WEIGHED`) still refuse on their own when they fail:
on the recorded documentation sets the answer after a failed check was right for 1 of 57
questions (16 of 79 on SQuAD), and a model fitted across domains weighs a failed verdict far
less than that
(docs/EVALUATION.md, "One confidence across domains"), so letting it outweigh them would
answer near misses such as a *how many* question with no number in the evidence.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from abstain.align import AskedType
from abstain.confidence import logistic
from abstain.errors import ConfigError
from abstain.question import Question
from abstain.records import Check, CheckName, RefusalReason
from abstain.text import stems, tokens

MODEL_FILE = "answer_confidence.json"

RETRIEVAL_SIGNALS = ("top_fused_norm", "in_both", "best_cosine", "term_coverage")
"""The retrieval features (:class:`~abstain.records.AnswerFeatures`)."""
CHECK_SIGNALS = ("informative_coverage", "passage_coverage", "chunk_confidence",
                 "entity_in_evidence", "answer_type_found", "checks_passed")
"""The gate checks' values and verdicts, each on a 0–1 scale."""
READING_SIGNAL = "answerability"
SIGNALS = (*RETRIEVAL_SIGNALS, *CHECK_SIGNALS, READING_SIGNAL)
"""Every signal a model may use; a fitted model names the ones it uses."""
ANSWER_SIGNALS = ("answer_read", "answer_typed", "answer_terms", "answer_numbers",
                  "quote_agree")
"""Signals of the quoted answer itself (:func:`answer_signals`), for judging fits on
recorded answers only (``bench/answer_confidence_reading.py``): the gate decides before
there is an answer, so a model file that names one is refused."""


WEIGHED = (CheckName.BEST_DISTANCE, CheckName.ANSWER_GATE, CheckName.TERM_COVERAGE,
           CheckName.ENTITY_EXISTENCE, CheckName.INFORMATIVE_COVERAGE,
           CheckName.PASSAGE_COVERAGE, CheckName.ANSWER_TYPE)
"""The gate's word-level and retrieval checks, whose verdicts the confidence weighs
(``checks_passed``: the share that passed)."""


class CheckLike(Protocol):
    """A check as the gate reports it or a record stores it."""

    @property
    def name(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def value(self) -> float | str | None: ...
    @property
    def reason(self) -> str | None: ...


def _number(value: float | str | None, default: float = 0.0) -> float:
    return float(value) if isinstance(value, int | float) else default


def signals(features: Mapping[str, float], checks: Iterable[CheckLike]) -> dict[str, float]:
    """The model's inputs: the retrieval features, the checks' values and verdicts (a check
    that did not run counts as passed, with full coverage), and the answerability when the
    reader read."""
    by_name = {c.name: c for c in checks}
    out = {name: float(features.get(name, 0.0)) for name in RETRIEVAL_SIGNALS}

    def value(name: str) -> float:
        check = by_name.get(name)
        return 1.0 if check is None else min(1.0, max(0.0, _number(check.value)))

    def verdict(name: str) -> float:
        check = by_name.get(name)
        return 1.0 if check is None or check.passed else 0.0

    out["informative_coverage"] = value(CheckName.INFORMATIVE_COVERAGE)
    out["passage_coverage"] = value(CheckName.PASSAGE_COVERAGE)
    gate = by_name.get(CheckName.ANSWER_GATE)
    out["chunk_confidence"] = 0.0 if gate is None else _number(gate.value) / 100.0
    out["entity_in_evidence"] = verdict(CheckName.ENTITY_EXISTENCE)
    out["answer_type_found"] = verdict(CheckName.ANSWER_TYPE)
    out["checks_passed"] = sum(verdict(n) for n in WEIGHED) / len(WEIGHED)
    for name in (READING_SIGNAL, *ANSWER_SIGNALS):
        if name in features:
            out[name] = float(features[name])
    return out


def answer_signals(question: Question, sentences: Sequence[str]) -> dict[str, float]:
    """What the quoted answer itself holds, each on a 0–1 scale: whether it carries the
    answer type asked for (1 when none is asked), the share of the question's asked terms
    (stems) it holds, and the share of the question's numbers ("2019", "Q3") it repeats (1
    when it names none). ``answer_read``, the reader's P(answers) of the quote, is recorded
    by ``abstain eval --reader`` (:func:`abstain.evaluate.runner.answer_read`)."""
    text = " ".join(sentences)
    asked_type = AskedType.of(question)
    asked = {t.stem for t in question.terms if not t.context} or set(question.stems)
    numbers = {w for w in tokens(question.text) if any(ch.isdigit() for ch in w)}
    said = set(stems(text))
    return {"answer_typed": 1.0 if asked_type is None else float(asked_type.carried_by(text)),
            "answer_terms": len(asked & said) / len(asked) if asked else 1.0,
            "answer_numbers": (len(numbers & set(tokens(text))) / len(numbers)
                               if numbers else 1.0)}


@dataclass(frozen=True, slots=True)
class AnswerConfidence:
    """σ(intercept + Σ wᵢ·signalᵢ), fitted on labelled questions of several domains."""

    intercept: float
    coefficients: dict[str, float]
    threshold: float
    """The gate answers at and above this confidence (chosen by risk control: ``report``)."""
    name: str = "answer-confidence"
    report: dict[str, Any] = field(default_factory=dict)
    """How it was fitted and judged: data, folds, per-domain ECE / AUROC, risk control."""

    def __post_init__(self) -> None:
        unknown = set(self.coefficients) - set(SIGNALS) - set(ANSWER_SIGNALS)
        if unknown:
            raise ConfigError(f"answer confidence uses unknown signals: {sorted(unknown)}")
        if not 0.0 <= self.threshold <= 1.0:
            raise ConfigError(f"answer confidence threshold {self.threshold} is not in [0, 1]")

    @property
    def reads(self) -> bool:
        """Whether the model needs the reader's answerability."""
        return READING_SIGNAL in self.coefficients

    def confidence(self, values: Mapping[str, float]) -> float:
        """P(right) from :func:`signals`' output (a signal it lacks counts as 0)."""
        return logistic(self.intercept, self.coefficients, values)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "intercept": self.intercept,
                "coefficients": self.coefficients, "threshold": self.threshold,
                "report": self.report}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnswerConfidence:
        judged_only = sorted(set(data["coefficients"]) & set(ANSWER_SIGNALS))
        if judged_only:
            raise ConfigError(f"answer confidence uses signals of the quoted answer "
                              f"({', '.join(judged_only)}), which the gate cannot know before "
                              f"it decides: such a fit is for judging only")
        return cls(intercept=float(data["intercept"]),
                   coefficients={k: float(v) for k, v in data["coefficients"].items()},
                   threshold=float(data["threshold"]), name=str(data.get("name", "custom")),
                   report=dict(data.get("report") or {}))

    @classmethod
    def load(cls, path: str | Path) -> AnswerConfidence:
        try:
            data = json.loads(Path(path).read_text())
            if isinstance(data, dict) and "threshold" not in data and "version" in data:
                raise ConfigError(f"{path} is a retrieval calibration (abstain calibrate "
                                  "without --target): give it with --calibration")
            return cls.from_json(data)
        except ConfigError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"cannot read answer confidence file {path}: "
                              f"{type(exc).__name__}: {exc}") from exc

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")


@functools.cache
def shipped_answer_confidence() -> AnswerConfidence:
    """The shipped model (``data/answer_confidence.json``), read on first use."""
    raw = resources.files("abstain").joinpath("data", MODEL_FILE).read_text()
    return AnswerConfidence.from_json(json.loads(raw))


def confident_at() -> float:
    """An answer is triaged ``confident`` at and above this P(right) (:func:`abstain.answer.
    triage`): the strict preset's certified threshold, from the shipped model's report — the
    strict gate would have answered it too."""
    return float(shipped_answer_confidence().report["preset_thresholds"]["strict"])


def weigh(checks: Sequence[Check], features: Mapping[str, float], model: AnswerConfidence,
          threshold: float, *, curated: bool = False, source: str = "the model's own",
          at_least: tuple[float, str] | None = None) -> tuple[tuple[Check, ...], float]:
    """The gate's checks with the ``calibrated_confidence`` check deciding on the model's
    P(right) against ``threshold`` (a curated match, :func:`abstain.gate.curated_match`,
    stays exempt), and that P(right). ``at_least``: a P(right) measured for answers of
    another kind than the model's data, and what makes this answer one of them (a table row
    that answers by its columns, :func:`abstain.gate.row_lookup`): the higher one is stated.
    The other checks keep their verdicts: each still refuses when it fails."""
    values = signals(features, checks)
    modelled = model.confidence(values)
    p = modelled if at_least is None else max(modelled, at_least[0])
    out = []
    for check in checks:
        if check.name == CheckName.CALIBRATED_CONFIDENCE:
            detail = (f"P(right) from {model.name}: " + ", ".join(
                f"{n}={values.get(n, 0.0):.2f}" for n in model.coefficients)
                + ("" if at_least is None or p == modelled else
                   f" ({modelled:.2f}); at least {at_least[0]:.2f}: {at_least[1]}")
                + f"; threshold from {source}"
                + (" (curated match: exempt)" if curated and p < threshold else ""))
            check = Check(check.name, p >= threshold or curated, round(p, 4), threshold,
                          detail, RefusalReason.LOW_CONFIDENCE)
        out.append(check)
    return tuple(out), p
