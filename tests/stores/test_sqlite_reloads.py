"""The SQLite vector index reloads per workspace, once per write, whatever the thread."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from abstain.embed.hashing import HashingEmbedder
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore


def test_one_upload_reloads_one_workspace_once(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.db")
    embedder = HashingEmbedder()
    with Pipeline(store, embedder) as pipe:
        for ws in ("a", "b"):
            pipe.ingest_text("# Keys\n\nKeys rotate every 30 days.", source="k.md", workspace=ws)
        vector = embedder.embed_batch(["keys rotate"])[0]

        def search(ws: str) -> int:
            return len(store.search_vector(vector, workspace=ws, limit=5))

        with ThreadPoolExecutor(max_workers=4) as pool:  # one connection per thread
            assert all(list(pool.map(search, ["a", "b"] * 50)))
            assert store.index_loads == 2
            pipe.ingest_text("# Backups\n\nBackups run nightly.", source="b.md", workspace="a")
            assert all(list(pool.map(search, ["a", "b"] * 50)))
        assert store.index_loads == 3  # "a" once more; "b" not at all

        other = SQLiteStore(tmp_path / "kb.db")  # another process, in effect
        try:
            assert len(other.search_vector(vector, workspace="a", limit=5)) == 2
            other.delete_document("a", pipe.store.list_documents("a")[0].id)
        finally:
            other.close()
        assert search("a") == 1
        assert store.index_loads == 4
