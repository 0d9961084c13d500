"""The v3 reader's documentation data: pages read from a git snapshot, reStructuredText through
docutils, questions templated from headings and sentences, near misses, the project split, and
(with torch) the v2 weights recovered from the shipped int8 file."""

from __future__ import annotations

import importlib.util
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest

from abstain.train import docpairs, docquestions, docsource
from abstain.train.docrst import parse_rst

RST = """\
Configuration
=============

Installing the tool
-------------------

Run ``pip install tool`` and then call :func:`~tool.api.start` to begin.

.. option:: --workers N

   How many worker processes serve requests. The default is 4.

   .. versionadded:: 2.1

.. code-block:: python

   tool.start(workers=2)
"""

MARKDOWN = """\
# Tool

## Installing the tool

Run pip install tool, then start it with the tool start command from a shell.

## Caching

Responses are kept for a while so that repeated calls start instantly and cheaply.

## Reference

- `max_age`: how long a cached response is kept, in seconds; it defaults to 300.
- `cache_dir`: the folder that holds cached responses on disk for later runs.

Set the `TOOL_HOME` environment variable to move everything the tool writes elsewhere.
"""


def test_rst_reads_sphinx_markup_as_a_user_sees_it() -> None:
    doc = parse_rst(RST, fallback_title="config")
    paths = [s.heading_path for s in doc.sections]
    assert paths == [("Configuration", "Installing the tool"),
                     ("Configuration", "Installing the tool", "--workers"),
                     ("Configuration", "Installing the tool")]
    assert tuple(b.text for b in doc.sections[0].blocks) == (
        "Run pip install tool and then call start to begin.",)
    assert tuple(b.text for b in doc.sections[1].blocks) == (
        "--workers N", "How many worker processes serve requests. The default is 4.",
        "New in version 2.1.")
    assert tuple(b.text for b in doc.sections[2].blocks) == ("tool.start(workers=2)",)


def test_questions_come_from_headings_and_sentences() -> None:
    rng = random.Random(0)
    windows = ["Run pip install tool, then start it with the tool start command from a shell."]
    ask = docquestions.heading_question(("Tool", "Installing the tool"), windows, "tool", rng)
    assert ask is not None and ask.kind == "howto" and ask.target == "install the tool"
    assert "install the tool" in ask.question and ask.window == 0
    reference = ["- max_age: how long a cached response is kept, in seconds; it defaults to 300.",
                 "Set the TOOL_HOME environment variable to move everything it writes elsewhere."]
    asks = docquestions.fact_questions(("Tool", "Reference"), reference, "tool", rng)
    assert {(a.kind, a.target, a.window) for a in asks} == {
        ("default", "max_age", 0), ("what", "max_age", 0), ("envvar", "TOOL_HOME", 1)}
    assert docquestions.is_code("x = load(path); y = {k: v for k, v in x.items()}")
    assert not docquestions.is_code(windows[0])


def _snapshot_repo(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    (work / "docs" / "guide.md").write_text(MARKDOWN)
    (work / "docs" / "config.rst").write_text(RST)
    (work / "LICENSE").write_text("Permission is hereby granted, free of charge, to any person")
    (work / "tests").mkdir()
    (work / "tests" / "notes.md").write_text("# Not documentation\n\nA test fixture file.\n")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "docs"], check=True)
    root = tmp_path / "mirror"
    (root / "acme+tool").mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / "acme+tool" / "repo")],
                   check=True)
    return root


def test_snapshot_pages_licence_and_pairs(tmp_path: Path) -> None:
    root = _snapshot_repo(tmp_path)
    project = docsource.Project("acme/tool", "cli")
    snap = docsource.read_snapshot(root, project)
    assert [p.path for p in snap.pages] == ["docs/config.rst", "docs/guide.md"]
    assert snap.licence == "MIT" and len(snap.commit) == 40
    rows = docpairs.project_rows(snap, seed=1)
    assert {r["split"] for r in rows} == {"train"}
    positives = [r for r in rows if r["label"] == 1 and r["head"] == 0]
    assert any(r["kind"] == "default" and "max_age" in r["a"] and "300" in r["b"]
               for r in positives)
    # "The default is 4." is a window of its own that does not name --workers: not asked
    assert not any(r["kind"] == "default" and "--workers" in r["a"] for r in positives)
    for r in rows:
        if r["kind"] == "nm-swap":
            assert r["label"] == 0
    with pytest.raises(ValueError, match="kept for evaluation"):
        docsource.read_snapshot(root, docsource.Project("pallets/click", "library"))


