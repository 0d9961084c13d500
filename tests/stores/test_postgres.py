"""What only the PostgreSQL store has: row-level security, fusion in SQL, server errors."""

from __future__ import annotations

import random
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import psycopg
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abstain.errors import EmbedderMismatch, StoreError
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.fuse import collapse, rrf
from abstain.stores import open_store, pg_embedded
from abstain.stores.base import EmbedderInfo
from abstain.stores.postgres import PostgresStore
from abstain.stores.postgres_migrations import APP_ROLE, MIGRATIONS

pytestmark = pytest.mark.postgres

EMB = EmbedderInfo("pg-test-8d", 8)
WORDS = ["backup", "retention", "policy", "restore", "error", "cluster", "node", "shard",
         "replica", "quorum"]
FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _write_random(store: PostgresStore, rng: random.Random, ws: str, docs: int) -> set[str]:
    """Documents of a ten-word vocabulary (many keyword ties), vectors with duplicates
    (distance ties), paraphrases and unpublished drafts; returns the chunk ids."""
    ids: set[str] = set()
    palette = [rng.gauss(0, 1) for _ in range(EMB.dim * 4)]
    for d in range(docs):
        doc_id = f"{ws}-d{d}"
        doc = Document(doc_id, ws, f"{doc_id}.md", f"Doc {rng.choice(WORDS)}", "h",
                       published=rng.random() > 0.15)
        parent = Chunk(f"{doc_id}-p", doc_id, ChunkKind.PARENT, "parent text", 0, None, ("H",))
        chunks = [parent]
        for i in range(rng.randint(1, 4)):
            chunks.append(Chunk(f"{doc_id}-c{i}", doc_id, ChunkKind.CHILD,
                                " ".join(rng.choices(WORDS, k=rng.randint(2, 8))), i,
                                parent.id, (rng.choice(WORDS),)))
        for i in range(rng.randint(0, 2)):
            target = rng.choice(chunks[1:])
            chunks.append(Chunk(f"{doc_id}-q{i}", doc_id, ChunkKind.PARAPHRASE,
                                " ".join(rng.choices(WORDS, k=3)), i, target.id))
        rows = []
        for _ in chunks[1:]:
            start = rng.randrange(4) * EMB.dim
            rows.append(palette[start:start + EMB.dim] if rng.random() < 0.3
                        else [rng.gauss(0, 1) for _ in range(EMB.dim)])
        vectors = np.array(rows, dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.write_document(doc, chunks, vectors, EMB, identifiers=(f"ID-{d}",))
        ids |= {c.id for c in chunks}
    return ids


# -- row-level security --------------------------------------------------------
def test_rls_hides_other_workspaces_from_hand_written_sql(pg: PostgresStore,
                                                          pg_database: str) -> None:
    rng = random.Random(1)
    owned = {ws: _write_random(pg, rng, ws, 5) for ws in ("a", "b")}
    with psycopg.connect(pg_database) as conn:
        conn.execute(f"SET ROLE {APP_ROLE}")
        assert conn.execute("SELECT * FROM chunks").fetchall() == []  # bound to no workspace
        conn.execute("SELECT set_config('abstain.workspace', 'a', false)")
        chunk_ids = {r[0] for r in conn.execute("SELECT id FROM chunks")}
        assert chunk_ids == owned["a"]
        rows = conn.execute("SELECT * FROM chunks").fetchall()
        assert rows and all("a" in r for r in rows)
        assert {r[0] for r in conn.execute("SELECT workspace FROM documents")} == {"a"}
        assert {r[0] for r in conn.execute("SELECT workspace FROM identifiers")} == {"a"}
        assert conn.execute("SELECT count(*) FROM chunks WHERE workspace = 'b'"
                            ).fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute("INSERT INTO documents (id, workspace, source, title, content_hash)"
                         " VALUES ('x', 'b', 'x.md', 'x', 'h')")


def test_pooled_connections_drop_superuser_rights(pg: PostgresStore) -> None:
    with pg._tx("a") as conn:
        assert conn.execute("SELECT current_user, current_setting('abstain.workspace')"
                            ).fetchone() == (APP_ROLE, "a")
        row = conn.execute("SELECT relrowsecurity, relforcerowsecurity FROM pg_class"
                           " WHERE relname = 'chunks'").fetchone()
        assert row == (True, True)


def test_schema_is_versioned_and_hnsw_takes_its_parameters(pg: PostgresStore,
                                                           pg_database: str) -> None:
    _write_random(pg, random.Random(2), "a", 1)
    with psycopg.connect(pg_database) as conn:
        assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone() == (
            len(MIGRATIONS),)
        (index,) = conn.execute("SELECT indexdef FROM pg_indexes"
                                " WHERE indexname = 'chunks_embedding_hnsw'").fetchone() or ("",)
        assert "hnsw (embedding vector_cosine_ops)" in index
        assert "m='8'" in index and "ef_construction='32'" in index
        assert conn.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute"
                            " WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
                            ).fetchone() == ("vector(8)",)
    PostgresStore(pg_database).close()  # reopening applies nothing new


