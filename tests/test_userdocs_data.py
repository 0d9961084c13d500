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


def test_no_eval_project_is_read_by_a_training_set() -> None:
    from abstain.train import docsource

    evals = {userpairs.source(f)["repo"] for f in userpairs.sets(role="eval")}
    templated = {p.repo for p in docsource.PROJECTS} - docsource.VALIDATION
    assert evals and not evals & templated
    assert not evals & {userpairs.source(f)["repo"] for f in userpairs.sets(role="train")}
    assert not {f.name for f in userpairs.sets(role="eval")} & userpairs.shipped_sets()


@pytest.mark.parametrize("folder", userpairs.sets(role="dev"), ids=lambda p: p.name)
def test_a_dev_set_passes_its_check(folder: Path) -> None:
    check = runpy.run_path(str(ROOT / "scripts" / "check_userdocs.py"))
    errors, counts = check["problems"](folder)
    assert not errors
    assert counts["answerable"] >= 30 and counts["near_miss"] >= 12


def test_no_model_has_read_a_dev_set() -> None:
    """The dev sets are for choosing settings on documentation no reader read: not a train or
    eval project, not read by the templated pairs, the shipped reader or the quote choice."""
    import json
    from importlib import resources

    from abstain.train import docsource

    devs = {userpairs.source(f)["repo"] for f in userpairs.sets(role="dev")}
    others = {userpairs.source(f)["repo"] for f in userpairs.sets()
              if userpairs.source(f).get("role") != "dev"}
    assert len(devs) >= 6 and not devs & others
    assert not devs & {p.repo for p in docsource.PROJECTS}
    names = {f.name for f in userpairs.sets(role="dev")}
    assert not names & userpairs.shipped_sets()
    choice = json.loads(resources.files("abstain").joinpath("data/quote_choice.json").read_text())
    assert not names & set(choice["projects"])
