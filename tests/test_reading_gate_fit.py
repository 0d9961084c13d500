"""The reading gate's shipped thresholds and calibration, and the replay that chose them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from abstain.confidence import default_calibration
from abstain.gate import GateThresholds
from abstain.presets import Preset

ROOT = Path(__file__).resolve().parents[1]


def _fit_script() -> object:
    spec = importlib.util.spec_from_file_location("fit_reading_gate",
                                                  ROOT / "bench" / "fit_reading_gate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_balanced_reads_with_the_point_its_calibration_was_fitted_with() -> None:
    chosen = default_calibration(reading=True).metrics["selection"]
    balanced = Preset.BALANCED.thresholds(reading_decides=True)
    assert balanced.reading_decides and not GateThresholds().reading_decides
    assert (balanced.min_answerability, balanced.waive_lexical_at,
            balanced.min_reading_confidence) == (chosen["min_answerability"],
                                                 chosen["waive_lexical_at"],
                                                 chosen["min_reading_confidence"])
    assert set(chosen["domains"]) == {"squad2cal", "click", "sqlite-utils"}
    assert set(chosen["leave_one_domain_out"]) == set(chosen["domains"])


def test_the_replay_keeps_to_the_waivers_a_recording_replays_exactly() -> None:
    fit = _fit_script()
    grid = (None, 0.3, 0.4, 0.5)
    # A run recorded with waiver 0.4 holds checks it waived as passed: a stricter waiver (or
    # none) would replay them as passing, answering what the real gate refuses.
    assert fit.replayable(grid, 0.4) == (0.3, 0.4)  # type: ignore[attr-defined]
    assert fit.replayable(grid, None) == grid  # type: ignore[attr-defined]
