"""The PostgreSQL store's bulk load: the same rows, postings and answers as one document at
a time, with its indexes kept or rebuilt, and nothing changed by a load that fails."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import psycopg
import pytest

from abstain.errors import StoreError
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores.base import BulkStore, EmbedderInfo
from abstain.stores.postgres import PostgresStore
from abstain.stores.postgres_migrations import MIGRATIONS

pytestmark = pytest.mark.postgres

EMB = EmbedderInfo("pg-test-8d", 8)
WORDS = ["backup", "retention", "policy", "restore", "error", "cluster", "node", "shard",
         "replica", "quorum", "ADR-0007"]
INDEXES = {"chunks_embedding_hnsw", "chunks_tsv", "chunk_terms_pkey"}
Item = tuple[Document, list[Chunk], np.ndarray]


def _items(seed: int, docs: int, ws: str = "bulk") -> list[Item]:
    """Documents of a small vocabulary (many ties), drafts, paraphrases, sections."""
    rng = random.Random(seed)
    items: list[Item] = []
    for d in range(docs):
        doc = Document(f"{ws}{d}", ws, f"{ws}{d}.md", f"Doc {rng.choice(WORDS)}", f"h{d}",
                       published=d % 5 != 0, metadata={"n": d})
        parent = Chunk(f"{ws}{d}-p", doc.id, ChunkKind.PARENT, "parent text", 0, None,
                       ("H", rng.choice(WORDS)))
        chunks = [parent] + [Chunk(f"{ws}{d}-c{i}", doc.id, ChunkKind.CHILD,
                                   " ".join(rng.choices(WORDS, k=rng.randint(1, 9))), i,
                                   parent.id, ("H",)) for i in range(rng.randint(1, 4))]
        chunks += [Chunk(f"{ws}{d}-q{i}", doc.id, ChunkKind.PARAPHRASE,
                         " ".join(rng.choices(WORDS, k=3)), i, chunks[1].id)
                   for i in range(rng.randint(0, 1))]
        searchable = len(chunks) - 1
        vectors = np.array([[rng.gauss(0, 1) for _ in range(EMB.dim)]
                            for _ in range(searchable)], dtype=np.float32)
        items.append((doc, chunks, vectors))
    return items


def _state(store: PostgresStore, url: str, ws: str = "bulk", dim: int = EMB.dim) -> object:
    """Everything a question reads: postings (by chunk id: ``seq`` is renumbered by every
    write), counts, both arms, fusion, chunks, documents and identifiers."""
    with psycopg.connect(url) as conn:
        postings = conn.execute(
            "SELECT t.workspace, t.term, t.impact, c.id FROM chunk_terms t"
            " JOIN chunks c ON c.seq = t.seq ORDER BY 1, 2, 3, 4").fetchall()
        counts = conn.execute("SELECT * FROM chunk_counts ORDER BY 1").fetchall()
    q = np.ones(dim, dtype=np.float32) / np.sqrt(dim)
    with psycopg.connect(url) as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]
    return (postings, counts,
            store.search_fused(q, "backup policy replica", workspace=ws, limit=50,
                               candidates=50),
            store.search_text("restore quorum", workspace=ws, limit=50, published_only=False),
            store.search_vector(q, workspace=ws, limit=20),
            store.term_counts(ws, ["restore", "backup policy"]),
            {k: (v.chunk, v.document, v.parent_text) for k, v in store.get_chunks(ids).items()},
            [replace(d, updated_at="") for d in store.list_documents(ws)],
            store.identifiers(ws))


def _indexes(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {r[0] for r in conn.execute(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " WHERE i.indisvalid AND c.relname = ANY(%s)", (list(INDEXES),))}


def _identifiers(items: list[Item]) -> dict[str, list[str]]:
    return {d.id: ["ADR-0007"] for d, chunks, _ in items
            if any("ADR-0007" in c.text for c in chunks)}


@pytest.mark.parametrize("rebuild", [True, False, None])
def test_bulk_load_equals_one_document_at_a_time(pg: PostgresStore, pg_database: str,
                                                 rebuild: bool | None) -> None:
    items = _items(1, 40)
    idents = _identifiers(items)
    pg.write_document(*_items(2, 1, "other")[0], EMB)  # another workspace, untouched
    other = pg.search_text("restore quorum", workspace="other", limit=5, published_only=False)
    for doc, chunks, vectors in items:
        pg.write_document(doc, chunks, vectors, EMB, idents.get(doc.id, ()))
    expected = _state(pg, pg_database)
    for doc, _, _ in items[:25]:
        pg.delete_document("bulk", doc.id)
    # the 15 left are replaced in place; their postings and counts go with them
    report = pg.write_documents(iter(items), EMB, identifiers=idents, rebuild_indexes=rebuild)
    assert _state(pg, pg_database) == expected
    assert _indexes(pg_database) == INDEXES
    assert report.documents == 40 and report.chunks == sum(len(c) for _, c, _ in items)
    # None: 40 documents' chunks are more than the table's 16 documents' (REBUILD_RATIO)
    assert set(report.rebuilt) == (set() if rebuild is False else INDEXES)
    assert {"copy", "insert", "analyze"} <= set(report.seconds)
    assert other and pg.search_text("restore quorum", workspace="other", limit=5,
                                    published_only=False) == other


def test_bulk_load_keeps_the_indexes_when_small_beside_the_table(pg: PostgresStore) -> None:
    pg.write_documents(_items(1, 40), EMB)
    with psycopg.connect(pg.url) as conn:
        conn.execute("ANALYZE chunks")
    report = pg.write_documents(_items(3, 5, "small"), EMB)
    assert report.rebuilt == () and report.documents == 5


@pytest.mark.parametrize("rebuild", [True, False])
def test_a_failed_bulk_load_changes_nothing(pg: PostgresStore, pg_database: str,
                                            rebuild: bool) -> None:
    items = _items(1, 40)
    pg.write_documents(items[:20], EMB)
    before = _state(pg, pg_database)

    def failing() -> Iterator[Item]:
        yield from items[10:30]  # ten replaced, ten new
        raise RuntimeError("the source went away")

    with pytest.raises(RuntimeError, match="went away"):
        pg.write_documents(failing(), EMB, rebuild_indexes=rebuild)
    assert _state(pg, pg_database) == before and _indexes(pg_database) == INDEXES
    doc, chunks, vectors = items[30]
    clash = (replace(doc, id="clash", source="clash.md"),  # the same chunk ids under
             [replace(c, document_id="clash") for c in chunks], vectors)  # another document
    with pytest.raises(StoreError, match="chunks_id_key"):
        pg.write_documents([*items[20:31], clash], EMB, rebuild_indexes=rebuild)
    assert _state(pg, pg_database) == before and _indexes(pg_database) == INDEXES


def test_readers_see_the_store_as_it_was_while_a_load_copies(pg: PostgresStore) -> None:
    items = _items(1, 40)
    pg.write_documents(items[:10], EMB)
    seen: list[object] = []
    before = pg.search_text("restore quorum", workspace="bulk", limit=50)

    def watched() -> Iterator[Item]:
        yield from items[10:]
        seen.append(pg.search_text("restore quorum", workspace="bulk", limit=50))

    pg.write_documents(watched(), EMB, rebuild_indexes=True)
    assert seen == [before]
    assert pg.search_text("restore quorum", workspace="bulk", limit=50) != before


def test_migration_8_computes_the_postings_of_migration_6(pg: PostgresStore,
                                                         pg_database: str) -> None:
    """The delete trigger finds a chunk's rows by computing them again: rows written by
    migration 6's function must come out of migration 8's to the bit."""
    script = MIGRATIONS[5]
    old = script[script.index("CREATE FUNCTION abstain_chunk_terms("):script.index("END;") + 4]
    pg.write_documents(_items(1, 40), EMB)
    with psycopg.connect(pg_database) as conn:
        conn.execute(old.replace("abstain_chunk_terms(", "old_chunk_terms(", 1).encode())
        differ = conn.execute(
            "SELECT count(*) FROM chunks c, LATERAL ((SELECT * FROM old_chunk_terms(c.tsv)"
            " EXCEPT SELECT * FROM abstain_chunk_terms(c.tsv)) UNION ALL"
            " (SELECT * FROM abstain_chunk_terms(c.tsv) EXCEPT"
            " SELECT * FROM old_chunk_terms(c.tsv))) AS d").fetchone()
        rows = conn.execute("SELECT count(*) FROM chunks c, abstain_chunk_terms(c.tsv)"
                            ).fetchone()
    assert differ == (0,) and rows is not None and rows[0] > 100


def test_a_folder_is_ingested_in_bulk_as_one_file_at_a_time(
        pg: PostgresStore, pg_database: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``abstain ingest`` of a folder gives PostgreSQL its small documents a few thousand
    chunks at a time (here 6): the same store as writing them one by one."""
    from abstain import ingest
    from abstain.embed import HashingEmbedder

    rng = random.Random(5)
    for n in range(14):
        words = " ".join(rng.choices(WORDS, k=30))
        (tmp_path / f"f{n:02d}.md").write_text(f"# Note {n}\n\n{words}\n\n## Next\n\n{words}\n")
    (tmp_path / "broken.xyz").write_text("unsupported")
    monkeypatch.setattr(ingest, "BULK_CHUNKS", 6)
    assert isinstance(pg, BulkStore)
    embedder = HashingEmbedder()
    bulk = ingest.Ingester(pg, embedder, "bulk").ingest_paths([tmp_path])
    assert len(bulk.added) == 14 and [s for s, _ in bulk.skipped] == [
        str(tmp_path / "broken.xyz")]
    assert bulk.rebuilt_indexes and set(bulk.rebuilt_indexes) <= INDEXES  # into empty tables
    assert bulk.to_json()["rebuilt_indexes"] == bulk.rebuilt_indexes
    in_bulk = _state(pg, pg_database, dim=embedder.dim)
    for doc in pg.list_documents("bulk"):
        pg.delete_document("bulk", doc.id)
    monkeypatch.setattr(ingest, "BulkStore", type(None))  # one write_document per file
    one_by_one = ingest.Ingester(pg, embedder, "bulk").ingest_paths([tmp_path])
    assert len(one_by_one.added) == 14 and one_by_one.rebuilt_indexes == []
    assert _state(pg, pg_database, dim=embedder.dim) == in_bulk
    assert "ADR-0007" in pg.identifiers("bulk")
    again = ingest.Ingester(pg, embedder, "bulk").ingest_paths([tmp_path])
    assert len(again.unchanged) == 14
