"""Read replicas, for real: two embedded PostgreSQL servers in streaming replication."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest

from abstain.errors import AbstainError
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores import pg_embedded
from abstain.stores.base import EmbedderInfo
from abstain.stores.postgres import PostgresStore

pytestmark = pytest.mark.postgres

EMB = EmbedderInfo("unit-test-4d", 4)


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str, Path]]:
    """(primary URL, replica URL, the replica's root) of a fresh streaming pair."""
    root = Path(tempfile.mkdtemp(prefix="abstain-pg-replicas-", dir="/tmp"))
    root.chmod(0o755)
    primary_root, replica_root = root / "primary", root / "replica"
    try:
        primary = pg_embedded.start(primary_root, fsync=False)
        with psycopg.connect(primary.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE kb")
        with psycopg.connect(primary.url("kb"), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
        replica = pg_embedded.start_replica(replica_root, primary, fsync=False)
        yield primary.url("kb"), replica.url("kb"), replica_root
    finally:
        for part in (replica_root, primary_root):
            with contextlib.suppress(AbstainError):  # a server that is already gone
                pg_embedded.stop(part)
        shutil.rmtree(root, ignore_errors=True)


def _write(store: PostgresStore, doc_id: str, text: str) -> None:
    doc = Document(doc_id, "a", f"{doc_id}.md", doc_id, f"h-{doc_id}")
    chunk = Chunk(f"{doc_id}-c0", doc_id, ChunkKind.CHILD, text, 0, None, ())
    store.write_document(doc, [chunk], np.ones((1, 4), dtype=np.float32), EMB)


def test_questions_read_the_replica_and_see_the_last_write(
        servers: tuple[str, str, Path]) -> None:
    primary, replica, _ = servers
    store = PostgresStore(primary, replicas=[replica], replica_wait_s=5.0)
    try:
        for n in range(5):
            _write(store, f"d{n}", f"zeppelin mooring mast number{n}")
            hits = store.search_text(f"number{n}", workspace="a", limit=5)
            assert [h.chunk_id for h in hits] == [f"d{n}-c0"]  # read-your-writes
        assert store.replicas is not None
        assert store.replicas.reads["replica"] == 5
        assert store.replicas.fallbacks == {}
        with psycopg.connect(replica) as conn:  # it is a standby, streaming from the primary
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
            assert row is not None and row[0] is True
    finally:
        store.close()


def test_a_lagging_replica_sends_the_question_to_the_primary(
        servers: tuple[str, str, Path]) -> None:
    primary, replica, _ = servers
    store = PostgresStore(primary, replicas=[replica], replica_wait_s=0.0)
    try:
        assert store.replicas is not None
        store.replicas.wrote("FFFFFFFF/0")  # a write the replica cannot have replayed
        hits = store.search_text("zeppelin", workspace="a", limit=10)
        assert len(hits) == 5
        assert store.replicas.fallbacks["lagging"] == 1
        assert store.replicas.reads["primary"] == 1
    finally:
        store.close()


def test_a_replica_that_goes_away_drops_out_without_failed_questions(
        servers: tuple[str, str, Path]) -> None:
    primary, replica, replica_root = servers
    store = PostgresStore(primary, replicas=[replica], replica_wait_s=5.0)
    try:
        assert len(store.search_text("zeppelin", workspace="a", limit=10)) == 5
        pg_embedded.stop(replica_root)
        for _ in range(3):
            assert len(store.search_text("zeppelin", workspace="a", limit=10)) == 5
        assert store.replicas is not None
        assert store.replicas.fallbacks["failed"] == 1  # then out of the rotation
        assert store.replicas.reads["primary"] == 3
    finally:
        store.close()
