"""The SQLite store's query log (table ``query_log``, settings in ``meta``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from abstain.stores.log_base import (
    SETTINGS_KEY,
    LogEntry,
    LogSettings,
    NewEntry,
    check_expected,
    cutoff,
    now_utc,
)
from abstain.stores.sqlite import SQLiteStore

_COLUMNS = ("id, created_at, workspace, question, question_hash, answered, reason, confidence,"
            " triage, latency_ms, llm_calls, record, expected, note, gold_sources, labelled_at")


class SQLiteQueryLog:
    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def settings(self) -> LogSettings:
        row = self.store._conn().execute("SELECT value FROM meta WHERE key = ?",
                                         (SETTINGS_KEY,)).fetchone()
        return LogSettings() if row is None else LogSettings.from_json(json.loads(row[0]))

    def configure(self, settings: LogSettings) -> None:
        with self.store._transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                         (SETTINGS_KEY, json.dumps(settings.to_json())))

    def append(self, entry: NewEntry, *, retention_days: int | None) -> int:
        with self.store._transaction() as conn:
            if retention_days is not None:
                conn.execute("DELETE FROM query_log WHERE created_at < ?",
                             (cutoff(retention_days),))
            cur = conn.execute(
                "INSERT INTO query_log (created_at, workspace, question, question_hash,"
                " answered, reason, confidence, triage, latency_ms, llm_calls, record)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (now_utc(), entry.workspace, entry.question, entry.question_hash,
                 int(entry.answered), entry.reason, entry.confidence, entry.triage,
                 entry.latency_ms, entry.llm_calls,
                 json.dumps(entry.record, ensure_ascii=False, default=str)))
            return int(cur.lastrowid or 0)

    def entries(self, workspace: str, *, answered: bool | None = None,
                since: str | None = None, labelled: bool | None = None,
                limit: int | None = None) -> list[LogEntry]:
        sql = f"SELECT {_COLUMNS} FROM query_log WHERE workspace = ?"
        params: list[Any] = [workspace]
        if answered is not None:
            sql += " AND answered = ?"
            params.append(int(answered))
        if since is not None:
            sql += " AND created_at >= ?"
            params.append(since)
        if labelled is not None:
            sql += " AND expected IS NOT NULL" if labelled else " AND expected IS NULL"
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [_entry(r) for r in self.store._conn().execute(sql, params).fetchall()]

    def get(self, workspace: str, entry_id: int) -> LogEntry | None:
        row = self.store._conn().execute(
            f"SELECT {_COLUMNS} FROM query_log WHERE workspace = ? AND id = ?",
            (workspace, entry_id)).fetchone()
        return None if row is None else _entry(row)

    def label(self, workspace: str, entry_id: int, expected: str, note: str = "",
              gold_sources: Sequence[str] = ()) -> bool:
        with self.store._transaction() as conn:
            return conn.execute(
                "UPDATE query_log SET expected = ?, note = ?, gold_sources = ?,"
                " labelled_at = ? WHERE workspace = ? AND id = ?",
                (check_expected(expected), note, json.dumps(list(gold_sources)), now_utc(),
                 workspace, entry_id)).rowcount > 0

    def prune(self, retention_days: int) -> int:
        with self.store._transaction() as conn:
            return conn.execute("DELETE FROM query_log WHERE created_at < ?",
                                (cutoff(retention_days),)).rowcount


def _entry(r: tuple[Any, ...]) -> LogEntry:
    return LogEntry.from_row(r, record=json.loads(r[11]), gold_sources=json.loads(r[14]))