def test_both_arms_can_use_their_index_under_rls(pg: PostgresStore, pg_database: str) -> None:
    """RLS admits only leakproof operators as index conditions: without the migration's
    LEAKPROOF mark on ``@@`` the keyword arm could only scan every row."""
    from abstain.stores import postgres_sql as sql

    _write_random(pg, random.Random(4), "a", 3)
    with psycopg.connect(pg_database, autocommit=True) as conn:  # leave GIN the only way in
        conn.execute("DROP INDEX chunks_workspace")
    q = np.ones(EMB.dim, dtype=np.float32)
    params = {"q": q, "terms": ["backup", "policy"], "exact": [], "ws": "a",
              "published_only": True, "limit": 5, "quota": 100, "best": 100, "budget": 100}
    with pg._tx("a") as conn:
        conn.execute("SET LOCAL enable_seqscan = off")
        plans = ["\n".join(r[0] for r in conn.execute(f"EXPLAIN {stmt}".encode(), params))
                 for stmt in (sql.SEARCH_TEXT, sql.SEARCH_VECTOR)]
    assert "Bitmap Index Scan on chunks_tsv" in plans[0]
    assert "Index Only Scan Backward using chunk_terms_pkey" in plans[0] or (
        "Index Scan Backward using chunk_terms_pkey" in plans[0])  # rule 4's best rows
    assert "Index Scan using chunks_embedding_hnsw" in plans[1]


def test_impact_postings_follow_every_write(pg: PostgresStore, pg_database: str) -> None:
    """chunk_terms (keyword_bounds rule 4) holds exactly one row per searchable chunk and
    word, and chunk_counts each workspace's searchable and published chunks, after writes,
    bulk loads, re-ingests, deletes and unpublishing, as triggers keep them."""
    rng = random.Random(11)
    _write_random(pg, rng, "a", 6)
    _write_random(pg, rng, "b", 3)
    _write_random(pg, rng, "a", 4)  # the same documents again: replaced
    docs = [(Document(f"bulk{i}", "a", f"bulk{i}.md", "Bulk", "h"),
             [Chunk(f"bulk{i}-c0", f"bulk{i}", ChunkKind.CHILD, "restore the cluster node", 0,
                    None, ("Backup",))], np.ones((1, EMB.dim), dtype=np.float32))
            for i in range(3)]
    pg.write_documents(docs, EMB)
    assert pg.delete_document("a", "a-d1") and pg.delete_document("a", "bulk0")
    assert pg.set_published("a", "bulk1", False)
    with psycopg.connect(pg_database, autocommit=True) as conn:
        recount = conn.execute(
            "SELECT workspace, count(*), count(*) FILTER (WHERE published) FROM chunks"
            " WHERE tsv IS NOT NULL GROUP BY workspace ORDER BY 1").fetchall()
        assert conn.execute("SELECT workspace, searchable, published FROM chunk_counts"
                            " ORDER BY 1").fetchall() == recount  # migration 7
        expected = conn.execute(
            "SELECT c.workspace, t.term, t.impact, c.seq FROM chunks c,"
            " abstain_chunk_terms(c.tsv) AS t WHERE c.tsv IS NOT NULL"
            " ORDER BY 1, 2, 3, 4").fetchall()
        held = conn.execute("SELECT workspace, term, impact, seq FROM chunk_terms"
                            " ORDER BY 1, 2, 3, 4").fetchall()
    assert held == expected and len(held) > 50
    hits = pg.search_text("restore cluster", workspace="a", limit=3)
    assert "bulk2-c0" in {h.chunk_id for h in hits} and "bulk1-c0" not in {
        h.chunk_id for h in hits}


