"""The SQLite store opens one connection per thread; threads that end must not leave theirs
open (a server's worker threads come and go: the soak found file descriptors growing)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from abstain.stores.sqlite import SQLiteStore


def _open_files(path: Path) -> int:
    return sum(1 for fd in os.listdir("/proc/self/fd")
               if os.path.realpath(f"/proc/self/fd/{fd}").startswith(str(path)))


def test_connections_of_ended_threads_are_closed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db")
    for _ in range(50):
        worker = threading.Thread(target=store.list_documents)
        worker.start()
        worker.join()
    assert len(store._conns) <= 2  # the opening thread's and the last worker's
    assert _open_files(tmp_path) <= 6  # the database and its WAL, per open connection
    store.close()
    assert _open_files(tmp_path) == 0


def test_a_migration_another_process_applied_meanwhile_is_not_applied_again(
        tmp_path: Path) -> None:
    """Two ingests into a new database: both read version 0, one migrates first; the other,
    once it holds the write lock, must see that (it crashed with "table meta already
    exists")."""
    import sqlite3

    from abstain.stores import sqlite_migrations

    path = tmp_path / "kb.db"
    first = sqlite3.connect(path, isolation_level=None)
    assert sqlite_migrations.migrate(first) == len(sqlite_migrations.MIGRATIONS)

    class Stale:
        """A connection whose first look at the version predates the other's migration."""

        def __init__(self) -> None:
            self.conn = sqlite3.connect(path, isolation_level=None)
            self.looked = False

        def execute(self, sql: str) -> sqlite3.Cursor:
            if sql == "PRAGMA user_version" and not self.looked:
                self.looked = True
                return self.conn.execute("SELECT 0")
            return self.conn.execute(sql)

    late = Stale()
    assert sqlite_migrations.migrate(late) == len(sqlite_migrations.MIGRATIONS)  # type: ignore[arg-type]
    assert late.conn.execute("PRAGMA user_version").fetchone()[0] == len(
        sqlite_migrations.MIGRATIONS)
