"""The SQLite store's approximate index: incremental, per workspace, exact scores, crash-safe."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores import sqlite_ann
from abstain.stores.base import EmbedderInfo
from abstain.stores.sqlite import SQLiteStore

pytestmark = pytest.mark.skipif(not sqlite_ann.available(), reason="the ann extra")

DIM = 16
EMB = EmbedderInfo("unit-test-16d", DIM)


def _vectors(n: int, seed: int) -> np.ndarray:
    m = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _write(store: SQLiteStore, doc_id: str, vectors: np.ndarray, ws: str = "a") -> None:
    doc = Document(doc_id, ws, f"{doc_id}.md", doc_id, f"h-{doc_id}")
    parent = Chunk(f"{doc_id}-p", doc_id, ChunkKind.PARENT, "parent", 0, None, ())
    children = [Chunk(f"{doc_id}-c{i}", doc_id, ChunkKind.CHILD, f"text {i}", i, parent.id, ())
                for i in range(len(vectors))]
    store.write_document(doc, [parent, *children], vectors, EMB)


def _exact(vectors: dict[str, np.ndarray], query: np.ndarray, k: int) -> list[tuple[str, float]]:
    ids = list(vectors)
    sims = np.stack([vectors[i] for i in ids]) @ query
    order = sorted(range(len(ids)), key=lambda i: -sims[i])[:k]
    return [(ids[i], float(1.0 - sims[i])) for i in order]


def _hits(store: SQLiteStore, query: np.ndarray, k: int, ws: str = "a"
          ) -> list[tuple[str, float]]:
    return [(h.chunk_id, h.score) for h in store.search_vector(query, workspace=ws, limit=k)]


def _same(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [g[0] for g in got] == [w[0] for w in want]
    assert [g[1] for g in got] == pytest.approx([w[1] for w in want], abs=1e-6)


def test_adds_and_deletes_are_followed_and_scores_are_exact(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    known: dict[str, np.ndarray] = {}
    for d in range(3):
        vectors = _vectors(40, seed=d)
        _write(store, f"d{d}", vectors)
        known.update({f"d{d}-c{i}": v for i, v in enumerate(vectors)})
    query = _vectors(1, seed=99)[0]
    _same(_hits(store, query, 10), _exact(known, query, 10))
    assert store._ann_folder is not None and sqlite_ann.has_index(store._ann_folder, "a")

    store.delete_document("a", "d1")
    known = {k: v for k, v in known.items() if not k.startswith("d1-")}
    _write(store, "d3", _vectors(40, seed=3))
    known.update({f"d3-c{i}": v for i, v in enumerate(_vectors(40, seed=3))})
    _same(_hits(store, query, 10), _exact(known, query, 10))
    index = store._vector_index("a")
    assert isinstance(index, sqlite_ann.AnnIndex) and len(index) == 120
    assert store.ann_rebuilds == []
    store.close()

    reopened = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)  # from the file saved on close
    _same(_hits(reopened, query, 10), _exact(known, query, 10))
    assert reopened.ann_rebuilds == []
    reopened.close()


def test_each_workspace_has_its_own_index(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    _write(store, "a1", _vectors(30, seed=1), ws="a")
    _write(store, "b1", _vectors(30, seed=2), ws="b")
    query = _vectors(1, seed=5)[0]
    assert {h[0].split("-")[0] for h in _hits(store, query, 50, ws="a")} == {"a1"}
    assert {h[0].split("-")[0] for h in _hits(store, query, 50, ws="b")} == {"b1"}
    assert len(_hits(store, query, 50, ws="a")) == 30
    folder = store._ann_folder
    assert folder is not None
    assert sorted(p.name.split(".")[0] for p in folder.glob("*.usearch")) == ["a", "b"]
    store.close()


def test_unpublished_chunks_are_skipped_and_counted_out(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    _write(store, "d0", _vectors(30, seed=1))
    _write(store, "d1", _vectors(30, seed=2))
    store.set_published("a", "d0", False)
    query = _vectors(1, seed=5)[0]
    assert {h[0].split("-")[0] for h in _hits(store, query, 50)} == {"d1"}
    assert store.term_counts("a", []).total == 30
    assert store.term_counts("a", [], published_only=False).total == 60
    store.close()


def test_another_process_writing_is_caught_up_from_the_log(tmp_path: Path) -> None:
    first = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    _write(first, "d0", _vectors(30, seed=1))
    query = _vectors(1, seed=5)[0]
    assert len(_hits(first, query, 100)) == 30
    second = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    _write(second, "d1", _vectors(30, seed=2))
    assert len(_hits(second, query, 100)) == 60
    second.close()  # saves its index and prunes the log the first one had not read yet
    assert len(_hits(first, query, 100)) == 60
    assert first.ann_rebuilds == []
    first.close()


def test_a_killed_ingest_leaves_index_and_database_agreeing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    _write(store, "d0", _vectors(30, seed=1))
    query = _vectors(1, seed=5)[0]
    assert len(_hits(store, query, 100)) == 30
    # a writer dies inside its transaction: neither the chunks nor their log entries land
    conn = sqlite3.connect(tmp_path / "kb.db", isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO documents (id, workspace, source, title, content_hash)"
                 " VALUES ('x', 'a', 'x.md', 'x', 'h')")
    conn.execute("INSERT INTO chunks (id, document_id, kind, ordinal, text, embedding)"
                 " VALUES ('x-c0', 'x', 'child', 0, 't', ?)", (_vectors(1, 7)[0].tobytes(),))
    conn.close()  # no COMMIT
    _write(store, "d1", _vectors(30, seed=2))
    assert len(_hits(store, query, 100)) == 60
    store.close()


def test_a_disagreeing_index_is_rebuilt_and_reported(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    _write(store, "d0", _vectors(30, seed=1))
    query = _vectors(1, seed=5)[0]
    assert len(_hits(store, query, 10)) == 10
    store.close()
    known = {f"d0-c{i}": v for i, v in enumerate(_vectors(30, seed=1)) if i != 3}
    folder = tmp_path / "kb.db.ann"
    # the database changes behind the index's back, and the log that would say so is lost
    conn = sqlite3.connect(tmp_path / "kb.db", isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("DELETE FROM chunks WHERE id = 'd0-c3'")
    conn.execute("DELETE FROM vector_log")
    conn.close()
    reopened = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    _same(_hits(reopened, query, 10), _exact(known, query, 10))
    assert len(reopened.ann_rebuilds) == 1
    assert "30 vectors after replaying the log, the database 29" in reopened.ann_rebuilds[0]
    reopened.close()

    (next(folder.glob("a.*.usearch"))).write_bytes(b"not an index")
    broken = SQLiteStore(tmp_path / "kb.db", ann_threshold=0)
    assert len(_hits(broken, query, 100)) == 29
    assert len(broken.ann_rebuilds) == 1 and "unreadable" in broken.ann_rebuilds[0]
    broken.close()


def test_small_workspaces_keep_the_exact_scan(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", ann_threshold=50)
    _write(store, "d0", _vectors(40, seed=1))
    query = _vectors(1, seed=5)[0]
    _hits(store, query, 5)
    assert not isinstance(store._vector_index("a"), sqlite_ann.AnnIndex)
    _write(store, "d1", _vectors(40, seed=2))
    _hits(store, query, 5)
    assert isinstance(store._vector_index("a"), sqlite_ann.AnnIndex)
    store.close()
