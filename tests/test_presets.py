"""The gate presets: one enum, parsed the same way by every caller."""

from __future__ import annotations

from dataclasses import replace

import click
import pytest

from abstain.cli.main import cli
from abstain.errors import ConfigError
from abstain.gate import GateThresholds
from abstain.presets import Preset


def test_a_preset_parses_with_or_without_the_reader_suffix() -> None:
    assert Preset.parse("strict") == (Preset.STRICT, False)
    assert Preset.parse(" balanced+reader ") == (Preset.BALANCED, True)
    with pytest.raises(ConfigError, match="unknown preset 'wild'; choose from lenient, "
                                          "balanced, strict"):
        Preset.parse("wild")
    with pytest.raises(ConfigError, match="the only one is '\\+reader'"):
        Preset.parse("strict+turbo")


def test_balanced_is_the_default_and_the_others_move_every_bar_one_way() -> None:
    lenient, balanced, strict = (p.thresholds() for p in Preset)
    assert balanced == GateThresholds()
    for name in ("answer_gate", "min_term_coverage", "min_confidence", "min_answerability"):
        assert getattr(lenient, name) < getattr(balanced, name) < getattr(strict, name), name
    assert lenient.max_best_distance > balanced.max_best_distance > strict.max_best_distance
    assert not any(p.reading_decides for p in (lenient, balanced, strict))  # the reader vetoes
    lenient, balanced, strict = (p.thresholds(reading_decides=True) for p in Preset)
    for name in ("min_answerability", "min_reading_confidence"):
        assert getattr(lenient, name) < getattr(balanced, name) < getattr(strict, name), name
    assert strict.waive_lexical_at is None and lenient.waive_lexical_at is not None
    for preset in Preset:  # +reader changes the reading's bars alone
        plain, decides = preset.thresholds(), preset.thresholds(reading_decides=True)
        assert replace(decides, min_answerability=plain.min_answerability,
                       min_reading_confidence=None,
                       waive_lexical_at=plain.waive_lexical_at) == plain


@pytest.mark.parametrize("command", ["ask", "eval", "serve"])
def test_the_cli_offers_exactly_the_presets(command: str) -> None:
    params = {p.name: p for p in cli.commands[command].params}
    choice = params["preset"].type
    assert isinstance(choice, click.Choice)
    assert list(choice.choices) == Preset.names()
    assert Preset.names()[:3] == [p.value for p in Preset]
    assert all(Preset.parse(name)[1] == name.endswith("+reader") for name in Preset.names())
