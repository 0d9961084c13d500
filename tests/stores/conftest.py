"""Store fixtures: every test in tests/stores runs once per store implementation.

Add a backend by adding a name to BACKENDS and a branch in ``make_store``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from abstain.stores.base import Store

if TYPE_CHECKING:
    from abstain.stores.postgres import PostgresStore

BACKENDS = ["sqlite", "sqlite-ann", pytest.param("postgres", marks=pytest.mark.postgres)]
"""``sqlite-ann``: the SQLite store with its approximate vector index on every workspace and
its keyword index (tantivy) from the first chunk."""


@pytest.fixture(params=BACKENDS)
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """A factory of stores that share one fresh, empty database."""
    opened: list[Store] = []
    if request.param in ("sqlite", "sqlite-ann"):
        from abstain.stores.sqlite import SQLiteStore

        path = tmp_path / "store.db"
        threshold = 0 if request.param == "sqlite-ann" else None

        def factory() -> Store:
            store = (SQLiteStore(path) if threshold is None
                     else SQLiteStore(path, ann_threshold=threshold, keyword_threshold=threshold))
            opened.append(store)
            return store
    else:
        request.applymarker(pytest.mark.postgres)
        url = request.getfixturevalue("pg_database")

        def factory() -> Store:
            from abstain.stores.postgres import PostgresStore

            store = PostgresStore(url)
            opened.append(store)
            return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store: Callable[[], Store]) -> Store:
    return make_store()


@pytest.fixture
def pg(pg_database: str) -> Iterator[PostgresStore]:
    """A PostgreSQL store with a small HNSW graph (the store tests of test_postgres*.py)."""
    from abstain.stores.postgres import PostgresStore

    store = PostgresStore(pg_database, hnsw_m=8, hnsw_ef_construction=32)
    yield store
    store.close()
