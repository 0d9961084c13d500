"""The PostgreSQL store's vocabularies, under row-level security like the documents.

Every statement runs in a transaction bound to its workspace and filters on it too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from abstain.stores.postgres import PostgresStore
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

_TIME = "to_char(loaded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"


class PostgresVocabulary:
    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def replace_vocabulary(self, info: VocabularyInfo, concepts: Sequence[Concept]) -> None:
        ws, name = info.workspace, info.name
        languages = sorted({lang for c in concepts for lang in c.languages})
        # COPY is refused under row-level security: one INSERT … unnest per table instead
        with self.store._tx(ws) as conn:
            conn.execute("DELETE FROM vocabularies WHERE workspace = %s AND name = %s",
                         (ws, name))
            conn.execute("INSERT INTO vocabularies (workspace, name, kind, location, vocid,"
                         " concepts, languages) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         (ws, name, info.kind, info.location, info.vocid, len(concepts),
                          languages))
            unique = list({c.uri: c for c in concepts}.values())
            conn.execute(
                "INSERT INTO concepts (workspace, vocabulary, uri, data)"
                " SELECT %s, %s, u, d::jsonb FROM unnest(%s::text[], %s::text[]) AS t(u, d)",
                (ws, name, [c.uri for c in unique],
                 [json.dumps(c.to_json(), ensure_ascii=False) for c in unique]))
            rows = [(c.uri, r) for c in unique for r in label_rows(c)]
            conn.execute(
                "INSERT INTO concept_labels (workspace, vocabulary, uri, key, initials, kind,"
                " lang, label) SELECT %s, %s, * FROM unnest(%s::text[], %s::text[],"
                " %s::text[], %s::text[], %s::text[], %s::text[])",
                (ws, name, [u for u, _ in rows], [r.key for _, r in rows],
                 [r.initials for _, r in rows], [r.kind.value for _, r in rows],
                 [r.lang for _, r in rows], [r.label for _, r in rows]))
            words = [(c.uri, w) for c in unique for w in concept_words(c)]
            conn.execute(
                "INSERT INTO concept_words (workspace, vocabulary, uri, word)"
                " SELECT %s, %s, * FROM unnest(%s::text[], %s::text[]) ON CONFLICT DO NOTHING",
                (ws, name, [u for u, _ in words], [w for _, w in words]))

    def vocabularies(self, workspace: str) -> list[VocabularyInfo]:
        with self.store._tx(workspace) as conn:
            rows = conn.execute(
                "SELECT workspace, name, kind, location, vocid, concepts, languages,"
                f" {_TIME} FROM vocabularies WHERE workspace = %s ORDER BY name",
                (workspace,)).fetchall()
        return [VocabularyInfo(r[0], r[1], r[2], r[3], r[4], int(r[5]), tuple(r[6]), r[7])
                for r in rows]

    def remove_vocabulary(self, workspace: str, name: str) -> bool:
        with self.store._tx(workspace) as conn:
            return conn.execute("DELETE FROM vocabularies WHERE workspace = %s AND name = %s",
                                (workspace, name)).rowcount > 0

    def find_labels(self, workspace: str, keys: Sequence[str]) -> list[LabelMatch]:
        wanted = list(dict.fromkeys(k for k in keys if k))
        if not wanted:
            return []
        with self.store._tx(workspace) as conn:
            rows = conn.execute(f"{MATCH_SELECT} WHERE workspace = %s AND key = ANY(%s)",
                                (workspace, wanted)).fetchall()
        return sorted(_matches(rows), key=LabelMatch.order)

    def concepts(self, workspace: str, uris: Sequence[str]) -> dict[str, Concept]:
        wanted = list(dict.fromkeys(uris))
        if not wanted:
            return {}
        with self.store._tx(workspace) as conn:
            rows = conn.execute("SELECT uri, data FROM concepts WHERE workspace = %s"
                                " AND uri = ANY(%s) ORDER BY vocabulary",
                                (workspace, wanted)).fetchall()
        found: dict[str, Concept] = {}
        for uri, data in rows:
            found.setdefault(uri, Concept.from_json(data))
        return found

    def similar_labels(self, workspace: str, key: str) -> list[LabelMatch]:
        if not key:
            return []
        low, high = neighbourhood(key)
        half = MAX_CANDIDATES // 2
        with self.store._tx(workspace) as conn:
            found = conn.execute(f"{MATCH_SELECT} WHERE workspace = %s AND initials = %s LIMIT %s",
                                 (workspace, key, MAX_CANDIDATES)).fetchall()
            for sql, bounds in ((" AND key >= %s AND key < %s ORDER BY key", (key, high)),
                                (" AND key >= %s AND key < %s ORDER BY key DESC", (low, key))):
                found += conn.execute(f"{MATCH_SELECT} WHERE workspace = %s{sql} LIMIT %s",
                                      (workspace, *bounds, half)).fetchall()
            words = label_words(key)
            if words:
                found += conn.execute(
                    f"{MATCH_SELECT} WHERE workspace = %s AND uri IN"
                    " (SELECT uri FROM concept_words WHERE workspace = %s AND word = ANY(%s)"
                    "  GROUP BY uri ORDER BY count(*) DESC, uri LIMIT %s)",
                    (workspace, workspace, words, MAX_CANDIDATES)).fetchall()
        return _matches(list(dict.fromkeys(found)))



def _matches(rows: Sequence[Sequence[Any]]) -> list[LabelMatch]:
    return [LabelMatch.of_row(r) for r in rows]
