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
