"""The PostgreSQL store's query log (table ``query_log`` under row-level security).

Every statement runs in a transaction bound to its workspace, and filters on it too;
only the retention delete spans workspaces. Settings live in the shared ``meta`` table.
"""

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
)
from abstain.stores.postgres import PostgresStore

_TIME = "to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
_COLUMNS = (f"id, {_TIME.format('created_at')}, workspace, question, question_hash, answered,"
            " reason, confidence, triage, latency_ms, llm_calls, record, expected, note,"
            f" gold_sources, {_TIME.format('labelled_at')}")


class PostgresQueryLog:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def settings(self) -> LogSettings:
        with self.store._tx(None) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = %s",
                               (SETTINGS_KEY,)).fetchone()
        return LogSettings() if row is None else LogSettings.from_json(json.loads(row[0]))

    def configure(self, settings: LogSettings) -> None:
        with self.store._tx(None) as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key)"
                         " DO UPDATE SET value = excluded.value",
                         (SETTINGS_KEY, json.dumps(settings.to_json())))

    def append(self, entry: NewEntry, *, retention_days: int | None) -> int:
        if retention_days is not None:
            self.prune(retention_days)
        with self.store._tx(entry.workspace) as conn:
            row = conn.execute(
                "INSERT INTO query_log (workspace, question, question_hash, answered, reason,"
                " confidence, triage, latency_ms, llm_calls, record)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb) RETURNING id",
                (entry.workspace, entry.question, entry.question_hash, entry.answered,
                 entry.reason, entry.confidence, entry.triage, entry.latency_ms,
                 entry.llm_calls, json.dumps(entry.record, ensure_ascii=False, default=str)),
            ).fetchone()
        return int(row[0]) if row else 0

    def entries(self, workspace: str, *, answered: bool | None = None,
                since: str | None = None, labelled: bool | None = None,
                limit: int | None = None) -> list[LogEntry]:
        query = (f"SELECT {_COLUMNS} FROM query_log WHERE workspace = %(ws)s"
                 " AND (%(answered)s::boolean IS NULL OR answered = %(answered)s)"
                 " AND (%(since)s::timestamptz IS NULL OR created_at >= %(since)s)"
                 " AND (%(labelled)s::boolean IS NULL"
                 "      OR (expected IS NOT NULL) = %(labelled)s)"
                 " ORDER BY id DESC LIMIT %(limit)s")
        params = {"ws": workspace, "answered": answered, "since": since,
                  "labelled": labelled, "limit": limit}
        with self.store._tx(workspace) as conn:
            return [_entry(r) for r in conn.execute(query, params).fetchall()]

    def get(self, workspace: str, entry_id: int) -> LogEntry | None:
        with self.store._tx(workspace) as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM query_log WHERE workspace = %s"
                               " AND id = %s", (workspace, entry_id)).fetchone()
        return None if row is None else _entry(row)

    def label(self, workspace: str, entry_id: int, expected: str, note: str = "",
              gold_sources: Sequence[str] = ()) -> bool:
        with self.store._tx(workspace) as conn:
            return conn.execute(
                "UPDATE query_log SET expected = %s, note = %s, gold_sources = %s,"
                " labelled_at = now() WHERE workspace = %s AND id = %s",
                (check_expected(expected), note, list(gold_sources), workspace, entry_id),
            ).rowcount > 0

    def prune(self, retention_days: int) -> int:
        with self.store._tx(None) as conn:
            return conn.execute("DELETE FROM query_log WHERE created_at < %s",
                                (cutoff(retention_days),)).rowcount


def _entry(r: tuple[Any, ...]) -> LogEntry:
    return LogEntry.from_row(r, record=r[11], gold_sources=r[14] or ())
