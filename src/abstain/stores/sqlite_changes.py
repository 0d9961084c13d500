"""Change logs of the SQLite store that an index beside the database replays.

A log (``vector_log`` for the approximate vector index, ``keyword_log`` for the keyword
index) is a table ``(seq INTEGER PRIMARY KEY AUTOINCREMENT, chunk_rowid, added)`` written
by triggers in the writing transaction. An index knows the last entry it holds; the log
is pruned up to what the saved indexes hold, and ``meta`` keeps ``<log>_pruned``, so that
an index older than the pruned entries is known to be beyond catching up.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

LOGS = ("vector_log", "keyword_log")


def newest(conn: sqlite3.Connection, log: str) -> int:
    """The last entry ever written to ``log`` (pruned or not): AUTOINCREMENT never reuses one."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (log,)).fetchone()
    return 0 if row is None else int(row[0])


def unloadable(conn: sqlite3.Connection, log: str, seq: int, what: str) -> str | None:
    """Why ``what`` (an index at entry ``seq`` of ``log``) cannot be caught up, if it cannot."""
    pruned = conn.execute("SELECT value FROM meta WHERE key = ?", (f"{log}_pruned",)).fetchone()
    last = newest(conn, log)
    if pruned is not None and seq < int(pruned[0]):
        return f"{what} is at change {seq} but the log starts after {pruned[0]}"
    if seq > last:
        return f"{what} is at change {seq}, newer than the database ({last})"
    return None


def prune(conn: sqlite3.Connection, log: str, upto: int) -> None:
    """Drop the entries of ``log`` up to ``upto`` (in a write transaction) and say so."""
    if log not in LOGS:
        raise ValueError(f"not a change log: {log}")
    if conn.execute(f"SELECT 1 FROM {log} WHERE seq <= ? LIMIT 1", (upto,)).fetchone():
        conn.execute(f"DELETE FROM {log} WHERE seq <= ?", (upto,))
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key)"
                     " DO UPDATE SET value = max(CAST(value AS INTEGER), excluded.value)",
                     (f"{log}_pruned", str(upto)))


def folder_beside(db_path: str, suffix: str) -> Path | None:
    """Where an index of the database lives (``<db><suffix>/``); None for an in-memory one."""
    if db_path == ":memory:":
        return None
    path = Path(db_path).expanduser()
    return path.with_name(path.name + suffix)
