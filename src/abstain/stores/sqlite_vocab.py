"""The SQLite store's vocabularies (tables ``vocabularies``, ``concepts``, ``concept_labels``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from abstain.stores.log_base import now_utc
from abstain.stores.sqlite import SQLiteStore
from abstain.stores.sqlite_sql import in_batches
from abstain.stores.vocab_base import (
    MATCH_SELECT,
    MAX_CANDIDATES,
    Concept,
    LabelMatch,
    VocabularyInfo,
    concept_words,
    label_rows,
    label_words,
    neighbourhood,
)


class SQLiteVocabulary:
    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def replace_vocabulary(self, info: VocabularyInfo, concepts: Sequence[Concept]) -> None:
        ws, name = info.workspace, info.name
        languages = sorted({lang for c in concepts for lang in c.languages})
        with self.store._transaction() as conn:
            conn.execute("DELETE FROM vocabularies WHERE workspace = ? AND name = ?", (ws, name))
            conn.execute("INSERT INTO vocabularies (workspace, name, kind, location, vocid,"
                         " concepts, languages, loaded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (ws, name, info.kind, info.location, info.vocid, len(concepts),
                          json.dumps(languages), now_utc()))
            conn.executemany(
                "INSERT OR REPLACE INTO concepts (workspace, vocabulary, uri, data)"
                " VALUES (?, ?, ?, ?)",
                ((ws, name, c.uri, json.dumps(c.to_json(), ensure_ascii=False))
                 for c in concepts))
            conn.executemany(
                "INSERT INTO concept_labels (workspace, vocabulary, uri, key, initials, kind,"
                " lang, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ((ws, name, c.uri, r.key, r.initials, r.kind.value, r.lang, r.label)
                 for c in concepts for r in label_rows(c)))
            conn.executemany(
                "INSERT OR IGNORE INTO concept_words (workspace, vocabulary, word, uri)"
                " VALUES (?, ?, ?, ?)",
                ((ws, name, w, c.uri) for c in concepts for w in concept_words(c)))

    def vocabularies(self, workspace: str) -> list[VocabularyInfo]:
        rows = self.store._conn().execute(
            "SELECT workspace, name, kind, location, vocid, concepts, languages, loaded_at"
            " FROM vocabularies WHERE workspace = ? ORDER BY name", (workspace,)).fetchall()
        return [VocabularyInfo(r[0], r[1], r[2], r[3], r[4], int(r[5]),
                               tuple(json.loads(r[6])), r[7]) for r in rows]

    def remove_vocabulary(self, workspace: str, name: str) -> bool:
        with self.store._transaction() as conn:
            return conn.execute("DELETE FROM vocabularies WHERE workspace = ? AND name = ?",
                                (workspace, name)).rowcount > 0

    def find_labels(self, workspace: str, keys: Sequence[str]) -> list[LabelMatch]:
        wanted = list(dict.fromkeys(k for k in keys if k))
        out: list[LabelMatch] = []
        conn = self.store._conn()
        for part, marks in in_batches(wanted):
            out += _matches(conn.execute(
                f"{MATCH_SELECT} WHERE workspace = ? AND key IN"
                f" ({marks})", (workspace, *part)).fetchall())
        return sorted(out, key=LabelMatch.order)

    def concepts(self, workspace: str, uris: Sequence[str]) -> dict[str, Concept]:
        wanted = list(dict.fromkeys(uris))
        found: dict[str, Concept] = {}
        conn = self.store._conn()
        for part, marks in in_batches(wanted):
            for uri, data in conn.execute(
                    f"SELECT uri, data FROM concepts WHERE workspace = ?"
                    f" AND uri IN ({marks}) ORDER BY vocabulary", (workspace, *part)).fetchall():
                found.setdefault(uri, Concept.from_json(json.loads(data)))
        return found

    def similar_labels(self, workspace: str, key: str) -> list[LabelMatch]:
        if not key:
            return []
        low, high = neighbourhood(key)
        half = MAX_CANDIDATES // 2
        conn = self.store._conn()
        rows = conn.execute(f"{MATCH_SELECT} WHERE workspace = ?"
                            " AND initials = ? LIMIT ?", (workspace, key, MAX_CANDIDATES))
        found = rows.fetchall()
        for sql, bounds in ((" AND key >= ? AND key < ? ORDER BY key", (key, high)),
                            (" AND key >= ? AND key < ? ORDER BY key DESC", (low, key))):
            found += conn.execute(f"{MATCH_SELECT}"
                                  f" WHERE workspace = ?{sql} LIMIT ?",
                                  (workspace, *bounds, half)).fetchall()
        words = label_words(key)
        if words:
            marks = ", ".join("?" * len(words))
            found += conn.execute(
                f"{MATCH_SELECT} WHERE workspace = ? AND uri IN"
                f" (SELECT uri FROM concept_words WHERE workspace = ? AND word IN ({marks})"
                "  GROUP BY uri ORDER BY count(*) DESC, uri LIMIT ?)",
                (workspace, workspace, *words, MAX_CANDIDATES)).fetchall()
        return _matches(list(dict.fromkeys(found)))



def _matches(rows: Sequence[Sequence[Any]]) -> list[LabelMatch]:
    return [LabelMatch.of_row(r) for r in rows]
