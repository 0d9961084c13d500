"""The reader's pairs from users' questions of real documentation (abstain.train.userpairs)."""

from __future__ import annotations

import json
from pathlib import Path

from abstain.train import userpairs

PAGE = """# Workers

## Timeouts

Workers silent for more than this many seconds are killed and restarted. Set it with
--timeout 120 when a report endpoint takes a minute. The value is in seconds.

## Restarting workers

The server restarts a worker after it handled max_requests requests, which limits the damage
of a memory leak. Jitter spreads the restarts so that all workers do not restart together.

## Logging

Access logs go to stdout unless you pass a file. Error logs go to stderr by default.
"""


def make_set(root: Path, name: str, role: str) -> Path:
    folder = root / name
    (folder / "kb").mkdir(parents=True)
    (folder / "kb" / "workers.md").write_text(PAGE)
    (folder / "kb" / "other.md").write_text(
        "# Install\n\nInstall the server with pip and start it with one command on any port.\n")
    (folder / "SOURCE.json").write_text(json.dumps({"repo": f"o/{name}", "role": role}))
    questions = [
        {"question": "my report page takes a minute and the worker gets killed, what do I set?",
         "expected": "answer", "category": "answerable", "gold_sources": ["workers.md"],
         "answer_keys": ["--timeout 120"]},
        {"question": "how much memory does each worker use?", "expected": "refuse",
         "category": "near_miss"},
        {"question": "how do I centre a div?", "expected": "refuse", "category": "off_topic"},
    ]
    (folder / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in questions) + "\n")
    return folder


def test_the_window_holding_the_key_is_the_positive_and_its_siblings_the_negatives(
        tmp_path: Path) -> None:
    folder = make_set(tmp_path, "srv", "train")
    rows, skipped = userpairs.set_rows(folder)
    assert not skipped
    asked = [r for r in rows if r["a"].startswith("my report page")]
    positives = [r for r in asked if r["label"] == 1]
    assert positives and all("--timeout 120" in r["b"] for r in positives)
    assert all(r["kind"] == "user" for r in positives)
    negatives = [r for r in asked if r["label"] == 0]
    assert {r["kind"] for r in negatives} >= {"user-sibling"}
    assert not any("--timeout 120" in r["b"] for r in negatives)
    assert any("max_requests" in r["b"] for r in negatives)  # the right page's wrong passage
    near = [r for r in rows if r["kind"] == "user-nm"]
    assert near and all(r["label"] == 0 and r["a"].startswith("how much memory") for r in near)
    assert not any(r["a"].startswith("how do I centre") for r in rows)  # off-topic: no pairs


def test_only_train_sets_give_pairs_and_a_key_across_windows_is_skipped(
        tmp_path: Path) -> None:
    make_set(tmp_path, "a", "train")
    make_set(tmp_path, "b", "eval")
    assert [p.name for p in userpairs.sets(tmp_path, "train")] == ["a"]
    rows, summary = userpairs.build(tmp_path)
    assert {r["project"] for r in rows} == {"o/a"}
    assert [s["set"] for s in summary["sets"]] == ["a"]
    folder = tmp_path / "a"
    bad = {"question": "q?", "expected": "answer", "category": "answerable",
           "gold_sources": ["workers.md"], "answer_keys": ["not in the docs at all"]}
    (folder / "questions.jsonl").write_text(json.dumps(bad) + "\n")
    rows, skipped = userpairs.set_rows(folder)
    assert not rows and sum(skipped.values()) == 1


def test_in_context_every_window_is_read_after_its_page_title_and_headings(
        tmp_path: Path) -> None:
    folder = make_set(tmp_path, "srv", "train")
    plain, _ = userpairs.set_rows(folder)
    framed, _ = userpairs.set_rows(folder, context=True)
    assert [(r["a"], r["label"], r["kind"]) for r in framed] == \
        [(r["a"], r["label"], r["kind"]) for r in plain]  # the same pairs, read in context
    for p, f in zip(plain, framed, strict=True):
        assert f["b"].endswith(f" | {p['b']}") and f["b"].startswith("Workers > ")
    answer = next(r for r in framed if r["label"] == 1)
    assert answer["b"].startswith("Workers > Timeouts | ")


def test_a_window_repeated_on_another_page_is_read_in_its_own_page_context(
        tmp_path: Path) -> None:
    folder = make_set(tmp_path, "srv", "train")
    timeouts = PAGE.split("## Timeouts\n\n")[1].split("\n\n## ")[0]
    (folder / "kb" / "copy.md").write_text(f"# Copied notes\n\n## Pasted\n\n{timeouts}\n")
    framed, _ = userpairs.set_rows(folder, context=True)
    answers = [r["b"] for r in framed if r["label"] == 1]
    assert answers and all(b.startswith("Workers > Timeouts | ") for b in answers)


def test_a_fine_tune_keeps_every_question_of_new_sets_and_a_share_of_those_already_read(
        tmp_path: Path) -> None:
    import random

    for name in ("old", "new"):
        folder = make_set(tmp_path, name, "train")
        extra = [{"question": f"how do I restart worker {n}?", "expected": "answer",
                  "category": "answerable", "gold_sources": ["workers.md"],
                  "answer_keys": ["max_requests"]} for n in range(8)]
        with open(folder / "questions.jsonl", "a") as fh:
            fh.write("\n".join(json.dumps(q) for q in extra) + "\n")
    (tmp_path / "READER.json").write_text(json.dumps({"sets": ["old"]}))
    assert userpairs.shipped_sets(tmp_path) == {"old"}
    rows, _ = userpairs.build(tmp_path)
    thinned = userpairs.thin_seen(rows, 0.5, random.Random(0), tmp_path)
    asked = {(r["set"], r["a"]) for r in rows}
    kept = {(r["set"], r["a"]) for r in thinned}
    assert {q for q in asked if q[0] == "new"} <= kept
    old = [q for q in asked if q[0] == "old"]
    assert len([q for q in kept if q[0] == "old"]) == round(0.5 * len(old))
    assert all(r in thinned for r in rows if (r["set"], r["a"]) in kept)  # whole questions
    assert userpairs.shipped_sets(tmp_path / "none") == frozenset()
