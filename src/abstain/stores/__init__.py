"""Document stores: the :class:`Store` protocol and :func:`open_store`."""

from __future__ import annotations

from collections.abc import Sequence

from abstain.config import DEFAULT_WORKSPACE, default_db_path
from abstain.errors import ConfigError
from abstain.stores.base import (
    DocumentInfo,
    EmbedderInfo,
    Store,
    StoredChunk,
)

__all__ = ["DEFAULT_WORKSPACE", "DocumentInfo", "EmbedderInfo", "Store", "StoredChunk",
           "open_store", "sqlite_path"]


def open_store(location: str | None = None, *, create: bool = True,
               replicas: Sequence[str] = ()) -> Store:
    """Open a store from a path or URL.

    ``postgresql://…`` opens PostgreSQL; anything else is a SQLite file path
    (``sqlite:///path`` also works); ``None`` is the default SQLite database.
    ``create=False`` (for commands that only read) makes a missing SQLite file a
    :class:`~abstain.errors.NoDatabase` error instead of a new empty database.
    ``replicas``: read replicas of a PostgreSQL store, which answer its searches.
    """
    path = sqlite_path(location)
    if path is None:
        from abstain.stores.postgres import PostgresStore

        assert location is not None
        return PostgresStore(location, replicas=replicas)
    if replicas:
        raise ConfigError("read replicas (--replica, ABSTAIN_REPLICAS) need a postgresql://"
                          " store; a SQLite database has none")
    from abstain.stores.sqlite import SQLiteStore

    return SQLiteStore(path, create=create)


def sqlite_path(location: str | None) -> str | None:
    """The SQLite file a store location names (:func:`open_store`: a path, ``sqlite:///path``,
    or None for the default database); None for a ``postgresql://`` URL."""
    if location and location.startswith(("postgresql://", "postgres://")):
        return None
    path = (location or "").removeprefix("sqlite:///").removeprefix("sqlite://")
    return path or default_db_path()
