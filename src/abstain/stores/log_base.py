"""The query log's records and the protocol each store's log implements.

Kept apart from :mod:`abstain.querylog` (which finds a store's log and builds entries)
so that the stores' log modules import these without importing the module that
loads them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from abstain.errors import InputError

if TYPE_CHECKING:
    from abstain.evaluate.records import QuestionRecord

EXPECTED = ("answer", "refuse")
SETTINGS_KEY = "query_log"


@dataclass(frozen=True, slots=True)
class LogSettings:
    """Whether a store records its questions, for how long, and whether in clear."""

    enabled: bool = False
    retention_days: int | None = None
    """Entries older than this many days are deleted; None keeps them all."""
    redact: bool = False
    """Keep only the question's SHA-256, not its text nor the answer text."""

    def to_json(self) -> dict[str, Any]:
        return {"enabled": self.enabled, "retention_days": self.retention_days,
                "redact": self.redact}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LogSettings:
        days = data.get("retention_days")
        return cls(bool(data.get("enabled")), None if days is None else int(days),
                   bool(data.get("redact")))


@dataclass(frozen=True, slots=True)
class NewEntry:
    """What one answer adds to the log (see :func:`entry_of`)."""

    workspace: str
    question: str | None
    question_hash: str
    answered: bool
    reason: str | None
    confidence: float
    triage: str
    latency_ms: float
    llm_calls: int
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One logged question, as ``abstain log list / show`` print it."""

    id: int
    created_at: str
    workspace: str
    question: str | None
    question_hash: str
    answered: bool
    reason: str | None
    confidence: float
    triage: str
    latency_ms: float
    llm_calls: int
    record: dict[str, Any] = field(default_factory=dict)
    """features, checks, cited_sources, answer, chunks, timings_ms, llm_calls, notes."""
    expected: str | None = None
    note: str = ""
    gold_sources: tuple[str, ...] = ()
    labelled_at: str | None = None

    @classmethod
    def from_row(cls, r: Sequence[Any], *, record: dict[str, Any],
                 gold_sources: Sequence[str]) -> LogEntry:
        """A row of either store's ``SELECT`` of the log (columns in the order of the fields);
        ``record`` and ``gold_sources`` come decoded, as each store keeps them its own way."""
        return cls(id=int(r[0]), created_at=r[1], workspace=r[2], question=r[3],
                   question_hash=r[4], answered=bool(r[5]), reason=r[6],
                   confidence=float(r[7]), triage=r[8], latency_ms=float(r[9]),
                   llm_calls=int(r[10]), record=record, expected=r[12], note=r[13],
                   gold_sources=tuple(gold_sources), labelled_at=r[15])

    @property
    def decision(self) -> str:
        return "answered" if self.answered else f"refused: {self.reason}"

    @property
    def label_agrees(self) -> bool | None:
        """Whether the gate did what the reviewer expected; None while unlabelled."""
        if self.expected is None:
            return None
        return self.answered == (self.expected == "answer")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "created_at": self.created_at, "workspace": self.workspace,
                "question": self.question, "question_hash": self.question_hash,
                "answered": self.answered, "reason": self.reason,
                "confidence": round(self.confidence, 4), "triage": self.triage,
                "latency_ms": round(self.latency_ms, 2), "llm_calls": self.llm_calls,
                "expected": self.expected, "note": self.note,
                "gold_sources": list(self.gold_sources), "labelled_at": self.labelled_at,
                **{k: self.record.get(k) for k in ("features", "checks", "cited_sources",
                                                   "answer", "timings_ms", "notes")}}

    def to_labelled(self) -> dict[str, Any]:
        """A line of the ``abstain eval`` JSONL format (needs a label and the question)."""
        if self.expected is None or self.question is None:
            raise ValueError(f"entry {self.id} is unlabelled or redacted")
        return {"question": self.question, "expected": self.expected,
                "category": "answerable" if self.expected == "answer" else "refuse",
                "gold_sources": list(self.gold_sources), "gold_answer": None,
                "group": f"log-{self.id}"}

    def to_record(self) -> QuestionRecord:
        """The harness record of a labelled entry, as ``eval / calibrate --records`` read it."""
        from abstain.evaluate.data import LabelledQuestion
        from abstain.evaluate.records import CheckValue, ChunkSignal, QuestionRecord, _num

        if self.expected is None:
            raise ValueError(f"entry {self.id} is unlabelled")
        r = self.record
        item = LabelledQuestion(self.question or f"sha256:{self.question_hash}", self.expected,
                                "answerable" if self.expected == "answer" else "refuse",
                                self.gold_sources, group=f"log-{self.id}")
        return QuestionRecord(
            item=item, answered=self.answered, reason=self.reason,
            confidence=self.confidence,
            features={k: float(v) for k, v in (r.get("features") or {}).items()},
            checks=tuple(CheckValue(c["name"], bool(c["passed"]), _num(c.get("value")),
                                    _num(c.get("threshold")), c.get("reason"))
                         for c in r.get("checks") or []),
            chunks=tuple(ChunkSignal(**c) for c in r.get("chunks") or []),
            retrieved_coverage=float(r.get("retrieved_coverage") or 0.0),
            curated=bool(r.get("curated")),
            cited_sources=tuple(r.get("cited_sources") or ()),
            answer_text=str(r.get("answer") or ""), latency_ms=self.latency_ms)


class QueryLog(Protocol):
    """A store's query log; every read and write names its workspace."""

    def settings(self) -> LogSettings: ...

    def configure(self, settings: LogSettings) -> None: ...

    def append(self, entry: NewEntry, *, retention_days: int | None) -> int:
        """Write one entry (and delete entries past retention); returns its id."""
        ...

    def entries(self, workspace: str, *, answered: bool | None = None,
                since: str | None = None, labelled: bool | None = None,
                limit: int | None = None) -> list[LogEntry]:
        """Newest first."""
        ...

    def get(self, workspace: str, entry_id: int) -> LogEntry | None: ...

    def label(self, workspace: str, entry_id: int, expected: str, note: str = "",
              gold_sources: Sequence[str] = ()) -> bool: ...

    def prune(self, retention_days: int) -> int: ...


def question_hash(question: str) -> str:
    return hashlib.sha256(" ".join(question.split()).encode("utf-8")).hexdigest()


def check_expected(expected: str) -> str:
    if expected not in EXPECTED:
        raise InputError(f"expected must be 'answer' or 'refuse', got {expected!r}")
    return expected


def now_utc() -> str:
    return _iso(datetime.now(UTC))


def cutoff(retention_days: int) -> str:
    """The creation time before which entries are past retention."""
    return _iso(datetime.now(UTC) - timedelta(days=retention_days))


def parse_since(value: str) -> str:
    """``--since``: an ISO date or time (UTC), or a span back from now: ``30m``, ``12h``, ``7d``."""
    text = value.strip()
    units = {"m": "minutes", "h": "hours", "d": "days"}
    if text[:-1].isdigit() and text[-1:] in units:
        return _iso(datetime.now(UTC) - timedelta(**{units[text[-1]]: int(text[:-1])}))
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InputError(f"--since {value!r}: give an ISO date (2026-05-01), a time "
                         "(2026-05-01T12:00) or a span (30m, 12h, 7d)") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return _iso(moment.astimezone(UTC))


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
