"""The query log: every question asked on a store, for review, labelling and refitting the gate.

Off by default. ``abstain log on --db kb.db`` stores the setting (:class:`LogSettings`) in
the store itself, so every ask on that store — CLI, library and server — is recorded by
:func:`abstain.observe.observe`, one call after the Answer is built. An entry keeps the
decision, the refusal reason, the confidence, the features, every gate check with value and
threshold, the cited sources, the latency and the LLM calls; with ``redact`` the question is
kept only as its SHA-256 and the answer text is dropped. Entries older than
``retention_days`` are deleted as new ones are written.

A reviewer labels entries (``expected``: ``answer`` or ``refuse``); labelled entries become
:class:`~abstain.evaluate.records.QuestionRecord` (``abstain eval / calibrate --from-log``)
or lines of the ``abstain eval`` JSONL format (``abstain log export --labelled``).

Each store keeps its log in its own table (migration ``query_log``), always read and written
per workspace; PostgreSQL adds row-level security, as for documents.
"""


from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from abstain.errors import StoreError
from abstain.gate import curated_match
from abstain.stores.log_base import (
    EXPECTED,
    SETTINGS_KEY,
    LogEntry,
    LogSettings,
    NewEntry,
    QueryLog,
    check_expected,
    cutoff,
    now_utc,
    parse_since,
    question_hash,
)

if TYPE_CHECKING:
    from abstain.answer import Answer
    from abstain.stores.base import Store


def open_log(store: Store) -> QueryLog:
    """The query log of a SQLite or PostgreSQL store."""
    log = find_log(store)
    if log is None:
        raise StoreError(f"{type(store).__name__} keeps no query log (SQLite and PostgreSQL do)")
    return log


def find_log(store: Store) -> QueryLog | None:
    """The store's query log, or None for a store kind that has none."""
    from abstain.stores.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        from abstain.stores.sqlite_log import SQLiteQueryLog

        return SQLiteQueryLog(store)
    postgres = sys.modules.get("abstain.stores.postgres")  # loaded if the store is one
    if postgres is not None and isinstance(store, postgres.PostgresStore):
        from abstain.stores.postgres_log import PostgresQueryLog

        return PostgresQueryLog(store)
    return None


def entry_of(answer: Answer, *, redact: bool, calibration: str = "") -> NewEntry:
    """The log entry of a finished answer."""
    from abstain.confidence import term_coverage
    from abstain.text import content_words

    q_hash = question_hash(answer.question)
    checks = [{**c.to_json(), "reason": c.reason} for c in answer.checks]
    chunks = [{"source": e.source, "title": e.document.title,
               "fused_score": e.hit.fused_score, "vector_rank": e.hit.vector_rank,
               "vector_distance": e.hit.vector_distance, "keyword_rank": e.hit.keyword_rank,
               "keyword_score": e.hit.keyword_score, "confidence": e.confidence or 0.0,
               "curated": e.document.curated} for e in answer.evidence]
    evidence_passed = any(c.name == "evidence" and c.passed for c in answer.checks)
    record = {
        "features": answer.features, "checks": checks,
        "cited_sources": list(dict.fromkeys(c.source for c in answer.citations)),
        "answer": None if redact or not answer.answered else answer.text,
        "chunks": chunks,
        "retrieved_coverage": term_coverage(content_words(answer.question), answer.evidence)[0],
        "curated": evidence_passed and curated_match(answer.question, answer.evidence),
        "timings_ms": {k: round(v, 2) for k, v in answer.timings_ms.items()},
        "llm_calls": [c.to_json() for c in answer.llm_calls],
        "notes": list(answer.notes), "tier": answer.tier, "generator": answer.generator,
        "language": answer.language, "calibration": calibration,
    }
    return NewEntry(
        workspace=answer.workspace, question=None if redact else answer.question,
        question_hash=q_hash, answered=answer.answered,
        reason=answer.refusal.reason if answer.refusal else None,
        confidence=float(answer.confidence), triage=answer.triage,
        latency_ms=float(answer.timings_ms.get("total_ms", 0.0)),
        llm_calls=len(answer.llm_calls), record=record)


__all__ = ["EXPECTED", "SETTINGS_KEY", "LogEntry", "LogSettings", "NewEntry", "QueryLog",
           "check_expected", "cutoff", "entry_of", "find_log", "now_utc", "open_log",
           "parse_since", "question_hash"]
