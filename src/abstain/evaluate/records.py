"""What the harness records per question: every signal the gate saw, and the outcome.

Records are plain frozen dataclasses that round-trip through JSON, so a run can
be saved once (``abstain eval … --records FILE``) and re-scored, swept or
calibrated without asking the questions again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abstain.errors import InputError
from abstain.evaluate.data import LabelledQuestion, parse_record
from abstain.text import fold

CONFIDENCE_CHECK = "calibrated_confidence"


@dataclass(frozen=True, slots=True)
class ChunkSignal:
    """One retrieved (fused) chunk as the gate saw it, before the chunk filter."""

    source: str
    title: str
    fused_score: float
    vector_rank: int | None
    vector_distance: float | None
    keyword_rank: int | None
    keyword_score: float | None
    confidence: float
    """Chunk confidence 0–100 (``confidence.chunk_confidence``; 0 for keyword-only hits)."""
    curated: bool = False


@dataclass(frozen=True, slots=True)
class CheckValue:
    name: str
    passed: bool
    value: float | None
    threshold: float | None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class QuestionRecord:
    item: LabelledQuestion
    answered: bool
    reason: str | None
    confidence: float
    features: dict[str, float]
    checks: tuple[CheckValue, ...]
    chunks: tuple[ChunkSignal, ...]
    rankings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Document sources in rank order per arm (``vector``, ``keyword``, ``hybrid``)."""
    retrieved_coverage: float = 0.0
    """Query-term coverage over every retrieved chunk (the ``seed003`` baseline's check)."""
    curated: bool = False
    """A curated match was kept (:func:`abstain.gate.curated_match`): the pipeline exempts it
    from the confidence checks."""
    cited_sources: tuple[str, ...] = ()
    answer_text: str = ""
    latency_ms: float = 0.0
    error: str | None = None

    @property
    def should_answer(self) -> bool:
        return self.item.should_answer

    @property
    def correct(self) -> bool | None:
        """For an answer to an answerable question: it cites a gold source (when the labels
        name any) and contains one of the answer keys (when given), else the gold answer,
        normalised; None when unanswered or when the labels cannot tell."""
        if not self.answered or not self.item.should_answer:
            return None
        item = self.item
        if not item.gold_sources and not item.gold_answer and not item.answer_keys:
            return None
        if item.gold_sources and not any(is_gold(s, item.gold_sources)
                                         for s in self.cited_sources):
            return False
        if item.answer_keys:
            return any(contains_key(self.answer_text, k) for k in item.answer_keys)
        if item.gold_answer:
            return contains_answer(self.answer_text, item.gold_answer)
        return True

    @property
    def right(self) -> bool:
        """An answer that answers: given to an answerable question and judged correct."""
        return self.correct is True

    def check(self, name: str) -> CheckValue | None:
        return next((c for c in self.checks if c.name == name), None)

    def passes_except(self, *names: str) -> bool:
        """Every recorded check passed, ignoring ``names``."""
        return all(c.passed for c in self.checks if c.name not in names)

    def signal(self, name: str) -> float | None:
        """A named number: ``confidence``, a feature, or a check's value."""
        if name == "confidence":
            return self.confidence
        if name in self.features:
            return self.features[name]
        check = self.check(name)
        return None if check is None else check.value

    def to_json(self) -> dict[str, Any]:
        return {
            **self.item.to_json(),
            "answered": self.answered, "reason": self.reason,
            "confidence": self.confidence, "features": self.features,
            "checks": [{"name": c.name, "passed": c.passed, "value": c.value,
                        "threshold": c.threshold, "reason": c.reason} for c in self.checks],
            "chunks": [{"source": c.source, "title": c.title, "fused_score": c.fused_score,
                        "vector_rank": c.vector_rank, "vector_distance": c.vector_distance,
                        "keyword_rank": c.keyword_rank, "keyword_score": c.keyword_score,
                        "confidence": c.confidence, "curated": c.curated}
                       for c in self.chunks],
            "rankings": {k: list(v) for k, v in self.rankings.items()},
            "retrieved_coverage": self.retrieved_coverage, "curated": self.curated,
            "cited_sources": list(self.cited_sources), "answer_text": self.answer_text,
            "latency_ms": self.latency_ms, "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QuestionRecord:
        return cls(
            item=parse_record(data),
            answered=bool(data["answered"]), reason=data.get("reason"),
            confidence=float(data["confidence"]),
            features={k: float(v) for k, v in (data.get("features") or {}).items()},
            checks=tuple(CheckValue(c["name"], bool(c["passed"]), _num(c.get("value")),
                                    _num(c.get("threshold")), c.get("reason"))
                         for c in data.get("checks") or []),
            chunks=tuple(ChunkSignal(**c) for c in data.get("chunks") or []),
            rankings={k: tuple(v) for k, v in (data.get("rankings") or {}).items()},
            retrieved_coverage=float(data.get("retrieved_coverage") or 0.0),
            curated=bool(data.get("curated")),
            cited_sources=tuple(data.get("cited_sources") or ()),
            answer_text=str(data.get("answer_text") or ""),
            latency_ms=float(data.get("latency_ms") or 0.0), error=data.get("error"))


def contains_answer(text: str, gold: str) -> bool:
    """Whether ``text`` contains ``gold`` once both are folded (case, accents, punctuation
    and spacing normalised) — the citation markers ``[n]`` of an answer are ignored."""
    def norm(value: str) -> str:
        folded = fold(re.sub(r"\[\d+\]", " ", value))
        return " ".join(re.sub(r"[^\w]+", " ", folded).split())

    needle = norm(gold)
    return bool(needle) and f" {needle} " in f" {norm(text)} "


def contains_key(text: str, key: str) -> bool:
    """Whether ``text`` contains the answer key ``key``: both folded (case, accents) with
    whitespace collapsed and the answer's citation markers ``[n]`` removed (from the key too,
    so that a key holding one, ``skip[12]``, still matches); punctuation is kept, since keys
    are often code (``--pk``, ``last_pk``, ``envvar=``)."""
    def norm(value: str) -> str:
        return " ".join(fold(value).split())

    needle = norm(unmarked(key))
    return bool(needle) and needle in norm(unmarked(text))


def unmarked(text: str) -> str:
    """An answer's text without its citation markers ``[n]``."""
    return re.sub(r" ?\[\d+\]", "", text)


def is_gold(source: str, gold: tuple[str, ...] | list[str]) -> bool:
    """A stored source matches a gold source exactly or as a path suffix
    (``src/.../reference/cli.html`` matches ``reference/cli.html``, ``/reference/cli.html``
    and ``./reference/cli.html``)."""
    return any(_matches(source, g) for g in gold)


def _matches(source: str, gold: str) -> bool:
    if source == gold:
        return True
    suffix = gold.replace("\\", "/").removeprefix("./").lstrip("/")
    return bool(suffix) and (source == suffix or source.endswith("/" + suffix))


def gold_ranking(ranked: tuple[str, ...], gold: tuple[str, ...]) -> tuple[str, ...]:
    """The ranking with each source that matches a gold source replaced by that gold name."""
    out = []
    for s in ranked:
        hit = next((g for g in gold if _matches(s, g)), None)
        out.append(hit if hit is not None else s)
    return tuple(dict.fromkeys(out))


def _num(value: object) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    return None


def save_records(records: Iterable[QuestionRecord], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r.to_json(), ensure_ascii=False) + "\n")


def load_records(path: str | Path) -> list[QuestionRecord]:
    """The records a run saved (``--save-records``); :class:`~abstain.errors.InputError`
    naming the line when the file is not one (a questions file, a truncated run)."""
    out: list[QuestionRecord] = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    out.append(QuestionRecord.from_json(json.loads(line)))
                except (ValueError, KeyError, TypeError) as exc:
                    hint = ("; it looks like a questions file: pass it as the DATA argument"
                            if isinstance(exc, KeyError) and '"question"' in line else "")
                    raise InputError(f"{path}: line {n}: not a record saved by "
                                     f"--save-records ({type(exc).__name__}: {exc}){hint}"
                                     ) from exc
    return out
