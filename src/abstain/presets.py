"""The named gate presets: ``lenient``, ``balanced`` and ``strict``, defined once.

:class:`Preset` names them (the CLI's ``--preset`` choices, ``abstain.toml``'s ``preset``,
``Pipeline.preset`` and the one-shot ``abstain.ask`` all read it) and
:meth:`Preset.thresholds` gives each one's :class:`~abstain.gate.GateThresholds`. A
``+reader`` suffix (``balanced+reader``) also turns on the reading-level model
(:meth:`Preset.parse`). Light on purpose: the CLI imports it to list the choices.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from abstain.errors import ConfigError

if TYPE_CHECKING:
    from abstain.gate import GateThresholds

READER_SUFFIX = "reader"

ANSWER_CONFIDENCE = {"lenient": 0.0, "strict": 0.475}
"""The answer confidence's threshold per preset, certified by risk control on the pooled
labelled data (``report.preset_thresholds`` of ``data/answer_confidence.json``; a test keeps
them equal). Balanced's is the model's own ``threshold``, GateThresholds' default."""


class Preset(StrEnum):
    LENIENT = "lenient"
    BALANCED = "balanced"
    STRICT = "strict"

    def thresholds(self) -> GateThresholds:
        """The gate thresholds this preset names (``balanced`` = the defaults)."""
        from abstain.gate import GateThresholds

        answer = ANSWER_CONFIDENCE.get(self)
        if self is Preset.LENIENT:
            return GateThresholds(answer_gate=30.0, max_best_distance=0.65,
                                  min_term_coverage=0.1, min_confidence=0.3,
                                  min_answerability=0.1, min_reading_confidence=0.4,
                                  waive_lexical_at=0.3, min_answer_confidence=answer)
        if self is Preset.STRICT:
            return GateThresholds(answer_gate=50.0, max_best_distance=0.5,
                                  min_term_coverage=0.4, min_confidence=0.75,
                                  min_answerability=0.6, min_reading_confidence=0.7,
                                  waive_lexical_at=None, min_answer_confidence=answer)
        return GateThresholds()

    @classmethod
    def parse(cls, text: str) -> tuple[Preset, bool]:
        """``"strict"`` -> (STRICT, False); ``"balanced+reader"`` -> (BALANCED, True)."""
        name, plus, suffix = text.strip().partition("+")
        if plus and suffix != READER_SUFFIX:
            raise ConfigError(f"unknown preset suffix {suffix!r}; the only one is "
                              f"'+{READER_SUFFIX}'")
        try:
            return cls(name), bool(plus)
        except ValueError:
            raise ConfigError(f"unknown preset {text!r}; choose from "
                              f"{', '.join(cls)}") from None