# -- fusion in SQL -------------------------------------------------------------
@pytest.fixture
def random_corpora(pg: PostgresStore) -> PostgresStore:
    rng = random.Random(7)
    for ws in ("r0", "r1", "r2"):
        _write_random(pg, rng, ws, rng.randint(3, 25))
    return pg


@FUZZ
@given(ws=st.sampled_from(["r0", "r1", "r2", "missing"]),
       words=st.lists(st.sampled_from([*WORDS, "absent", "poli", "the"]), max_size=4),
       seed=st.integers(0, 2**32 - 1), k=st.sampled_from([0, 1, 60]),
       candidates=st.integers(1, 40), top=st.integers(1, 50), published_only=st.booleans())
def test_sql_fusion_equals_python_fusion(random_corpora: PostgresStore, ws: str,
                                         words: list[str], seed: int, k: int, candidates: int,
                                         top: int, published_only: bool) -> None:
    store = random_corpora
    q = np.random.default_rng(seed).normal(size=EMB.dim).astype(np.float32)
    text = " ".join(words)
    args = {"workspace": ws, "published_only": published_only}
    expected = rrf(collapse(store.search_vector(q, limit=candidates, **args)),
                   collapse(store.search_text(text, limit=candidates, **args)), k=k)[:top]
    got = store.search_fused(q, text, limit=top, candidates=candidates, k=k, **args)
    assert got == expected  # same order, same ranks, bit-identical scores


def test_sql_fusion_keeps_one_hit_per_source(pg: PostgresStore) -> None:
    doc = Document("d1", "a", "d1.md", "T", "h")
    chunks = [Chunk("d1-p", "d1", ChunkKind.PARENT, "backups", 0),
              Chunk("d1-c0", "d1", ChunkKind.CHILD, "backups are kept 30 days", 0, "d1-p"),
              Chunk("d1-q0", "d1", ChunkKind.PARAPHRASE, "how long are backups kept", 0,
                    "d1-c0")]
    pg.write_document(doc, chunks, np.eye(EMB.dim, dtype=np.float32)[:2], EMB)
    (hit,) = pg.search_fused(np.eye(EMB.dim, dtype=np.float32)[1], "backups kept",
                             workspace="a", limit=5, candidates=5)
    assert (hit.chunk_id, hit.vector_rank, hit.keyword_rank) == ("d1-c0", 1, 1)
    assert hit.fused_score == pytest.approx(2 / 61)


@FUZZ
@given(text=st.text(max_size=60))
def test_any_text_is_a_safe_tsquery(pg: PostgresStore, text: str) -> None:
    if not pg.list_documents():
        _write_random(pg, random.Random(3), "a", 2)
    assert isinstance(pg.search_text(text, workspace="a", limit=5), list)


# -- bad input -------------------------------------------------------------------
def test_a_malformed_url_is_one_clear_error() -> None:
    with pytest.raises(StoreError, match="PostgreSQL") as err:
        open_store("postgresql://localhost:notaport/db")
    assert "\n" not in str(err.value)


def test_a_server_that_is_down_is_one_clear_error() -> None:
    url = f"postgresql://postgres:secret@127.0.0.1:{pg_embedded.free_port()}/abstain"
    with pytest.raises(StoreError, match=r"cannot open PostgreSQL at .*refused") as err:
        PostgresStore(url)
    assert "\n" not in str(err.value)
    assert "secret" not in str(err.value)


