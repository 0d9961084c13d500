"""Faults under a running abstain: a full disk during ingest, PostgreSQL stopped and
started again under traffic. A clear error, an intact store, recovery without restart."""

from __future__ import annotations

import random
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from abstain.embed.hashing import HashingEmbedder
from abstain.pipeline import Pipeline
from abstain.server import KeyStore
from abstain.stores.sqlite import SQLiteStore
from tests.server.crash_support import check_whole, document_text, serve
from tests.server.helpers import bearer

ABSTAIN = str(Path(sys.executable).with_name("abstain"))


def _write_docs(folder: Path, first: int, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(first, first + count):
        (folder / f"d{n}.md").write_text(document_text(n, random.Random(n)))


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A 600 KiB tmpfs (needs root; the test is skipped without it)."""
    where = Path(tempfile.mkdtemp(prefix="abstain-full-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(where)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        shutil.rmtree(where, ignore_errors=True)
        pytest.skip(f"cannot mount a small tmpfs: {mounted.stderr.strip()} (the "
                    "RLIMIT_FSIZE test covers the same path)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "--lazy", str(where)], check=False)
        shutil.rmtree(where, ignore_errors=True)


def _ingest(db: Path, folder: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ABSTAIN, "ingest", str(folder), "--db", str(db), "--embedder",
                           "hashing"], capture_output=True, text=True, timeout=300,
                          **kwargs)  # type: ignore[call-overload]


def _intact(db: Path) -> int:
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    store = SQLiteStore(db)
    try:
        return check_whole(store, "default", {})
    finally:
        store.close()


def test_full_disk_during_ingest_is_a_clear_error_and_the_store_stays_whole(
        small_disk: Path, tmp_path: Path) -> None:
    db = small_disk / "kb.db"
    _write_docs(tmp_path / "docs", 0, 200)
    run = _ingest(db, tmp_path / "docs")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert "Error: cannot write to" in run.stderr and "database or disk is full" in run.stderr
    assert "Free disk space" in run.stderr
    stored = _intact(db)
    assert 0 < stored < 200
    keys = KeyStore(tmp_path / "keys.db")
    key = keys.create(admin=True)[1]
    keys.close()
    with serve(["--db", str(db)], tmp_path / "keys.db", key) as server, httpx.Client(
            base_url=server.url, headers=bearer(key), timeout=30) as http:
        r = http.post("/v1/workspaces/default/documents",
                      json={"text": document_text(500, random.Random(5)) * 40,
                            "source": "big.md"})
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "service_error"
        assert "Free disk space" in r.json()["error"]["message"]
        assert len(http.get("/v1/workspaces/default/documents").json()["documents"]) == stored
        assert http.post("/v1/workspaces/default/ask",
                         json={"question": "What is in d1?"}).status_code == 200
    assert _intact(db) == stored


def test_a_file_size_limit_during_ingest_is_a_clear_error(tmp_path: Path) -> None:
    """The same without root: RLIMIT_FSIZE makes the writes fail as a full disk would."""
    db = tmp_path / "kb.db"
    _write_docs(tmp_path / "first", 0, 5)
    assert _ingest(db, tmp_path / "first").returncode == 0
    _write_docs(tmp_path / "docs", 5, 200)
    limit = db.stat().st_size + 200 * 1024

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    run = _ingest(db, tmp_path / "docs", preexec_fn=small_files)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and "Error: cannot write to" in run.stderr
    assert 5 < _intact(db) < 205


@pytest.mark.postgres
def test_postgres_stopped_under_traffic_gives_fast_503_and_recovers(tmp_path: Path) -> None:
    import psycopg

    from abstain.stores import pg_embedded
    from abstain.stores.postgres import PostgresStore

    root = Path(tempfile.mkdtemp(prefix="abstain-pg-fault-", dir="/tmp"))
    root.chmod(0o755)
    pg = pg_embedded.start(root, fsync=False)
    try:
        with psycopg.connect(pg.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE faults")
        url = pg.url("faults")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
        with Pipeline(PostgresStore(url), HashingEmbedder()) as pipe:
            for n in range(5):
                pipe.ingest_text(document_text(n, random.Random(n)), source=f"doc{n}.md",
                                 workspace="live")
        keys = KeyStore(tmp_path / "keys.db")
        key = keys.create(admin=True)[1]
        keys.close()
        with serve(["--store", url], tmp_path / "keys.db", key) as server:
            _traffic_through_an_outage(server.url, key, root, pg.port)
    finally:
        pg_embedded.stop(root)
        shutil.rmtree(root, ignore_errors=True)


def _traffic_through_an_outage(url: str, key: str, root: Path, port: int) -> None:
    from abstain.stores import pg_embedded

    results: list[tuple[str, int, str, float]] = []  # (phase, status, code, seconds)
    phase = ["before"]
    stop = threading.Event()

    def client() -> None:
        with httpx.Client(base_url=url, headers=bearer(key), timeout=60) as http:
            while not stop.is_set():
                started = time.monotonic()
                r = http.post("/v1/workspaces/live/ask",
                              json={"question": "What does paragraph 1 say about backup?"})
                code = r.json().get("error", {}).get("code", "") if r.status_code != 200 else ""
                results.append((phase[0], r.status_code, code, time.monotonic() - started))
                time.sleep(0.05)

    threads = [threading.Thread(target=client) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        _wait_for(lambda: sum(p == "before" and s == 200 for p, s, _, _ in results) >= 5)
        pg_embedded.stop(root)
        phase[0] = "down"
        _wait_for(lambda: sum(p == "down" for p, *_ in results) >= 10)
        ready = httpx.get(f"{url}/ready", timeout=60)
        assert ready.status_code == 503 and ready.json()["error"]["code"] == "store_unreachable"
        pg_embedded.start(root, port=port, fsync=False)
        phase[0] = "after"
        _wait_for(lambda: any(p == "after" and s == 200 for p, s, _, _ in results))
        count = len(results)
        _wait_for(lambda: len(results) >= count + 10)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=120)
    down = [r for r in results if r[0] == "down"]
    assert {(s, c) for _, s, c, _ in down} <= {(503, "service_error"), (200, "")}, down
    assert any(s == 503 for _, s, _, _ in down)
    assert all(s != 500 for _, s, _, _ in results), results
    last = results[-10:]
    assert all(s == 200 for _, s, _, _ in last), last
    assert httpx.get(f"{url}/ready", timeout=30).status_code == 200
    waits = sorted(t for _, s, _, t in down if s == 503)
    print(f"outage: {len(down)} questions, {len(waits)} got 503 (median "
          f"{waits[len(waits) // 2]:.2f} s, slowest {waits[-1]:.2f} s); recovered without "
          "a restart")


def _wait_for(condition: Callable[[], bool], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)

