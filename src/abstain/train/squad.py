"""SQuAD 2.0 (half of dev): articles split by index, sentence-level labels.

Odd-indexed articles train the model; even-indexed ones are held out (they are
the collection of the gate benchmark, so its numbers stay clean of training).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from abstain.rerank.windows import sentence_windows

SQUAD_FILE = Path("squad2-dev-half") / "dev-v2.0.json.gz"


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    article: int
    title: str
    paragraph: int
    """Index of its own paragraph within the article."""
    context: str
    impossible: bool
    spans: tuple[str, ...]
    """Answer texts (or plausible-answer texts for an impossible question)."""
    starts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Article:
    index: int
    title: str
    paragraphs: tuple[str, ...]
    questions: tuple[Question, ...]


TRAIN_FILE = Path("squad2-train-rebuilt") / "train-v2.0.rebuilt.json.gz"
"""SQuAD 2.0 train, rebuilt: 442 articles (impossible questions carry no plausible answers)."""
DEV19_FILE = Path("squad2-train-rebuilt") / "dev-v2.0.19-articles.json.gz"
"""The 19 official dev articles outside the gate benchmark: validation only."""


def load_articles(data: Path) -> list[Article]:
    """The benchmark half (``squad2-dev-half``); only the v1 recipes train on its odd half."""
    return load_file(data / SQUAD_FILE)


def load_file(path: Path) -> list[Article]:
    """Articles of a SQuAD 2.0 JSON file (gzipped); questions without an id get
    ``title/paragraph/number``."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        raw = json.load(fh)["data"]
    articles = []
    for a_idx, article in enumerate(raw):
        paragraphs, questions = [], []
        for p_idx, para in enumerate(article["paragraphs"]):
            paragraphs.append(para["context"])
            for q_idx, qa in enumerate(para["qas"]):
                spans = (qa.get("plausible_answers", []) if qa["is_impossible"]
                         else qa["answers"])
                questions.append(Question(
                    qa["id"] or f"{article['title']}/{p_idx}/{q_idx}", qa["question"].strip(),
                    a_idx, article["title"], p_idx, para["context"], bool(qa["is_impossible"]),
                    tuple(s["text"] for s in spans), tuple(s["answer_start"] for s in spans)))
        articles.append(Article(a_idx, article["title"], tuple(paragraphs), tuple(questions)))
    return articles


def split(articles: list[Article], part: str) -> list[Article]:
    """``train``: odd-indexed articles; ``heldout``: even-indexed ones."""
    if part not in ("train", "heldout"):
        raise ValueError(part)
    keep = 1 if part == "train" else 0
    return [a for a in articles if a.index % 2 == keep]


def span_windows(context: str, starts: tuple[int, ...], spans: tuple[str, ...],
                 windows: list[str] | None = None) -> tuple[list[str], set[int]]:
    """The context's windows and the indexes of those holding an answer span.

    Windows are located in the context by their first words; a window holds a
    span when the span's start offset falls inside it, or, failing that, when
    the span's text occurs in it. ``windows``: the context's windows, when already cut.
    """
    if windows is None:
        windows = sentence_windows(context, max_windows=10_000)
    bounds, cursor = [], 0
    for w in windows:
        head = " ".join(w.split()[:3])
        at = context.find(head, cursor)
        at = cursor if at < 0 else at
        bounds.append(at)
        cursor = at + 1
    bounds.append(len(context) + 1)
    hits: set[int] = set()
    for start, span in zip(starts, spans, strict=True):
        for i in range(len(windows)):
            if bounds[i] <= start < bounds[i + 1] and span.split()[0] in windows[i]:
                hits.add(i)
                break
        else:
            hits.update(i for i, w in enumerate(windows) if span and span in w)
    return windows, hits


def answer_free(window: str, q: Question) -> bool:
    """True when no answer text of ``q`` occurs in ``window`` (safe to use as a negative)."""
    low = window.lower()
    return not any(s.lower() in low for s in q.spans if s.strip())
