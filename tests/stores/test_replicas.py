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

from abstain.embed import HashingEmbedder
from abstain.errors import AbstainError
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.options import AskOptions
from abstain.pipeline import Pipeline
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


def _pipeline(primary: str, replicas: list[str], **kwargs: float) -> Pipeline:
    """A pipeline over database ``notes`` of the pair (its own embedder), with one
    document in it; ``replicas`` name database ``kb`` and are pointed at ``notes``."""
    with psycopg.connect(primary, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'notes'").fetchone():
            conn.execute("CREATE DATABASE notes")
    url = pg_embedded.with_database(primary, "notes")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
    pipe = Pipeline(PostgresStore(url, replicas=[pg_embedded.with_database(r, "notes")
                                                 for r in replicas], **kwargs),
                    HashingEmbedder(), workspace="notes")
    pipe.ingest_text("# Mast\n\nThe mooring mast of the zeppelin is 61 metres tall.",
                     source="mast.md")
    return pipe


def test_a_lagging_replica_is_named_in_the_answers_audit_trail(
        servers: tuple[str, str, Path]) -> None:
    primary, replica, _ = servers
    with _pipeline(primary, [replica], replica_wait_s=0.0) as pipe:
        store = pipe.store
        assert isinstance(store, PostgresStore) and store.replicas is not None
        store.replicas.wrote("FFFFFFFF/0")  # a write the replica cannot have replayed
        answer = pipe.ask("How tall is the mooring mast of the zeppelin?")
        lagging = [n for n in answer.notes if "had not replayed the last write" in n]
        shown = pg_embedded.with_database(replica, "notes")
        assert lagging == [f"store: replica {shown} had not replayed the last write within"
                           " 0 s; the primary answered (read-your-writes)"]
        assert answer.audit_trail()["notes"] == list(answer.notes)
        assert answer.evidence and answer.evidence[0].source == "mast.md"


def test_a_failed_replica_is_named_in_the_answers_audit_trail(
        servers: tuple[str, str, Path]) -> None:
    primary, replica, _ = servers
    dead = f"postgresql://postgres:secret@127.0.0.1:{pg_embedded.free_port()}/kb"
    with _pipeline(primary, [dead], replica_wait_s=5.0) as pipe:
        first = pipe.ask("How tall is the mooring mast of the zeppelin?")
        failed = [n for n in first.notes if n.startswith("store: replica")]
        assert len(failed) == 1 and "secret" not in failed[0]
        assert failed[0].startswith("store: replica postgresql://postgres:***@127.0.0.1:")
        assert "out of the rotation for 30 s, the primary answered" in failed[0]
        second = pipe.ask("How tall is the mooring mast of the zeppelin?")
        assert ("store: every read replica is out of the rotation after failing; the"
                " primary answered") in second.notes
        assert first.evidence and second.evidence  # no question failed
    with _pipeline(primary, [replica], replica_wait_s=5.0) as pipe:  # a healthy one: no note
        answer = pipe.ask("How tall is the mooring mast of the zeppelin?")
        assert not [n for n in answer.notes if n.startswith("store:")]
        assert isinstance(pipe.store, PostgresStore) and pipe.store.replicas is not None
        assert pipe.store.replicas.reads["replica"] >= 2  # both arms


def test_ask_options_open_the_store_with_its_replicas(servers: tuple[str, str, Path]) -> None:
    primary, replica, _ = servers
    _pipeline(primary, []).close()  # database notes, bound to the hashing embedder
    primary, replica = (pg_embedded.with_database(u, "notes") for u in (primary, replica))
    options = AskOptions(store=primary, replicas=f"{replica} {replica}", embedder="hashing",
                         workspace="notes")
    with options.open_pipeline({}) as pipe:
        assert isinstance(pipe.store, PostgresStore) and pipe.store.replicas is not None
        assert pipe.store.replicas.urls == [replica, replica]
        assert pipe.ask("How tall is the mooring mast?").evidence
        assert pipe.store.replicas.reads["replica"] >= 2


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
