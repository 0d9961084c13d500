"""Labelled questions: the JSONL format, reading it line by line, and sampling.

One JSON object per line::

    {"question": "What causes error E1102?", "expected": "answer",
     "category": "answerable", "gold_sources": ["reference/error-codes.md"],
     "gold_answer": "CRC32C checksum ... does not match",
     "answer_keys": ["CRC32C checksum"]}

``expected`` is ``answer`` (the documents hold the answer) or ``refuse``;
``category`` defaults to ``answerable`` / ``refuse``. ``answer_keys`` (optional) are short
strings copied from the answering passage; an answer containing one of them answers the
question (see ``QuestionRecord.correct``). A malformed line is
reported with its line number and skipped; the rest of the file is read.
"""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXPECTED = ("answer", "refuse")


@dataclass(frozen=True, slots=True)
class LabelledQuestion:
    question: str
    expected: str
    """``answer`` or ``refuse``."""
    category: str
    gold_sources: tuple[str, ...] = ()
    gold_answer: str | None = None
    group: str | None = None
    """Questions that share a group (e.g. a SQuAD article) are split together by `calibrate`."""
    line: int | None = None
    answer_keys: tuple[str, ...] = ()
    """Short strings copied from the answering passage: an answer holding any one of them
    (folded, whitespace collapsed) answers the question, not just its topic."""

    @property
    def should_answer(self) -> bool:
        return self.expected == "answer"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"question": self.question, "expected": self.expected,
                               "category": self.category, "gold_sources": list(self.gold_sources),
                               "gold_answer": self.gold_answer, "group": self.group}
        if self.answer_keys:
            out["answer_keys"] = list(self.answer_keys)
        return out


@dataclass(frozen=True, slots=True)
class LineProblem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True, slots=True)
class LabelledSet:
    questions: tuple[LabelledQuestion, ...]
    problems: tuple[LineProblem, ...] = ()
    name: str = ""


@dataclass(frozen=True, slots=True)
class CollectionDoc:
    """One document a built-in loader ingests before the questions are asked."""

    source: str
    text: str
    title: str | None = None


@dataclass(frozen=True, slots=True)
class Dataset:
    """A built-in benchmark: its collection and its labelled questions."""

    name: str
    collection: tuple[CollectionDoc, ...]
    questions: tuple[LabelledQuestion, ...]
    protocol: str
    counts: dict[str, int] = field(default_factory=dict)


def parse_record(obj: object, line: int | None = None) -> LabelledQuestion:
    """One labelled question from a decoded JSON value; ValueError says what is wrong."""
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    question = obj.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("'question' must be a non-empty string")
    expected = obj.get("expected")
    if expected is None and isinstance(obj.get("category"), str) and obj["category"].strip():
        # the category says it: answerable questions are to be answered, the others refused
        expected = "answer" if obj["category"].strip().lower() == "answerable" else "refuse"
    if expected is None:
        raise ValueError("'expected' is missing: give \"expected\": \"answer\" or "
                         "\"refuse\" (or a \"category\": \"answerable\" is answered, any "
                         "other refused)")
    if expected not in EXPECTED:
        raise ValueError(f"'expected' must be 'answer' or 'refuse', got {expected!r}")
    category = obj.get("category") or ("answerable" if expected == "answer" else "refuse")
    if not isinstance(category, str):
        raise ValueError("'category' must be a string")
    category = category.strip().lower()  # "Answerable" is the answerable column
    gold = obj.get("gold_sources") or []
    if isinstance(gold, str):
        gold = [gold]
    if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
        raise ValueError("'gold_sources' must be a list of strings")
    answer = obj.get("gold_answer")
    if answer is not None and not isinstance(answer, str):
        answer = str(answer)
    group = obj.get("group")
    keys = obj.get("answer_keys") or []
    if isinstance(keys, str | int | float) and not isinstance(keys, bool):
        keys = [keys]
    if not isinstance(keys, list) or not all(
            isinstance(k, str | int | float) and not isinstance(k, bool) for k in keys):
        raise ValueError("'answer_keys' must be a list of strings")
    keys = [str(k) for k in keys]  # a port or a default written as a number: 7421
    return LabelledQuestion(question.strip(), str(expected), category, tuple(gold), answer,
                            None if group is None else str(group), line,
                            tuple(k for k in keys if k.strip()))


def read_jsonl(path: str | Path) -> LabelledSet:
    """Read a labelled JSONL file; bad lines become :class:`LineProblem` entries, not errors."""
    questions: list[LabelledQuestion] = []
    problems: list[LineProblem] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                problems.append(LineProblem(n, f"not valid JSON ({exc.msg}, column {exc.colno})"))
                continue
            try:
                questions.append(parse_record(obj, n))
            except ValueError as exc:
                problems.append(LineProblem(n, str(exc)))
    return LabelledSet(tuple(questions), tuple(problems), Path(path).name)


def repeated(questions: Sequence[LabelledQuestion]) -> list[str]:
    """Each question asked again (case and spacing aside), as "line 5 = line 1" (", labelled
    both ways" when its label differs): each is counted every time it is asked."""
    first: dict[str, LabelledQuestion] = {}
    out = []
    for q in questions:
        seen = first.setdefault(" ".join(q.question.casefold().split()), q)
        if seen is not q:
            both = ", labelled both ways" if seen.expected != q.expected else ""
            out.append(f"line {q.line} = line {seen.line}{both}")
    return out


def select(questions: Sequence[LabelledQuestion], limit: int | None, *, sample: bool = False,
           seed: int = 0) -> tuple[LabelledQuestion, ...]:
    """The first ``limit`` questions, or a seeded random sample stratified by category."""
    if limit is None or limit >= len(questions):
        return tuple(questions)
    if limit <= 0:
        return ()
    if not sample:
        return tuple(questions[:limit])
    rng = random.Random(seed)
    by_cat: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        by_cat[q.category].append(i)
    picked: list[int] = []
    total = len(questions)
    for idx in by_cat.values():
        share = max(1, round(limit * len(idx) / total))
        picked.extend(rng.sample(idx, min(share, len(idx))))
    rng.shuffle(picked)
    return tuple(questions[i] for i in sorted(picked[:limit]))


def split_groups(questions: Iterable[LabelledQuestion], fraction: float, *, seed: int = 0
                 ) -> tuple[list[int], list[int]]:
    """Indices of a (fit, hold-out) split; questions of one group stay on one side.

    Stratified: groups are ordered by their share of answerable questions and every
    1/fraction-th one is held out (systematic sampling from a seeded offset), so both sides
    keep about the same mix — a split by article must not also be a split by base rate.
    """
    items = list(questions)
    keys = [q.group if q.group is not None else f"#{i}" for i, q in enumerate(items)]
    share: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for k, q in zip(keys, items, strict=True):
        share[k][0] += q.should_answer
        share[k][1] += 1
    rng = random.Random(seed)
    tiebreak = {k: rng.random() for k in sorted(share)}
    ordered = sorted(share, key=lambda k: (share[k][0] / share[k][1], tiebreak[k]))
    offset = rng.random()
    held = {k for i, k in enumerate(ordered)
            if math.floor((i + 1) * fraction + offset) > math.floor(i * fraction + offset)}
    fit = [i for i, k in enumerate(keys) if k not in held]
    hold = [i for i, k in enumerate(keys) if k in held]
    return fit, hold
