"""kill -9 of a real `abstain serve` during uploads and during streams, on both stores.

Afterwards every acknowledged upload is there whole, no document is half-written, both
indexes agree with the chunk table, the query log holds only whole entries, and the
server starts again on the same store and answers. PostgreSQL stopped under traffic
and a full disk are in test_faults.py.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from abstain.querylog import open_log
from abstain.server import KeyStore
from abstain.stores.base import Store
from abstain.stores.log_base import LogSettings
from tests.server.crash_support import (
    check_whole,
    document_text,
    serve,
    stream_until_killed,
    token,
    upload_until_killed,
)
from tests.server.helpers import bearer

WS = "crash"
KILLS = 2


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def target(request: pytest.FixtureRequest, tmp_path: Path
           ) -> Iterator[tuple[list[str], Callable[[], Store]]]:
    """(the `serve` store options, a function that opens the store here)."""
    if request.param == "sqlite":
        from abstain.stores.sqlite import SQLiteStore

        db = tmp_path / "kb.db"
        yield ["--db", str(db)], lambda: SQLiteStore(db)
        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    else:
        from abstain.stores.postgres import PostgresStore

        url = request.getfixturevalue("pg_database")
        yield ["--store", url], lambda: PostgresStore(url)


@pytest.fixture
def admin(tmp_path: Path) -> tuple[Path, str]:
    keys = KeyStore(tmp_path / "keys.db")
    key = keys.create(admin=True)[1]
    keys.close()
    return tmp_path / "keys.db", key


def test_kill_9_during_uploads_loses_no_acknowledged_upload(
        target: tuple[list[str], Callable[[], Store]], admin: tuple[Path, str]) -> None:
    args, open_store = target
    acked: dict[str, tuple[str, int]] = {}
    for kill in range(KILLS):
        with serve(args, *admin) as server:
            uploads = upload_until_killed(server, WS, clients=4, kill_after=15,
                                          start=kill * 10_000)
        assert not uploads.errors, uploads.errors[:3]
        assert len(uploads.acked) >= 15
        acked.update(uploads.acked)
        store = open_store()
        try:
            stored = check_whole(store, WS, acked)
        finally:
            store.close()
        print(f"kill {kill + 1}: {uploads.sent} uploads sent, {len(uploads.acked)} "
              f"acknowledged, {stored} documents whole, 0 lost")
    with serve(args, *admin) as server, httpx.Client(
            base_url=server.url, headers=bearer(server.key), timeout=30) as http:
        r = http.post(f"/v1/workspaces/{WS}/documents",
                      json={"text": document_text(99_999, random.Random(1)),
                            "source": "doc99999.md"})
        assert r.status_code == 201, r.text
        listed = http.get(f"/v1/workspaces/{WS}/documents").json()["documents"]
        assert {d["source"] for d in listed} >= set(acked) | {"doc99999.md"}
        answer = http.post(f"/v1/workspaces/{WS}/ask",
                           json={"question": f"What does paragraph 1 of {token(99_999)} say?"})
        assert answer.status_code == 200, answer.text


def test_kill_9_during_streams_leaves_store_and_log_whole(
        target: tuple[list[str], Callable[[], Store]], admin: tuple[Path, str]) -> None:
    args, open_store = target
    store = open_store()
    open_log(store).configure(LogSettings(enabled=True))
    store.close()
    with serve(args, *admin) as server, httpx.Client(
            base_url=server.url, headers=bearer(server.key), timeout=30) as http:
        rng = random.Random(7)
        acked = {}
        for n in range(6):
            text = document_text(n, rng)
            r = http.post(f"/v1/workspaces/{WS}/documents",
                          json={"text": text, "source": f"doc{n}.md"})
            acked[f"doc{n}.md"] = (text, r.json()["chunks"])
    questions = [f"What does paragraph {p} of {token(n)} say about backup?"
                 for n in range(6) for p in range(3)] + ["What is the boiling point of tin?"]
    finished = 0
    for _ in range(KILLS):
        with serve(args, *admin) as server:
            done, cut = stream_until_killed(server, WS, questions, clients=4, kill_after=10)
        assert done >= 10
        finished += done
        store = open_store()
        try:
            check_whole(store, WS, acked)
            entries = open_log(store).entries(WS, limit=1000)
        finally:
            store.close()
        # Every stream that finished is logged whole; one cut short may be too, or not.
        assert finished <= len(entries) <= finished + cut + 4
        assert all(e.question in questions and (e.answered or e.reason)
                   for e in entries)
        print(f"streams: {done} finished, {cut} cut by the kill; {len(entries)} log entries")
    with serve(args, *admin) as server, httpx.Client(
            base_url=server.url, headers=bearer(server.key), timeout=30) as http, \
            http.stream("POST", f"/v1/workspaces/{WS}/ask/stream",
                        json={"question": questions[0]}) as r:
        assert "event: done" in "".join(r.iter_text())
