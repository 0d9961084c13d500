"""Numbered schema migrations of the SQLite store (``PRAGMA user_version``)."""

from __future__ import annotations

import sqlite3

MIGRATIONS: list[str] = [
    # 1: documents, chunks with float32 vectors, FTS5 over searchable chunks
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE documents (
        id TEXT PRIMARY KEY,
        workspace TEXT NOT NULL,
        source TEXT NOT NULL,
        title TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        curated INTEGER NOT NULL DEFAULT 0,
        published INTEGER NOT NULL DEFAULT 1,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        UNIQUE (workspace, source)
    );
    CREATE INDEX documents_workspace ON documents (workspace);
    CREATE TABLE chunks (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('parent', 'child', 'paraphrase')),
        parent_id TEXT,
        ordinal INTEGER NOT NULL,
        text TEXT NOT NULL,
        heading_path TEXT NOT NULL DEFAULT '[]',
        embedding BLOB
    );
    CREATE INDEX chunks_document ON chunks (document_id);
    CREATE VIRTUAL TABLE chunks_fts USING fts5 (
        headings, body,
        tokenize = 'porter unicode61 remove_diacritics 2',
        prefix = '2 3 4'
    );
    """,
    # 2: identifiers per document (entity-existence check) and the embedding cache
    """
    CREATE TABLE identifiers (
        document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        token TEXT NOT NULL,
        PRIMARY KEY (document_id, token)
    ) WITHOUT ROWID;
    CREATE TABLE embedding_cache (
        model TEXT NOT NULL,
        text_hash TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (model, text_hash)
    ) WITHOUT ROWID;
    """,
    # 3: the query log (abstain.querylog): one row per question asked, off by default
    """
    CREATE TABLE query_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        workspace TEXT NOT NULL,
        question TEXT,
        question_hash TEXT NOT NULL,
        answered INTEGER NOT NULL,
        reason TEXT,
        confidence REAL NOT NULL,
        triage TEXT NOT NULL,
        latency_ms REAL NOT NULL,
        llm_calls INTEGER NOT NULL,
        record TEXT NOT NULL,
        expected TEXT CHECK (expected IN ('answer', 'refuse')),
        note TEXT NOT NULL DEFAULT '',
        gold_sources TEXT NOT NULL DEFAULT '[]',
        labelled_at TEXT
    );
    CREATE INDEX query_log_workspace ON query_log (workspace, id);
    CREATE INDEX query_log_created ON query_log (created_at);
    """,
    # 4: a write generation per workspace, bumped by every write in the same transaction;
    #    it (not the per-connection PRAGMA data_version) decides when vectors are reloaded
    """
    CREATE TABLE generations (
        workspace TEXT PRIMARY KEY,
        generation INTEGER NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO generations (workspace, generation)
        SELECT DISTINCT workspace, 1 FROM documents;
    """,
    # 5: where a document came from (file | text), and staged chunks of
    # large documents, written batch by batch and moved into ``chunks`` at once
    """
    ALTER TABLE documents ADD COLUMN origin TEXT NOT NULL DEFAULT '';
    CREATE TABLE staged_chunks (
        staging_id TEXT NOT NULL,
        n INTEGER NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL,
        parent_id TEXT,
        ordinal INTEGER NOT NULL,
        text TEXT NOT NULL,
        heading_path TEXT NOT NULL,
        headings TEXT NOT NULL,
        embedding BLOB,
        PRIMARY KEY (staging_id, n)
    ) WITHOUT ROWID;
    """,
    # 6: controlled vocabularies (SKOS concepts) per workspace, looked up by label key
    #    (abstain.stores.vocab_base); a vocabulary's concepts and labels go with it
    """
    CREATE TABLE vocabularies (
        workspace TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('file', 'skosmos')),
        location TEXT NOT NULL,
        vocid TEXT NOT NULL DEFAULT '',
        concepts INTEGER NOT NULL,
        languages TEXT NOT NULL DEFAULT '[]',
        loaded_at TEXT NOT NULL,
        PRIMARY KEY (workspace, name)
    ) WITHOUT ROWID;
    CREATE TABLE concepts (
        workspace TEXT NOT NULL,
        vocabulary TEXT NOT NULL,
        uri TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (workspace, uri, vocabulary),
        FOREIGN KEY (workspace, vocabulary) REFERENCES vocabularies (workspace, name)
            ON DELETE CASCADE
    ) WITHOUT ROWID;
    CREATE TABLE concept_labels (
        workspace TEXT NOT NULL,
        vocabulary TEXT NOT NULL,
        uri TEXT NOT NULL,
        key TEXT NOT NULL,
        initials TEXT NOT NULL,
        kind TEXT NOT NULL,
        lang TEXT NOT NULL,
        label TEXT NOT NULL,
        FOREIGN KEY (workspace, vocabulary) REFERENCES vocabularies (workspace, name)
            ON DELETE CASCADE
    );
    CREATE TABLE concept_words (
        workspace TEXT NOT NULL,
        vocabulary TEXT NOT NULL,
        word TEXT NOT NULL,
        uri TEXT NOT NULL,
        PRIMARY KEY (workspace, word, vocabulary, uri),
        FOREIGN KEY (workspace, vocabulary) REFERENCES vocabularies (workspace, name)
            ON DELETE CASCADE
    ) WITHOUT ROWID;
    CREATE INDEX concept_labels_uri ON concept_labels (workspace, uri);
    CREATE INDEX concept_labels_key ON concept_labels (workspace, key);
    CREATE INDEX concept_labels_initials ON concept_labels (workspace, initials);
    CREATE INDEX concept_labels_vocabulary ON concept_labels (workspace, vocabulary);
    """,
    # 7: a log of vectors added and removed, written by triggers in the writing transaction
    #    (the approximate index of abstain.stores.sqlite_ann replays it), where each saved
    #    index stands in it, and a covering index to count a workspace's vectors
    """
    CREATE TABLE vector_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        chunk_rowid INTEGER NOT NULL,
        added INTEGER NOT NULL
    );
    CREATE TRIGGER chunks_vector_added AFTER INSERT ON chunks WHEN NEW.embedding IS NOT NULL
    BEGIN INSERT INTO vector_log (chunk_rowid, added) VALUES (NEW.rowid, 1); END;
    CREATE TRIGGER chunks_vector_removed AFTER DELETE ON chunks WHEN OLD.embedding IS NOT NULL
    BEGIN INSERT INTO vector_log (chunk_rowid, added) VALUES (OLD.rowid, 0); END;
    CREATE TABLE ann_state (
        workspace TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX chunks_searchable ON chunks (document_id) WHERE embedding IS NOT NULL;
    """,
    # 8: a log of searchable chunks added and removed, written once a keyword index exists
    #    (abstain.stores.sqlite_keywords replays it into the index)
    """
    CREATE TABLE keyword_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        chunk_rowid INTEGER NOT NULL,
        added INTEGER NOT NULL
    );
    CREATE TRIGGER chunks_keywords_added AFTER INSERT ON chunks
    WHEN NEW.kind <> 'parent' AND EXISTS (SELECT 1 FROM meta WHERE key = 'keyword_index')
    BEGIN INSERT INTO keyword_log (chunk_rowid, added) VALUES (NEW.rowid, 1); END;
    CREATE TRIGGER chunks_keywords_removed AFTER DELETE ON chunks
    WHEN OLD.kind <> 'parent' AND EXISTS (SELECT 1 FROM meta WHERE key = 'keyword_index')
    BEGIN INSERT INTO keyword_log (chunk_rowid, added) VALUES (OLD.rowid, 0); END;
    """,
]


def migrate(conn: sqlite3.Connection) -> int:
    """Apply pending migrations, each in its own transaction; returns the version."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > len(MIGRATIONS):
        from abstain.errors import StoreError

        raise StoreError(
            f"database schema version {version} is newer than this abstain "
            f"({len(MIGRATIONS)}); upgrade abstain"
        )
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # another process may have applied it while this one waited for the write lock
            if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= number:
                conn.execute("COMMIT")
                continue
            for statement in _statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)


def _statements(script: str) -> list[str]:
    """The script's statements (a trigger's body, with its own semicolons, stays whole)."""
    out: list[str] = []
    pending = ""
    for part in script.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                out.append(pending.strip())
            pending = ""
    return out
