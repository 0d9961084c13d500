"""The named gate presets: ``lenient``, ``balanced`` and ``strict``, defined once.

:class:`Preset` names them (the CLI's ``--preset`` choices, ``abstain.toml``'s ``preset``,
``Pipeline.preset`` and the one-shot ``abstain.ask`` all read it) and
:meth:`Preset.thresholds` gives each one's :class:`~abstain.gate.GateThresholds`. The
reading-level model reads by default and refuses below the preset's
``min_answerability`` (:data:`VETO`); a ``+reader`` suffix (``balanced+reader``) lets the
reading decide instead (:data:`READING_DECIDES`, :meth:`Preset.parse`). Light on purpose: the
CLI imports it to list the choices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from abstain.errors import ConfigError

if TYPE_CHECKING:
    from abstain.gate import GateThresholds

READER_SUFFIX = "reader"

ANSWER_CONFIDENCE = {"lenient": 0.0, "strict": 0.475}
"""The answer confidence's threshold per preset, certified by risk control on the pooled
labelled data (``report.preset_thresholds`` of ``data/answer_confidence.json``; a test keeps
them equal). Balanced's is the model's own ``threshold``, GateThresholds' default."""


VETO = {"lenient": 0.1, "balanced": 0.3, "strict": 0.5}
"""Each preset's ``min_answerability`` when the reading only vetoes (the default): below it the
reader's answerability refuses, and the answer confidence decides the rest. Balanced's was
chosen on squad2-calibration, realdocs-dev click and sqlite-utils (the most right answers less
2 per wrong one; docs/EVALUATION.md, "The reader on by default")."""

READING_DECIDES = {"lenient": (0.1, 0.3, 0.4), "balanced": (0.5, None, 0.6),
                   "strict": (0.6, None, 0.7)}
"""(min_answerability, waive_lexical_at, min_reading_confidence) of a ``+reader`` preset: the
reading calibration's confidence decides, fitted with the shipped reader by
bench/fit_reading_gate.py (docs/MODEL_CARD.md; a test keeps balanced's equal to the fit)."""


class Preset(StrEnum):
    LENIENT = "lenient"
    BALANCED = "balanced"
    STRICT = "strict"

    def thresholds(self, *, reading_decides: bool = False) -> GateThresholds:
        """The gate thresholds this preset names (``balanced`` = the defaults);
        ``reading_decides``: those of ``<preset>+reader``."""
        from dataclasses import replace

        from abstain.gate import GateThresholds

        answer = ANSWER_CONFIDENCE.get(self)
        if self is Preset.LENIENT:
            chosen = GateThresholds(answer_gate=30.0, max_best_distance=0.65,
                                    min_term_coverage=0.1, min_confidence=0.3,
                                    min_answerability=VETO[self], min_answer_confidence=answer)
        elif self is Preset.STRICT:
            chosen = GateThresholds(answer_gate=50.0, max_best_distance=0.5,
                                    min_term_coverage=0.4, min_confidence=0.75,
                                    min_answerability=VETO[self], min_answer_confidence=answer)
        else:
            chosen = GateThresholds()
        if not reading_decides:
            return chosen
        low, waive, floor = READING_DECIDES[self]
        return replace(chosen, min_answerability=low, waive_lexical_at=waive,
                       min_reading_confidence=floor)

    @classmethod
    def names(cls) -> list[str]:
        """Every way a preset can be named: ``lenient`` … and each with ``+reader``."""
        return [*(p.value for p in cls), *(f"{p.value}+{READER_SUFFIX}" for p in cls)]

    def named(self, *, reading_decides: bool = False) -> str:
        """The name :meth:`parse` reads back: ``"strict"``, ``"balanced+reader"``."""
        return f"{self.value}+{READER_SUFFIX}" if reading_decides else self.value

    @classmethod
    def parse(cls, text: str) -> tuple[Preset, bool]:
        """``"strict"`` -> (STRICT, False); ``"balanced+reader"`` -> (BALANCED, True): the
        second says whether the reading decides."""
        name, plus, suffix = text.strip().lower().partition("+")
        if plus and suffix != READER_SUFFIX:
            raise ConfigError(f"unknown preset suffix {suffix!r}; the only one is "
                              f"'+{READER_SUFFIX}'")
        try:
            return cls(name), bool(plus)
        except ValueError:
            raise ConfigError(f"unknown preset {text!r}; choose from "
                              f"{', '.join(cls)} (each also with +{READER_SUFFIX})") from None



PLAIN = (str, int, float, bool, type(None))
"""The option values a :class:`Recipe` can write down."""


@dataclass(frozen=True, slots=True)
class Recipe:
    """What ``Pipeline.preset`` was given: enough to open the same pipeline again,
    ``Pipeline.preset(r.preset, store=r.store, **r.options)``, in another process (a
    Haystack pipeline file keeps it; docs/INTEGRATIONS.md).

    Only names and plain values can be written down: a pipeline built from objects (a
    store, an embedder, a generator) has no recipe (``Pipeline.recipe`` is None)."""

    preset: str
    """As :meth:`Preset.named` writes it: ``"strict"``, ``"balanced+reader"``."""
    store: str | None = None
    """The store as given: a SQLite path (relative to the folder it was given in) or a
    ``postgresql://`` URL; None is the default database of the machine that opens it."""
    options: dict[str, Any] = field(default_factory=dict)
    """``Pipeline.preset``'s other keywords (``workspace="docs"``, ``reader=False`` …)."""

    @classmethod
    def of(cls, preset: str, store: str | None, options: Mapping[str, object]
           ) -> Recipe | None:
        """The recipe, or None when an option is an object rather than a plain value."""
        if not all(isinstance(value, PLAIN) for value in options.values()):
            return None
        return cls(preset, store, dict(options))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
