"""The users' questions of real documentation in data/userdocs (the reader's data and the
held-out evaluation) stay checkable: every answer key is in its gold page as abstain parses it."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from abstain.train import userpairs

ROOT = Path(__file__).resolve().parents[1]


def test_there_are_eval_and_train_sets() -> None:
    assert len(userpairs.sets(role="eval")) >= 6 and len(userpairs.sets(role="train")) >= 20


@pytest.mark.parametrize("folder", userpairs.sets(role="eval"), ids=lambda p: p.name)
def test_an_eval_set_passes_its_check(folder: Path) -> None:
    check = runpy.run_path(str(ROOT / "scripts" / "check_userdocs.py"))
    errors, counts = check["problems"](folder)
    assert not errors
    assert counts["answerable"] == 40 and counts["near_miss"] == 25
