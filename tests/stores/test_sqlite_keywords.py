"""The SQLite store's keyword index: incremental, per workspace, crash-safe, FTS5's ranking."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores import sqlite_keywords
from abstain.stores.base import EmbedderInfo
from abstain.stores.sqlite import SQLiteStore

pytestmark = pytest.mark.skipif(not sqlite_keywords.available(), reason="the ann extra")

EMB = EmbedderInfo("unit-test-4d", 4)
TEXTS = ["replication lag on the standby server", "the standby server replays write ahead log",
         "vacuum reclaims dead rows", "autovacuum settings for large tables",
         "write ahead log segments and checkpoints", "connection pooling with pgbouncer",
         "the planner chooses an index scan", "a sequential scan reads every row"]


def _write(store: SQLiteStore, doc_id: str, texts: list[str], ws: str = "a",
           published: bool = True) -> None:
    doc = Document(doc_id, ws, f"{doc_id}.md", doc_id, f"h-{doc_id}", published=published)
    parent = Chunk(f"{doc_id}-p", doc_id, ChunkKind.PARENT, " ".join(texts), 0, None, ())
    children = [Chunk(f"{doc_id}-c{i}", doc_id, ChunkKind.CHILD, t, i, parent.id, ("Notes",))
                for i, t in enumerate(texts)]
    store.write_document(doc, [parent, *children], np.ones((len(texts), 4), np.float32), EMB)


def _ids(store: SQLiteStore, query: str, ws: str = "a", **kw: bool) -> list[str]:
    return [h.chunk_id for h in store.search_text(query, workspace=ws, limit=10, **kw)]


def test_ranks_as_fts5_does_on_a_small_collection(tmp_path: Path) -> None:
    fts5 = SQLiteStore(tmp_path / "fts.db")
    indexed = SQLiteStore(tmp_path / "kw.db", keyword_threshold=0)
    for store in (fts5, indexed):
        _write(store, "d0", TEXTS)
    for query in ("standby replication", "write ahead log", "scan", "vacuum rows", "replic",
                  "checkpoint segments", "planner index"):
        assert _ids(indexed, query)[:2] == _ids(fts5, query)[:2], query
    assert (tmp_path / "kw.db.kw" / "state.json").exists()
    assert not (tmp_path / "fts.db.kw").exists()  # below the threshold FTS5 answers
    fts5.close()
    indexed.close()


def test_adds_deletes_workspaces_and_unpublished_rows_are_followed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    _write(store, "d0", TEXTS[:4])
    assert _ids(store, "standby") == ["d0-c0", "d0-c1"]
    _write(store, "d1", ["standby servers again"])
    _write(store, "d2", ["standby in another workspace"], ws="b")
    _write(store, "d3", ["standby draft"], published=False)
    assert sorted(_ids(store, "standby")) == ["d0-c0", "d0-c1", "d1-c0"]
    assert sorted(_ids(store, "standby", published_only=False)) == [
        "d0-c0", "d0-c1", "d1-c0", "d3-c0"]
    assert _ids(store, "standby", ws="b") == ["d2-c0"]
    assert store.delete_document("a", "d0")
    assert _ids(store, "standby") == ["d1-c0"]
    _write(store, "d1", ["nothing about it now"])  # a re-ingest replaces the old chunks
    assert _ids(store, "standby") == []
    assert _ids(store, "nothing") == ["d1-c0"]
    store.close()


def test_another_process_writing_is_caught_up_from_the_log(tmp_path: Path) -> None:
    first = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    _write(first, "d0", TEXTS[:2])
    assert len(_ids(first, "standby")) == 2
    second = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    _write(second, "d1", ["standby three"])
    assert len(_ids(second, "standby")) == 3  # caught up, committed and pruned the log
    assert sqlite3.connect(tmp_path / "kb.db").execute(
        "SELECT count(*) FROM keyword_log").fetchone() == (0,)
    _write(second, "d2", ["standby four"])
    assert len(_ids(first, "standby")) == 4  # from the folder the second one wrote, then the log
    assert first.keyword_rebuilds == [] and second.keyword_rebuilds == []
    first.close()
    second.close()


def test_a_killed_ingest_leaves_index_and_database_agreeing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    _write(store, "d0", TEXTS[:2])
    assert len(_ids(store, "standby")) == 2
    conn = sqlite3.connect(tmp_path / "kb.db", isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")  # a writer dies inside its transaction
    conn.execute("INSERT INTO documents (id, workspace, source, title, content_hash)"
                 " VALUES ('x', 'a', 'x.md', 'x', 'h')")
    conn.execute("INSERT INTO chunks (id, document_id, kind, ordinal, text)"
                 " VALUES ('x-c0', 'x', 'child', 0, 'standby')")
    conn.close()  # no COMMIT
    _write(store, "d1", ["standby three"])
    assert sorted(_ids(store, "standby")) == ["d0-c0", "d0-c1", "d1-c0"]
    store.close()


def test_a_crash_after_the_commit_replays_the_log_harmlessly(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    _write(store, "d0", TEXTS[:2])
    assert len(_ids(store, "standby")) == 2
    store.close()
    # the index committed later entries than its state file says: they are applied again
    state = tmp_path / "kb.db.kw" / "state.json"
    state.write_text(json.dumps({**json.loads(state.read_text()), "seq": 0}))
    conn = sqlite3.connect(tmp_path / "kb.db", isolation_level=None)
    conn.execute("DELETE FROM meta WHERE key = 'keyword_log_pruned'")
    conn.execute("INSERT INTO keyword_log (chunk_rowid, added) SELECT rowid, 1 FROM chunks"
                 " WHERE kind = 'child'")
    conn.close()
    reopened = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    assert sorted(_ids(reopened, "standby")) == ["d0-c0", "d0-c1"]
    assert reopened.keyword_rebuilds == []
    reopened.close()


def test_a_disagreeing_or_missing_index_is_rebuilt_and_reported(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    _write(store, "d0", TEXTS[:2])
    assert len(_ids(store, "standby")) == 2
    store.close()
    conn = sqlite3.connect(tmp_path / "kb.db", isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")  # behind the index's back, the log lost
    conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks"
                 " WHERE id = 'd0-c1')")
    conn.execute("DELETE FROM chunks WHERE id = 'd0-c1'")
    conn.execute("DELETE FROM keyword_log")
    conn.close()
    reopened = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    assert _ids(reopened, "standby") == ["d0-c0"]
    assert len(reopened.keyword_rebuilds) == 1
    assert "2 chunks after replaying the log, the database 1" in reopened.keyword_rebuilds[0]
    reopened.close()

    import shutil

    shutil.rmtree(tmp_path / "kb.db.kw")
    missing = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    assert _ids(missing, "standby") == ["d0-c0"]
    assert len(missing.keyword_rebuilds) == 1 and "no keyword index" in missing.keyword_rebuilds[0]
    missing.close()


def test_the_store_switches_to_the_index_at_its_threshold(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db", keyword_threshold=6)
    _write(store, "d0", TEXTS[:4])
    assert _ids(store, "standby") == ["d0-c0", "d0-c1"]
    assert not (tmp_path / "kb.db.kw").exists()
    _write(store, "d1", TEXTS[4:])
    assert _ids(store, "standby") == ["d0-c0", "d0-c1"]
    assert (tmp_path / "kb.db.kw" / "state.json").exists()
    store.close()


def test_while_another_process_builds_the_index_fts5_answers(tmp_path: Path) -> None:
    import fcntl

    store = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    _write(store, "d0", TEXTS[:4])
    with open(tmp_path / "kb.db.kw.lock", "a+b") as other:  # another open file: another owner
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert _ids(store, "standby") == ["d0-c0", "d0-c1"]
        assert not (tmp_path / "kb.db.kw").exists()
        fcntl.flock(other, fcntl.LOCK_UN)
    assert _ids(store, "standby") == ["d0-c0", "d0-c1"]
    assert (tmp_path / "kb.db.kw" / "state.json").exists()
    store.close()


def test_each_fts5_fallback_and_rebuild_is_noted_for_the_answer(tmp_path: Path) -> None:
    """What the store did instead of the index shows in the audit trail of the answer it
    served (``stores.notes``), not only in the log."""
    import fcntl
    import shutil

    from abstain.stores import notes

    store = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    _write(store, "d0", TEXTS[:4])
    with open(tmp_path / "kb.db.kw.lock", "a+b") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with notes.collecting() as noted:
            assert _ids(store, "standby") == ["d0-c0", "d0-c1"]
        fcntl.flock(other, fcntl.LOCK_UN)
    assert any("ranked by FTS5" in n and "another process" in n for n in noted)
    with notes.collecting() as noted:
        assert _ids(store, "standby") == ["d0-c0", "d0-c1"]
    assert noted == []  # the index answered
    store.close()

    shutil.rmtree(tmp_path / "kb.db.kw")
    reopened = SQLiteStore(tmp_path / "kb.db", keyword_threshold=0)
    with notes.collecting() as noted:
        assert _ids(reopened, "standby") == ["d0-c0", "d0-c1"]
    assert any("rebuilt from the database" in n for n in noted)
    reopened.close()


def test_a_one_letter_flag_finds_the_line_that_defines_it(tmp_path: Path) -> None:
    """``-l`` is no content word: only its letter, searched whole, finds its definition."""
    from abstain.query import KeywordQuery

    options = ["-c, --count: print a count of matching lines for each input file",
               "-l, --files-with-matches: print only the name of each file that matches",
               "-i, --ignore-case: ignore case distinctions in patterns and data",
               "large files are read in blocks of a size the system chooses"]
    fts5 = SQLiteStore(tmp_path / "fts.db")
    indexed = SQLiteStore(tmp_path / "kw.db", keyword_threshold=0)
    for store in (fts5, indexed):
        _write(store, "d0", options)
        plain = KeywordQuery.of("what does grep -l do?")
        flagged = KeywordQuery.of("what does grep -l do?", ["-l"])
        assert store.search_text(plain, workspace="a", limit=10) == []
        hits = store.search_text(flagged, workspace="a", limit=10)
        assert [h.chunk_id for h in hits] == ["d0-c1"]
        store.close()
