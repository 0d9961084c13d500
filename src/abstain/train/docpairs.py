"""Question × window pairs from public documentation (the v3 reader's documentation data).

``python -m abstain.train docs --mirror /work/.mirror --out FILE.jsonl.gz`` reads each project
of :data:`docsource.PROJECTS`, cuts every section into the sentence windows the reader reads
(:func:`abstain.rerank.windows.sentence_windows`), asks its questions
(:mod:`abstain.train.docquestions`) and writes one JSON row per pair::

    {"project", "split": "train" | "val", "a": question, "b": window or section,
     "head": 0 answers | 2 relevance, "label": 0 | 1, "kind", "group"}

Positives: a question and the window that answers it. Negatives that teach reading:

* ``sibling`` — the first window of another section of the same page;
* ``mined`` — the BM25-closest window of another page of the same project;
* ``other-context`` — a window elsewhere that names the asked identifier without answering
  (code only, or no default where a default is asked);
* near misses made from a positive, against its own window: ``nm-swap`` (the identifier,
  version or task swapped for one the section does not hold), ``nm-no-default`` (a default
  asked of a window that states none), ``nm-how-many`` (a count asked of a window with no or
  an unrelated number), ``nm-perf`` (speed, memory, platform questions it does not address).

Projects are split whole: those in :data:`docsource.VALIDATION` are validation only. A
validation group (``group``) is one question read against every window of its section; it
scores as its best window (answerable question 1, its near misses 0).
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abstain.evidence import ChunkKind
from abstain.ingest.chunk import iter_chunks
from abstain.rerank.windows import sentence_windows
from abstain.train import docquestions as dq
from abstain.train.docsource import VALIDATION, Snapshot
from abstain.train.trainset import ParagraphIndex

ANSWERS, RELEVANCE = 0, 2
DEFAULT_FILE = Path(__file__).parent / "data" / "docpairs.jsonl.gz"
"""Where the built pairs are kept (committed: a few MB)."""
MAX_PER_PROJECT = 900
"""Positive questions kept per project (seeded sample), so large docs do not dominate."""
SECTION_CHARS = 1200
"""Characters of a section kept for a relevance pair (the reader reads 192 tokens)."""


@dataclass(frozen=True)
class Unit:
    page: int
    path: tuple[str, ...]
    text: str
    windows: tuple[str, ...]


def units(snapshot: Snapshot) -> list[Unit]:
    """The pages' passages as abstain stores them: the parent chunks of its own chunker
    (a section, or a slice of a long one cut at paragraphs)."""
    out = []
    for p, page in enumerate(snapshot.pages):
        for chunk in iter_chunks(f"d{p}", page.doc):
            if chunk.kind is not ChunkKind.PARENT or len(chunk.text.split()) < 8:
                continue
            path = chunk.heading_path or (page.doc.title,)
            out.append(Unit(p, path, chunk.text, tuple(sentence_windows(chunk.text))))
    return out


def _row(project: str, split: str, a: str, b: str, head: int, label: int, kind: str,
         group: str = "") -> dict[str, Any]:
    return {"project": project, "split": split, "a": a, "b": b, "head": head, "label": label,
            "kind": kind, "group": group}


def project_rows(snapshot: Snapshot, seed: int) -> list[dict[str, Any]]:
    """Every pair of one project (train or validation by the project)."""
    repo = snapshot.project.repo
    split = "val" if repo in VALIDATION else "train"
    name = snapshot.project.name.removesuffix(".js").removesuffix(".com")
    rng = random.Random(f"{seed}:{repo}")
    us = units(snapshot)
    if not us:
        return []
    flat = [(u, w) for u in range(len(us)) for w in us[u].windows]
    index = ParagraphIndex([w for _, w in flat])
    idents = sorted({m.group(0).rstrip("()") for u in us for m in dq.CODE_ID.finditer(u.text)
                     if dq.is_name(m.group(0))})
    envs = sorted({e for u in us for e in dq.ENV_VAR.findall(u.text)})
    tasks = sorted({t for u in us if u.path for t in [dq._task(u.path[-1])] if t})
    by_page: dict[int, list[int]] = {}
    for i, u in enumerate(us):
        by_page.setdefault(u.page, []).append(i)
    asks: list[tuple[int, dq.Ask]] = []
    for i, u in enumerate(us):
        ws = list(u.windows)
        h = dq.heading_question(u.path, ws, name, rng)
        if h:
            asks.append((i, h))
        asks += [(i, a) for a in dq.fact_questions(u.path, ws, name, rng)]
    rng.shuffle(asks)
    asks = asks[:MAX_PER_PROJECT]
    rows: list[dict[str, Any]] = []
    for n, (i, ask) in enumerate(asks):
        u = us[i]
        window = u.windows[ask.window]
        group = f"{repo}#{n}" if split == "val" else ""
        if split == "val":
            rows += [_row(repo, split, ask.question, w, ANSWERS, 1, ask.kind, group)
                     for w in u.windows[:12]]
        else:
            rows.append(_row(repo, split, ask.question, window, ANSWERS, 1, ask.kind))
        for q, kind in _near_misses(ask, u, idents, envs, tasks, rng):
            if split == "val":
                rows += [_row(repo, split, q, w, ANSWERS, 0, kind, f"{group}{kind}")
                         for w in u.windows[:12]]
            else:
                rows.append(_row(repo, split, q, window, ANSWERS, 0, kind))
        if split == "val":
            continue
        rows += _negatives(repo, ask, i, us, by_page, flat, index, rng)
        if rng.random() < 0.3:
            rows.append(_row(repo, split, ask.question, u.text[:SECTION_CHARS], RELEVANCE, 1,
                             "rel-own"))
            others = [j for j in by_page[u.page] if j != i and not _holds(us[j].text, ask)]
            if others:
                rows.append(_row(repo, split, ask.question,
                                 us[rng.choice(others)].text[:SECTION_CHARS], RELEVANCE, 0,
                                 "rel-sibling"))
    return rows


def _holds(text: str, ask: dq.Ask) -> bool:
    """Could ``text`` answer ``ask`` too? (It names the asked identifier or version.)"""
    return bool(ask.target) and ask.kind not in ("topic", "howto", "faq", "why") \
        and ask.target.lower() in text.lower()


def _negatives(repo: str, ask: dq.Ask, i: int, us: list[Unit], by_page: dict[int, list[int]],
               flat: list[tuple[int, str]], index: ParagraphIndex,
               rng: random.Random) -> list[dict[str, Any]]:
    u = us[i]
    out = []
    siblings = [j for j in by_page[u.page] if j != i and us[j].path != u.path
                and not _holds(us[j].text, ask)]
    for j in rng.sample(siblings, min(1, len(siblings))):
        at = dq.first_prose(list(us[j].windows))
        out.append(_row(repo, "train", ask.question, us[j].windows[at or 0], ANSWERS, 0,
                        "sibling"))
    for k in index.top(ask.question, 10):
        j, w = flat[k]
        if us[j].page != u.page and not _holds(w, ask):
            out.append(_row(repo, "train", ask.question, w, ANSWERS, 0, "mined"))
            break
    if ask.target and ask.kind in ("what", "default", "values", "envvar"):
        t = ask.target.lower()
        elsewhere = [w for j, w in flat if j != i and t in w.lower()
                     and (dq.is_code(w) or (ask.kind == "default"
                                            and not dq.DEFAULT.search(w)))]
        if elsewhere:
            out.append(_row(repo, "train", ask.question, rng.choice(elsewhere), ANSWERS, 0,
                            "other-context"))
    return out


def _near_misses(ask: dq.Ask, u: Unit, idents: list[str], envs: list[str], tasks: list[str],
                 rng: random.Random) -> Iterator[tuple[str, str]]:
    """Questions made from ``ask`` that its section does not answer."""
    low = u.text.lower()
    pool = {"envvar": envs, "howto": tasks}.get(ask.kind, idents)
    if ask.kind == "released":
        other = dq.other_version(ask.target, rng)
        if other.lower() not in low:
            yield dq.swap_target(ask, other), "nm-swap"
    elif ask.target and pool and ask.kind not in ("faq", "why", "topic"):
        for other in rng.sample(pool, min(6, len(pool))):
            if other.lower() not in low and not _shares(other, ask.target):
                q = dq.swap_target(ask, other)
                if q:
                    yield q, "nm-swap"
                break
    name = ask.target if ask.kind in ("what", "default", "values", "envvar") else ""
    if name and ask.kind != "default" and not dq.DEFAULT.search(u.text) and rng.random() < 0.6:
        yield dq.default_of(name, rng), "nm-no-default"
    subject = name or (ask.target if ask.kind == "topic" and len(ask.target.split()) <= 3
                       else "")
    if subject and rng.random() < 0.5 and not re.search(r"\b(max|maximum|limit|at most|up to)\b",
                                                        low):
        yield dq.how_many(subject, rng), "nm-how-many"
    if subject and rng.random() < 0.35 and not re.search(
            r"faster|slower|memory|overhead|android|pypy|thread|millisecond|\bms\b", low):
        yield dq.performance(subject, rng), "nm-perf"


def _shares(a: str, b: str) -> bool:
    """Do two names share a word (``max_age`` / ``max_size``)? Then a swap may still be
    answered; skipped."""
    return a.lower() in b.lower() or b.lower() in a.lower()


def build(root: Path, out: Path, seed: int, projects: Any = None) -> dict[str, Any]:
    """Write the pairs to ``out`` (gzip JSON lines); the summary (also ``out``'s sidecar)."""
    from abstain.train import docsource

    summary: dict[str, Any] = {"seed": seed, "projects": []}
    counts: Counter[str] = Counter()
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        for snap in docsource.snapshots(root, projects or docsource.PROJECTS):
            rows = project_rows(snap, seed)
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
                counts[f"{r['split']}:{r['kind']}:{r['label']}"] += 1
            formats = Counter(Path(p.path).suffix.lower().lstrip(".") for p in snap.pages)
            summary["projects"].append({
                "repo": snap.project.repo, "kind": snap.project.kind,
                "commit": snap.commit, "licence": snap.licence,
                "split": "val" if snap.project.repo in VALIDATION else "train",
                "pages": len(snap.pages), "formats": dict(formats), "pairs": len(rows),
                "positives": sum(1 for r in rows if r["label"] == 1 and r["head"] == ANSWERS
                                 and (r["split"] == "train" or r["b"] is not None))})
            print(f"{snap.project.repo}: {len(snap.pages)} pages, {len(rows)} pairs",
                  flush=True)
    summary["counts"] = dict(sorted(counts.items()))
    out.with_suffix("").with_suffix(".summary.json").write_text(
        json.dumps(summary, indent=2) + "\n")
    return summary


def load(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]