def test_validation_projects_are_whole_and_grouped(tmp_path: Path) -> None:
    root = _snapshot_repo(tmp_path)
    snap = docsource.read_snapshot(root, docsource.Project("acme/tool", "cli"))
    held = docsource.Snapshot(docsource.Project("BurntSushi/ripgrep", "cli"), snap.commit,
                              snap.licence, snap.pages)
    rows = docpairs.project_rows(held, seed=1)
    assert rows and {r["split"] for r in rows} == {"val"}
    assert all(r["group"] for r in rows)
    labels: dict[str, set[int]] = {}
    for r in rows:
        labels.setdefault(r["group"], set()).add(r["label"])
    assert all(len(v) == 1 for v in labels.values())


def test_no_evaluation_project_is_listed() -> None:
    assert not {p.name for p in docsource.PROJECTS} & docsource.EVALUATION_ONLY
    assert len(docsource.PROJECTS) >= 50
    assert {p.repo for p in docsource.PROJECTS} >= docsource.VALIDATION


@pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("torch", "onnx")),
                    reason="needs the train extra")
def test_v2_weights_come_back_from_the_int8_file() -> None:
    from abstain.train import fromonnx

    _assert_reads_as_v2(fromonnx.reader(fromonnx.SHIPPED_V2))


@pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("torch", "onnx")),
                    reason="needs the train extra")
def test_a_machine_without_weights_rebuilds_v2_from_the_checkout(tmp_path: Path) -> None:
    """``device train --from-v2``: base weights and the step-0 checkpoint from the shipped file
    give the training loop v2's model back (nothing but the training set travels)."""
    from abstain.train import fromonnx, loop, minibert

    base = fromonnx.pack_base(fromonnx.SHIPPED_V2, tmp_path)
    init = fromonnx.init_checkpoint(fromonnx.SHIPPED_V2, tmp_path / "init")
    model = minibert.new_reader(base, seed=0)
    assert loop.load_checkpoint(model, init)["step"] == 0
    _assert_reads_as_v2(model.eval())


def _assert_reads_as_v2(model: object) -> None:
    import torch

    from abstain.rerank.reader import OnnxReader

    pairs = [("When did the Normans conquer England?", "In 1066 the Normans conquered England."),
             ("Who wrote the report?", "The weather was mild in the spring of that year.")]
    reader = OnnxReader()
    expected = reader.logits([a for a, _ in pairs], [b for _, b in pairs])
    enc = reader._tokenizer.encode_batch(pairs)
    width = max(len(e.ids) for e in enc)
    feeds = {k: torch.zeros((len(enc), width), dtype=torch.long)
             for k in ("input_ids", "attention_mask", "token_type_ids")}
    for i, e in enumerate(enc):
        feeds["input_ids"][i, :len(e.ids)] = torch.tensor(e.ids)
        feeds["token_type_ids"][i, :len(e.ids)] = torch.tensor(e.type_ids)
        feeds["attention_mask"][i, :len(e.ids)] = 1
    with torch.no_grad():
        got = model(**feeds).numpy()  # type: ignore[operator]
    # int8 against fp32 torch: v3's file differs by up to 0.89 logit (the relevance head on the
    # unrelated pair, -0.85 against -1.74); a wrong dequantization is off by many logits
    assert np.abs(got - expected).max() < 1.0
    assert (np.sign(got) == np.sign(expected)).all()


def test_templated_default_near_misses_are_cut_to_the_stated_defaults() -> None:
    from abstain.train import v3

    def row(kind: str, label: int) -> dict[str, object]:
        return {"kind": kind, "label": label, "a": kind, "b": "x", "head": 1, "group": ""}

    doc = ([row("default", 1)] * 2 + [row("values", 1)] + [row("nm-no-default", 0)] * 9
           + [row("nm-swap", 0)] * 4)
    kept = v3._balance_defaults(doc, 1.0, random.Random(1))
    kinds = [r["kind"] for r in kept]
    assert kinds.count("nm-no-default") == 3
    assert kinds.count("nm-swap") == 4 and kinds.count("default") == 2
    assert v3._balance_defaults(doc, None, random.Random(1)) == doc
