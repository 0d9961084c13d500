"""Question × window pairs from questions users ask of real documentation: the reader's
data shaped like its failure, which passage of the right page answers.

Each set is a folder of ``data/userdocs/`` (see its README): a project's documentation in
``kb/``, ``SOURCE.json`` (repository, commit, licence, and ``role``: ``train`` or ``eval``)
and ``questions.jsonl`` in :mod:`abstain.evaluate.data`'s format, written as users ask, the
answerable ones with verbatim ``answer_keys``. Only ``train`` sets give pairs; ``eval`` sets
are measured with ``abstain eval`` and never trained on.

The pages are cut as abstain stores and reads them (parent chunks, then
:func:`abstain.rerank.windows.sentence_windows`). For an answerable question:

* ``user`` (1) — each window of a gold page that holds one of its answer keys;
* ``user-window`` (0) — the first other windows of the passage that answers;
* ``user-sibling`` (0) — the BM25-closest windows of the gold pages' other passages: the right
  page's wrong passages, the ones that share the question's words;
* ``user-mined`` (0) — the BM25-closest windows of other pages that hold no key.

A near-miss question is read against the BM25-closest windows of the whole set (``user-nm``, 0):
the passages that share its words and do not answer it. Questions whose key falls across two
windows are skipped (counted in the summary).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from abstain.evaluate.records import contains_key
from abstain.evidence import ChunkKind
from abstain.ingest.chunk import iter_chunks
from abstain.ingest.parse import parse_file, readable
from abstain.rerank.windows import in_context, sentence_windows
from abstain.train.cache import ANSWERS
from abstain.train.docpairs import Unit
from abstain.train.trainset import ParagraphIndex

DEFAULT_ROOT = Path(__file__).resolve().parents[3] / "data" / "userdocs"
"""The sets in a checkout (not installed with the package)."""
SAME_PASSAGE = 4
"""Other windows of the answering passage read as negatives (its first ones)."""
SIBLINGS = 6
"""BM25-closest windows of the gold pages' other passages read as negatives."""
MINED = 3
"""BM25-closest windows of other pages read as negatives per answerable question."""
NEAR_MISS_WINDOWS = 6
"""BM25-closest windows a near-miss question is read against."""


def pages(kb: Path) -> list[Path]:
    """The files of a set's ``kb/`` that abstain ingests, in order."""
    return [p for p in sorted(kb.rglob("*")) if readable(p.suffix)]


def passages(kb: Path) -> tuple[list[str], list[str], list[Unit]]:
    """The set's pages (paths under ``kb``), their titles as abstain stores them, and their
    passages: parent chunks, each cut into windows (``Unit.page`` indexes the pages)."""
    files = pages(kb)
    titles, out = [], []
    for n, path in enumerate(files):
        doc = parse_file(path)
        titles.append(doc.title)
        for chunk in iter_chunks(f"d{n}", doc):
            if chunk.kind is ChunkKind.PARENT and len(chunk.text.split()) >= 4:
                out.append(Unit(n, chunk.heading_path, chunk.text,
                                tuple(sentence_windows(chunk.text))))
    return [str(p.relative_to(kb)) for p in files], titles, out


def sets(root: Path = DEFAULT_ROOT, role: str | None = None) -> list[Path]:
    """The set folders under ``root`` (of one ``role`` when given)."""
    found = sorted(p.parent for p in root.glob("*/SOURCE.json"))
    return [p for p in found if role is None or source(p).get("role") == role]


def source(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "SOURCE.json").read_text()))


def questions(folder: Path) -> list[dict[str, Any]]:
    with open(folder / "questions.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def set_rows(folder: Path, *, context: bool = False
             ) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Every pair of one set, and what was skipped; with ``context`` each window is read
    after its page title and headings (:func:`abstain.rerank.windows.in_context`)."""
    repo = source(folder)["repo"]
    names, titles, ps = passages(folder / "kb")
    flat = [(i, w) for i, p in enumerate(ps) for w in p.windows]
    index = ParagraphIndex([w for _, w in flat])
    rows: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()

    def row(q: str, window: str, passage: Unit, label: int, kind: str) -> None:
        b = in_context(window, titles[passage.page], passage.path) if context else window
        rows.append({"project": repo, "set": folder.name, "split": "train", "a": q, "b": b,
                     "head": ANSWERS,
                     "label": label, "kind": kind, "group": ""})

    for q in questions(folder):
        text = q["question"]
        if q.get("category") == "near_miss":
            for k in index.top(text, NEAR_MISS_WINDOWS):
                row(text, flat[k][1], ps[flat[k][0]], 0, "user-nm")
            continue
        keys = q.get("answer_keys") or []
        if q.get("expected") != "answer" or not keys:
            continue
        gold = set(q.get("gold_sources") or ())

        def held(window: str, keys: list[str] = keys) -> bool:
            return any(contains_key(window, k) for k in keys)

        on_page = [p for p in ps if names[p.page] in gold]
        if not any(held(w) for p in on_page for w in p.windows):
            skipped["key across windows or not on a gold page"] += 1
            continue
        for p in on_page:
            if any(held(w) for w in p.windows):
                answering = [w for w in p.windows if held(w)]
                for w in answering:
                    row(text, w, p, 1, "user")
                for w in [w for w in p.windows if not held(w)][:SAME_PASSAGE]:
                    row(text, w, p, 0, "user-window")
        siblings = mined = 0
        for k in index.top(text, 60):
            i, w = flat[k]
            on_gold = names[ps[i].page] in gold
            if held(w) or (on_gold and any(held(x) for x in ps[i].windows)):
                continue
            if on_gold and siblings < SIBLINGS:
                row(text, w, ps[i], 0, "user-sibling")
                siblings += 1
            elif not on_gold and mined < MINED:
                row(text, w, ps[i], 0, "user-mined")
                mined += 1

    return rows, skipped


def build(root: Path = DEFAULT_ROOT, *, context: bool = False
          ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The pairs of every ``train`` set (read in context with ``context``), and a summary (per
    set: pairs by kind, skipped)."""
    rows: list[dict[str, Any]] = []
    summary: dict[str, Any] = {"sets": []}
    for folder in sets(root, "train"):
        got, skipped = set_rows(folder, context=context)
        rows += got
        summary["sets"].append({"set": folder.name, "pairs": len(got),
                                "kinds": dict(Counter(f"{r['kind']}:{r['label']}" for r in got)),
                                "skipped": dict(skipped)})
    return rows, summary


def shipped_sets(root: Path = DEFAULT_ROOT) -> frozenset[str]:
    """The train sets the shipped reader was trained on (``READER.json``, written when a
    reader ships), by folder name."""
    path = root / "READER.json"
    if not path.exists():
        return frozenset()
    return frozenset(json.loads(path.read_text())["sets"])


def thin_seen(rows: list[dict[str, Any]], share: float, rng: random.Random,
              root: Path = DEFAULT_ROOT) -> list[dict[str, Any]]:
    """``rows`` with the questions of the sets the shipped reader already read kept at
    ``share`` (whole questions, all their pairs) and every question of the others: a
    fine-tune of the shipped reader learns the sets it never saw while the others keep what
    it read from them."""
    seen = shipped_sets(root)
    asked = sorted({(r["set"], r["a"]) for r in rows if r["set"] in seen})
    kept = set(rng.sample(asked, round(share * len(asked))))
    return [r for r in rows if r["set"] not in seen or (r["set"], r["a"]) in kept]