def test_a_database_without_pgvector_is_one_clear_error(pg_server: str) -> None:
    name = "abstain_no_vector"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        conn.execute("DROP ROLE IF EXISTS abstain_plain")
        conn.execute("CREATE ROLE abstain_plain LOGIN PASSWORD 'plain'")
    url = _as_user(pg_embedded.with_database(pg_server, name), "abstain_plain", "plain")
    try:
        with pytest.raises(StoreError, match="lacks the 'vector' extension") as err:
            PostgresStore(url)
        assert "\n" not in str(err.value)
        assert "CREATE EXTENSION vector" in str(err.value)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute("DROP ROLE IF EXISTS abstain_plain")


def _as_user(url: str, user: str, password: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, f"{user}:{password}@{host}", parts.path, parts.query, ""))


# -- abstain pg --------------------------------------------------------------------
def test_cli_starts_reports_and_stops_a_server(tmp_path_factory: pytest.TempPathFactory) -> None:
    from abstain.cli import cli

    root = Path("/tmp") / f"abstain-pg-cli-{tmp_path_factory.getbasetemp().name}"
    runner = CliRunner()
    try:
        started = runner.invoke(cli, ["pg", "start", "--data-dir", str(root)])
        assert started.exit_code == 0, started.output
        url = runner.invoke(cli, ["pg", "url", "--data-dir", str(root)])
        assert url.exit_code == 0 and url.output.startswith("postgresql://postgres@127.0.0.1:")
        store = open_store(url.output.strip())
        assert store.workspaces() == []
        store.close()
    finally:
        stopped = runner.invoke(cli, ["pg", "stop", "--data-dir", str(root)])
        shutil.rmtree(root, ignore_errors=True)
    assert stopped.exit_code == 0, stopped.output
    assert runner.invoke(cli, ["pg", "url", "--data-dir", str(root)]).exit_code == 1


# -- bulk load -------------------------------------------------------------------
def _snapshot(store: PostgresStore, ws: str, ids: set[str]) -> object:
    q = np.ones(EMB.dim, dtype=np.float32) / np.sqrt(EMB.dim)
    return (store.search_fused(q, "backup policy replica", workspace=ws, limit=50,
                               candidates=50),
            store.search_text("restore quorum", workspace=ws, limit=50, published_only=False),
            {k: (v.chunk, v.document, v.parent_text) for k, v in store.get_chunks(sorted(ids))
             .items()},
            [replace(d, updated_at="") for d in store.list_documents(ws)])


def test_bulk_load_stores_what_write_document_stores(pg: PostgresStore) -> None:
    rng = random.Random(7)
    items: list[tuple[Document, list[Chunk], np.ndarray]] = []
    for d in range(30):
        ws = "bulk-a" if d % 3 else "bulk-b"
        doc = Document(f"b{d}", ws, f"b{d}.md", f"Doc {rng.choice(WORDS)}", f"h{d}",
                       published=d % 7 != 0, metadata={"n": d})
        parent = Chunk(f"b{d}-p", doc.id, ChunkKind.PARENT, "parent text", 0, None, ("H", "I"))
        chunks = [parent] + [Chunk(f"b{d}-c{i}", doc.id, ChunkKind.CHILD,
                                   " ".join(rng.choices(WORDS, k=5)), i, parent.id, ("H",))
                             for i in range(3)]
        vectors = np.array([[rng.gauss(0, 1) for _ in range(EMB.dim)] for _ in range(3)],
                           dtype=np.float32)
        items.append((doc, chunks, vectors))
    for doc, chunks, vectors in items:
        pg.write_document(doc, chunks, vectors, EMB)
    ids = {c.id for _, chunks, _ in items for c in chunks}
    before = {ws: _snapshot(pg, ws, ids) for ws in ("bulk-a", "bulk-b")}
    for doc, _, _ in items:
        pg.delete_document(doc.workspace, doc.id)
    assert _snapshot(pg, "bulk-a", ids) != before["bulk-a"]
    pg.write_documents(items[:10], EMB)
    pg.write_documents(items, EMB)  # the first ten again: replaced, not doubled
    assert {ws: _snapshot(pg, ws, ids) for ws in ("bulk-a", "bulk-b")} == before
    with pytest.raises(EmbedderMismatch):
        pg.write_documents(items[:1], EmbedderInfo("other", EMB.dim))
