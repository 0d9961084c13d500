"""What a :class:`~abstain.pipeline.Pipeline` is told, in four typed groups.

* :class:`GateOptions` — the gate's thresholds and user rules, the calibration of the
  answer confidence, the longest question taken;
* :class:`ReadingOptions` — abstain's reading-level model: the reader and its calibration,
  an optional reranker of the fused hits;
* :class:`LLMOptions` — what an LLM generator may do around the answer (query rewrite,
  LLM rerank, clarify-only prompt) and how its answer is verified;
* :class:`ObservationOptions` — the query log and the observers of each answer.

Each field also works as a keyword of its own (``Pipeline(strictness="strict")`` is
``Pipeline(llm=LLMOptions(strictness="strict"))``): :data:`SHORTHANDS` says which group each
belongs to, and :func:`grouped` applies them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal

from abstain.errors import ConfigError
from abstain.gate import GateThresholds, Rule
from abstain.rerank import DEFAULT_RERANK_DEPTH
from abstain.validate import MAX_QUESTION_CHARS
from abstain.verify import Strictness

if TYPE_CHECKING:
    from abstain.answer import Answer
    from abstain.answer_confidence import AnswerConfidence
    from abstain.confidence import Calibration
    from abstain.rerank import Reranker
    from abstain.rerank.llm import RerankConfig
    from abstain.rerank.reading import PairLogits
    from abstain.verify import Verifier

@dataclass(frozen=True, slots=True)
class GateOptions:
    thresholds: GateThresholds = field(default_factory=GateThresholds)
    rules: tuple[tuple[str, Rule], ...] = ()
    """User rules, ``(name, fn)``: a failing Check refuses as ``rule:NAME``."""
    calibration: Calibration | None = None
    """None: the gate's confidence check decides on the shipped answer confidence, P(this
    answer is right) from every check (:mod:`abstain.answer_confidence`). A calibration
    (``abstain calibrate``) puts its retrieval logistic there instead."""
    answer_confidence: AnswerConfidence | None = None
    """The answer confidence the gate decides on (None: the shipped one); e.g. one refitted
    by ``abstain calibrate --target answer-confidence`` (:meth:`AnswerConfidence.load`). It
    decides at its own ``threshold``: the presets' thresholds are the shipped model's."""
    max_question_chars: int = MAX_QUESTION_CHARS

    def __post_init__(self) -> None:
        if not isinstance(self.max_question_chars, int) or self.max_question_chars < 1:
            raise ConfigError(f"max_question_chars must be a whole number >= 1, not "
                              f"{self.max_question_chars!r}")


@dataclass(frozen=True, slots=True)
class ReadingOptions:
    """docs/MODEL_CARD.md. ``reader=True`` (the default) loads abstain's own model (or pass
    any object with ``name`` and ``logits(a, b)``; False reads nothing); it reads the kept
    evidence of a question the gate has not already refused: gate check ``answerability``
    (refuse ``unanswerable`` below ``answerability_threshold``, default the thresholds'
    ``min_answerability``). Where the thresholds let the reading decide
    (``GateThresholds.reading_decides``, the ``+reader`` presets) the calibrated confidence
    then comes from ``calibration`` (fitted with that feature; None: the gate's calibration if
    one was given, else the shipped reading calibration)."""

    reader: bool | PairLogits = True
    calibration: Calibration | None = None
    answerability_threshold: float | None = None
    reranker: Reranker | None = None
    """Reorders the top ``rerank_depth`` fused hits before the gate."""
    rerank_depth: int = DEFAULT_RERANK_DEPTH

    def __post_init__(self) -> None:
        if not isinstance(self.reader, bool) and not callable(getattr(self.reader, "logits",
                                                                      None)):
            raise ConfigError(f"reader must be True, False or a model with logits(a, b), "
                              f"not {self.reader!r}")


@dataclass(frozen=True, slots=True)
class LLMOptions:
    """docs/GENERATION.md. ``verifier`` "auto" = the lexical verifier for LLM generators
    (and for any generator at strict/paranoid), None = no verification; ``strictness``
    loose / balanced / strict / paranoid; ``rewrite_query`` and ``llm_rerank`` need a
    generator that can chat. ``clarify_on_empty``: when retrieval finds nothing at all, let
    the LLM append one clarifying question to the refusal (clarify-only prompt, no
    documents); off by default, so that no refusal ever calls an LLM unless asked to."""

    verifier: Verifier | Literal["auto"] | None = "auto"
    strictness: Strictness | str = Strictness.BALANCED
    rewrite_query: bool = False
    clarify_on_empty: bool = False
    llm_rerank: bool | RerankConfig = False


@dataclass(frozen=True, slots=True)
class ObservationOptions:
    """docs/TUNING.md. Every answer goes to the store's query log when ``abstain log on``
    enabled it there (``log_queries=False`` never records, as ``abstain eval`` does), then
    to each of ``observers`` (e.g. server metrics)."""

    log_queries: bool = True
    observers: tuple[Callable[[Answer], None], ...] = ()


@dataclass(frozen=True, slots=True)
class Options:
    """The four groups together, as :func:`grouped` returns them."""

    gate: GateOptions = field(default_factory=GateOptions)
    reading: ReadingOptions = field(default_factory=ReadingOptions)
    llm: LLMOptions = field(default_factory=LLMOptions)
    observation: ObservationOptions = field(default_factory=ObservationOptions)


SHORTHANDS: dict[str, tuple[str, str]] = {
    **{f.name: ("gate", f.name) for f in fields(GateOptions)},
    **{f.name: ("reading", f.name) for f in fields(ReadingOptions) if f.name != "calibration"},
    "reading_calibration": ("reading", "calibration"),
    **{f.name: ("llm", f.name) for f in fields(LLMOptions)},
    **{f.name: ("observation", f.name) for f in fields(ObservationOptions)},
}
"""Keyword -> (group, field): the fields that ``Pipeline`` also takes one by one."""


def grouped(options: Options, shorthands: Mapping[str, Any]) -> Options:
    """``options`` with each shorthand keyword set in its group; an unknown one is a
    TypeError, as an unknown keyword argument is."""
    changes: dict[str, dict[str, Any]] = {}
    for key, value in shorthands.items():
        if key not in SHORTHANDS:
            raise TypeError(f"Pipeline() got an unexpected keyword argument {key!r}")
        group, name = SHORTHANDS[key]
        if name in ("rules", "observers"):
            value = tuple(value)
        changes.setdefault(group, {})[name] = value
    return replace(options, **{group: replace(getattr(options, group), **values)
                               for group, values in changes.items()})
