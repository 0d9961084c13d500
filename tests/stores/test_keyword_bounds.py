"""The keyword arm's bound: a frequent term neither floods the ranking nor its cost."""

from __future__ import annotations

import numpy as np
import pytest

from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores import keyword_bounds
from abstain.stores.base import EmbedderInfo, Store

EMB = EmbedderInfo("unit-test-4d", 4)


def _fill(store: Store) -> None:
    texts = [f"common filler{i}" for i in range(40)] + ["common zeppelin mooring"]
    doc = Document("d", "a", "d.md", "Title", "h")
    chunks = [Chunk(f"d-c{i}", "d", ChunkKind.CHILD, t, i, None, ()) for i, t in enumerate(texts)]
    store.write_document(doc, chunks, np.ones((len(chunks), 4), dtype=np.float32), EMB)


def _arm(store: Store) -> str:
    """``fts5`` (SQLite, rules 1-3), ``index`` (the SQLite store's keyword index: every match
    ranked, the top ``limit`` returned) or ``postgres`` (rules 2-4)."""
    threshold = getattr(store, "keyword_threshold", None)
    return "postgres" if threshold is None else "index" if threshold == 0 else "fts5"


def test_rare_term_ranks_first_and_candidates_are_bounded(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyword_bounds, "FREQUENT_MIN_ROWS", 5)
    monkeypatch.setattr(keyword_bounds, "CANDIDATE_BUDGET", 10)
    _fill(store)
    hits = store.search_text("common zeppelin", workspace="a", limit=50)
    assert hits[0].chunk_id == "d-c40"
    # PostgreSQL: 5 rows a term in storage order, 10 a term by impact, the row with both
    assert len(hits) <= (21 if _arm(store) == "postgres" else 10)
    alone = store.search_text("common", workspace="a", limit=50)  # nothing else to rank by
    assert len(alone) in {"fts5": {10}, "index": {41}, "postgres": range(10, 21)}[_arm(store)]


def test_the_rule() -> None:
    assert keyword_bounds.prune({"a": 10, "b": 900_000}, 1_000_000) == ["a"]
    assert keyword_bounds.prune({"b": 900_000}, 1_000_000) == ["b"]
    assert keyword_bounds.prune({"a": 10, "b": 4_000}, 5_000) == ["a", "b"]  # small store
    assert keyword_bounds.storage_quota(4) == keyword_bounds.STORAGE_BUDGET // 4


def test_frequent_terms_are_pruned_in_sqlite(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: object) -> None:
    from pathlib import Path

    from abstain.stores.sqlite import SQLiteStore

    monkeypatch.setattr(keyword_bounds, "FREQUENT_MIN_ROWS", 5)
    store = SQLiteStore(Path(str(tmp_path)) / "kb.db")
    _fill(store)
    hits = store.search_text("common zeppelin", workspace="a", limit=50)
    assert [h.chunk_id for h in hits] == ["d-c40"]
    store.close()


def test_a_row_with_every_term_is_ranked_though_the_budget_cuts_before_it(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule 3: the OR-ed matches are cut at the budget in storage order, and the one chunk
    holding both words comes last; it is still a candidate, and first."""
    monkeypatch.setattr(keyword_bounds, "CANDIDATE_BUDGET", 10)
    texts = ([f"alpha filler{i}" for i in range(30)] + [f"gamma filler{i}" for i in range(30)]
             + ["alpha gamma together"])
    doc = Document("d", "a", "d.md", "Title", "h")
    chunks = [Chunk(f"d-c{i}", "d", ChunkKind.CHILD, t, i, None, ())
              for i, t in enumerate(texts)]
    store.write_document(doc, chunks, np.ones((len(chunks), 4), dtype=np.float32), EMB)
    hits = store.search_text("alpha gamma", workspace="a", limit=50)
    assert hits[0].chunk_id == "d-c60"
    # the budget's 10 OR-ed matches and the row with both; the index ranks every match;
    # PostgreSQL: 5 rows a term in storage order and 10 by impact, and the row with both
    assert len(hits) in {"fts5": {11}, "index": {50}, "postgres": range(11, 32)}[_arm(store)]
    monkeypatch.setattr(keyword_bounds, "CANDIDATE_BUDGET", 1000)
    unbounded = store.search_text("alpha gamma", workspace="a", limit=50)
    assert unbounded[0] == hits[0]  # the same score as when every match is ranked
