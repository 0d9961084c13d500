"""Large documents: batched, staged, visible whole or not at all (issue 14.5)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from abstain.embed import HashingEmbedder
from abstain.ingest import Ingester
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore


def _big(path: Path, paragraphs: int, word: str = "alpha") -> Path:
    path.write_text("\n\n".join(f"Paragraph {i} mentions {word} and code E{1000 + i}. " * 3
                                for i in range(paragraphs)))
    return path


def _staged_rows(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM staged_chunks").fetchone()[0])


def test_batched_ingest_equals_one_batch_and_reports_progress_per_batch(tmp_path: Path) -> None:
    f = _big(tmp_path / "big.txt", 60)
    stores = []
    for name, batch in (("one", 10_000), ("many", 7)):
        events: list[tuple[str, int]] = []
        store = SQLiteStore(tmp_path / f"{name}.db")
        report = Ingester(store, HashingEmbedder(), "default", on_progress=lambda e, n,
                          ev=events: ev.append((e, n)), batch_chunks=batch).ingest_paths([f])
        assert report.added == [str(f)]
        chunk_events = [n for e, n in events if e == "chunks"]
        assert sum(chunk_events) == report.chunks
        assert max(chunk_events) <= batch, events
        stores.append(store)
    one, many = stores
    assert len(chunk_events) >= 3, events
    [d1], [d2] = one.list_documents(), many.list_documents()
    assert (d1.id, d1.chunks, d1.content_hash) == (d2.id, d2.chunks, d2.content_hash)
    ids = [f"{d1.id}-c{i}" for i in range(d1.chunks)] + [f"{d1.id}-p0"]
    a, b = one.get_chunks(ids), many.get_chunks(ids)
    assert {k: (v.chunk.text, v.parent_text) for k, v in a.items()} == {
        k: (v.chunk.text, v.parent_text) for k, v in b.items()}
    assert one.identifiers("default") == many.identifiers("default")
    assert len(many.identifiers("default")) == 60
    assert _staged_rows(tmp_path / "many.db") == 0


_KILLED_INGEST = """
import os, signal, sys
import pytest

from abstain.embed import HashingEmbedder
from abstain.ingest import Ingester
from abstain.stores.sqlite import SQLiteStore

seen = []
def progress(event, n):
    if event == "chunks":
        seen.append(n)
        if len(seen) == 3:  # three batches staged: die as kill -9 would kill us
            os.kill(os.getpid(), signal.SIGKILL)

Ingester(SQLiteStore(sys.argv[1]), HashingEmbedder(), "default", on_progress=progress,
         batch_chunks=5).ingest_paths([sys.argv[2]])
"""


def test_kill_9_midway_leaves_the_old_version_and_no_half_document(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    f = _big(tmp_path / "big.txt", 40, word="oldword")
    with Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe:
        before = pipe.ingest([f]).chunks
    _big(f, 40, word="newword")
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_KILLED_INGEST), str(db), str(f)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    assert _staged_rows(db) > 0  # the killed run got that far
    with Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe:
        [doc] = pipe.store.list_documents()
        assert doc.chunks == before
        assert pipe.store.search_text("newword", workspace="default", limit=5) == []
        assert pipe.search("oldword").evidence
        assert all("newword" not in e.text for e in pipe.search("newword").evidence)
        report = pipe.ingest([f])  # the next ingest finishes it and clears the leftovers
        assert report.updated == [str(f)]
        assert len(pipe.store.search_text("newword", workspace="default", limit=50)) > 5
        assert pipe.store.search_text("oldword", workspace="default", limit=5) == []
    assert _staged_rows(db) == 0


def test_kill_9_during_a_first_ingest_leaves_no_document(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    SQLiteStore(db).close()
    f = _big(tmp_path / "big.txt", 40)
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_KILLED_INGEST), str(db), str(f)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    store = SQLiteStore(db)
    assert store.list_documents() == [] and store.workspaces() == []
    assert store.search_text("alpha", workspace="default", limit=5) == []


def test_an_error_midway_discards_the_staging(tmp_path: Path) -> None:
    class Failing(HashingEmbedder):
        calls = 0

        def embed_batch(self, texts):  # type: ignore[no-untyped-def]
            Failing.calls += 1
            if Failing.calls == 3:
                raise RuntimeError("model crashed")
            return super().embed_batch(texts)

    db = tmp_path / "kb.db"
    store = SQLiteStore(db)
    f = _big(tmp_path / "big.txt", 40)
    ingester = Ingester(store, Failing(), "default", batch_chunks=5)
    with pytest.raises(RuntimeError, match="model crashed"):
        ingester.ingest_paths([f])
    assert store.list_documents() == []
    assert _staged_rows(db) == 0
    assert Failing.calls == 3
