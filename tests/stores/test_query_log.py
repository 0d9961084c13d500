"""The query log, on every store: settings, entries, labels, retention, tenants apart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from abstain.errors import InputError
from abstain.querylog import LogSettings, NewEntry, open_log, question_hash
from abstain.stores.base import Store


def _entry(workspace: str, question: str, *, answered: bool = True) -> NewEntry:
    return NewEntry(workspace=workspace, question=question, question_hash=question_hash(question),
                    answered=answered, reason=None if answered else "weak_evidence",
                    confidence=0.8 if answered else 0.2, triage="confident", latency_ms=12.5,
                    llm_calls=0, record={"features": {"best_cosine": 0.7},
                                         "checks": [{"name": "answer_gate", "passed": answered,
                                                     "value": 55.0, "threshold": 40.0}],
                                         "cited_sources": ["a.md"] if answered else []})


def test_settings_are_off_by_default_and_persist(make_store: Callable[[], Store]) -> None:
    store = make_store()
    assert open_log(store).settings() == LogSettings()
    open_log(store).configure(LogSettings(True, 30, True))
    assert open_log(make_store()).settings() == LogSettings(True, 30, True)


def test_entries_round_trip_filter_and_label(store: Store) -> None:
    qlog = open_log(store)
    first = qlog.append(_entry("ws", "How do I rotate keys?"), retention_days=None)
    second = qlog.append(_entry("ws", "What is the moon made of?", answered=False),
                         retention_days=None)
    assert second > first
    entries = qlog.entries("ws")
    assert [e.id for e in entries] == [second, first]
    e = qlog.get("ws", first)
    assert e is not None and e.question == "How do I rotate keys?" and e.answered
    assert e.record["checks"][0] == {"name": "answer_gate", "passed": True, "value": 55.0,
                                     "threshold": 40.0}
    assert e.created_at.endswith("Z") and e.expected is None and e.label_agrees is None
    assert [x.id for x in qlog.entries("ws", answered=False)] == [second]
    assert [x.id for x in qlog.entries("ws", limit=1)] == [second]
    assert qlog.entries("ws", since="2999-01-01T00:00:00.000000Z") == []
    assert qlog.label("ws", second, "refuse", "off topic", ["moon.md"])
    labelled = qlog.get("ws", second)
    assert labelled is not None
    assert (labelled.expected, labelled.note, labelled.gold_sources) == ("refuse", "off topic",
                                                                         ("moon.md",))
    assert labelled.label_agrees is True and labelled.labelled_at is not None
    assert [x.id for x in qlog.entries("ws", labelled=True)] == [second]
    assert [x.id for x in qlog.entries("ws", labelled=False)] == [first]
    with pytest.raises(InputError):
        qlog.label("ws", first, "maybe")


def test_tenants_never_see_each_others_entries(make_store: Callable[[], Store]) -> None:
    qlog = open_log(make_store())
    mine = qlog.append(_entry("a", "question of a"), retention_days=None)
    theirs = qlog.append(_entry("b", "question of b"), retention_days=None)
    other = open_log(make_store())
    assert [e.question for e in other.entries("a")] == ["question of a"]
    assert other.get("a", theirs) is None and other.get("b", mine) is None
    assert not other.label("a", theirs, "answer")
    b_entry = other.get("b", theirs)
    assert b_entry is not None and b_entry.expected is None


def test_retention_deletes_old_entries(store: Store) -> None:
    qlog = open_log(store)
    old = qlog.append(_entry("ws", "old question"), retention_days=None)
    _backdate(store, old)
    new = qlog.append(_entry("ws", "new question"), retention_days=7)
    assert [e.id for e in qlog.entries("ws")] == [new]


def _backdate(store: Store, entry_id: int) -> None:
    """Make one entry 30 days old, by the store's own clock column."""
    from abstain.stores.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        with store._transaction() as conn:
            conn.execute("UPDATE query_log SET created_at = '2000-01-01T00:00:00.000000Z'"
                         " WHERE id = ?", (entry_id,))
        return
    with store._tx("ws") as conn:  # type: ignore[attr-defined]
        conn.execute("UPDATE query_log SET created_at = now() - interval '30 days'"
                     " WHERE id = %s", (entry_id,))


@pytest.mark.postgres
def test_postgres_row_level_security_hides_other_workspaces(pg_database: str) -> None:
    """Even a query without a workspace filter sees only its own tenant's questions."""
    from abstain.stores.postgres import PostgresStore

    store = PostgresStore(pg_database)
    try:
        qlog = open_log(store)
        qlog.append(_entry("a", "question of a"), retention_days=None)
        qlog.append(_entry("b", "question of b"), retention_days=None)
        with store._tx("a") as conn:
            rows = conn.execute("SELECT question FROM query_log").fetchall()
        assert rows == [("question of a",)]
    finally:
        store.close()


def test_a_pipeline_on_the_store_records_its_questions(store: Store) -> None:
    from abstain.embed import HashingEmbedder
    from abstain.pipeline import Pipeline

    pipe = Pipeline(store, HashingEmbedder(), workspace="ws")
    pipe.ingest_text("# Cache\n\nThe default value of storage.cache_mb is 512.", source="c.md")
    pipe.ask("What is the default value of storage.cache_mb?")
    assert open_log(store).entries("ws") == []  # off by default
    open_log(store).configure(LogSettings(enabled=True, redact=True))
    answer = pipe.ask("What is the default value of storage.cache_mb?")
    [entry] = open_log(store).entries("ws")
    assert entry.question is None and entry.answered == answer.answered
    assert entry.question_hash == question_hash(answer.question)
    assert not [n for n in answer.notes if n.startswith("query log")]  # recorded
    assert [c["name"] for c in entry.record["checks"]] == [c.name for c in answer.checks]


def test_an_existing_sqlite_database_gains_the_log(tmp_path: Path) -> None:
    """A database written before the query log existed is migrated when it is opened."""
    import sqlite3

    from abstain.stores.sqlite import SQLiteStore
    from abstain.stores.sqlite_migrations import MIGRATIONS

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        for script in MIGRATIONS[:2]:
            conn.executescript(script)
        conn.execute("PRAGMA user_version = 2")
    store = SQLiteStore(path)
    try:
        assert open_log(store).settings() == LogSettings()
        assert open_log(store).append(_entry("ws", "q"), retention_days=None) == 1
    finally:
        store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS),)
