"""The embedded store: stdlib sqlite3 + FTS5, vectors searched with numpy or an HNSW graph.

Vectors live in SQLite as float32 blobs. Each process loads a workspace's vectors
once into a matrix and reloads them only when that workspace's write generation
changed: a counter in the ``generations`` table that every write bumps in its own
transaction, so writes of any connection or process are seen, and one upload
reloads one workspace once. A workspace of ``ann_threshold`` vectors or more is
searched through an approximate index instead (:mod:`abstain.stores.sqlite_ann`),
caught up from the database's vector log on the same signal, with its candidates
re-scored exactly.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import numpy.typing as npt
import Stemmer

from abstain.errors import NoDatabase, StoreError
from abstain.evidence import ArmHit, Chunk, ChunkKind, Document
from abstain.query import KeywordQuery
from abstain.records import TermCounts
from abstain.stores import keyword_bounds, sqlite_ann, sqlite_keywords
from abstain.stores.base import (
    TERM_COUNT_CAP,
    DocumentInfo,
    EmbedderInfo,
    StoredChunk,
    check_staging_id,
    embedder_mismatch,
    searched_headings,
    vectors_by_chunk,
)
from abstain.stores.sqlite_ann import ANN_THRESHOLD, AnnIndex
from abstain.stores.sqlite_keywords import KeywordIndex, KeywordIndexed
from abstain.stores.sqlite_migrations import migrate
from abstain.stores.sqlite_sql import in_batches
from abstain.stores.sqlite_vectors import VectorArm, _Index
from abstain.text import compound_likes, tokens

_PORTER = Stemmer.Stemmer("porter")
"""The keyword arm's FTS5 ``porter`` tokenizer stems with Porter's original algorithm."""

Vector = npt.NDArray[np.float32]


class SQLiteStore(VectorArm, KeywordIndexed):
    def __init__(self, path: str | Path, *, create: bool = True,
                 ann_threshold: int = ANN_THRESHOLD,
                 keyword_threshold: int | None = None) -> None:
        """Open (and migrate) the database at ``path``; with ``create=False`` a missing file
        is a :class:`~abstain.errors.NoDatabase` error instead of a new empty database.

        A workspace holding ``ann_threshold`` vectors or more is searched through an
        approximate index (the ``ann`` extra), persisted in ``<path>.ann/``; without the
        extra it is scanned exactly, with a warning. From ``keyword_threshold`` searchable
        chunks (default :data:`~abstain.stores.sqlite_keywords.KEYWORD_THRESHOLD`) the
        keyword arm ranks through a tantivy index in ``<path>.kw/``
        (:mod:`abstain.stores.sqlite_keywords`, the same extra)."""
        self.path = str(path)
        if not create and self.path != ":memory:" and not Path(self.path).expanduser().exists():
            raise NoDatabase(self.path)
        self.created = self.path != ":memory:" and not Path(self.path).expanduser().exists()
        """This opening made the database (a new file, and its folder if need be): the CLI
        says so, so that a typo in ``--db`` does not pass for the store meant."""
        if self.path != ":memory:":
            try:
                Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the folder for {self.path}: {exc}") from exc
        self._local = threading.local()
        self._conns: list[tuple[weakref.ref[threading.Thread], sqlite3.Connection]] = []
        """Each thread's open connection. A server's worker threads come and go: the
        connections of threads that have ended are closed when a new one opens, so neither
        file descriptors nor memory grow with them; ``close`` closes the rest."""
        self._lock = threading.RLock()
        self._index: dict[str, tuple[int, _Index | AnnIndex | None]] = {}
        """workspace -> (write generation it was loaded at, its vectors)"""
        self.ann_threshold = int(ann_threshold)
        self._ann_folder = sqlite_ann.folder_of(self.path)
        self.ann_rebuilds: list[str] = []
        """Why an approximate index on disk was rebuilt from the database, one line each."""
        self._ann_missing_warned = False
        self.keyword_threshold = (sqlite_keywords.KEYWORD_THRESHOLD if keyword_threshold is None
                                  else int(keyword_threshold))
        self._keywords: KeywordIndex | None = None
        self.keyword_rebuilds: list[str] = []
        """Why the keyword index on disk was rebuilt from the database, one line each."""
        self.index_loads = 0
        """How many times a workspace's vectors were (re)loaded (for tests and benchmarks)."""
        self._closed = False
        migrate(self._conn())

    def __str__(self) -> str:
        return self.path

    # -- connections -------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self._closed:
                raise StoreError("the store is closed")
            try:
                conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                       timeout=30.0)
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute("PRAGMA synchronous = NORMAL")
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot open {self.path} as a SQLite database: {exc}") from exc
            self._local.conn = conn
            with self._lock:
                live = []
                for thread, other in self._conns:
                    ended = thread()
                    if ended is None or not ended.is_alive():
                        other.close()
                    else:
                        live.append((thread, other))
                self._conns = [*live, (weakref.ref(threading.current_thread()), conn)]
        return conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a write the disk cannot hold (full, a file size limit)
        is rolled back whole and raised as a StoreError that says so."""
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:  # SQLite may have rolled back already (disk full)
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and _no_room(exc):
                raise StoreError(
                    f"cannot write to {self.path}: {exc}. Nothing of this write was kept; "
                    "what was stored before is intact. Free disk space (or raise the file "
                    "size limit) and try again.") from exc
            raise

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._save_indexes(every=True)
            for _, conn in self._conns:
                conn.close()
            self._conns = []
            self._keywords = None  # tantivy's files are released with it
            self._closed = True
            self._local = threading.local()

    # -- embedder binding --------------------------------------------------
    def embedder(self) -> EmbedderInfo | None:
        rows = dict(self._conn().execute(
            "SELECT key, value FROM meta WHERE key IN ('embedder', 'dim')").fetchall())
        if "embedder" not in rows:
            return None
        return EmbedderInfo(rows["embedder"], int(rows["dim"]))

    def _bind_embedder(self, conn: sqlite3.Connection, info: EmbedderInfo) -> None:
        current = self.embedder()
        if current is None:
            conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             [("embedder", info.name), ("dim", str(info.dim))])
        elif current != info:
            raise embedder_mismatch(self.path, current, info, option="--db")

    def check_embedder(self, info: EmbedderInfo) -> None:
        current = self.embedder()
        if current is not None and current != info:
            raise embedder_mismatch(self.path, current, info, option="--db")

    # -- writes ------------------------------------------------------------
    def write_document(self, document: Document, chunks: Sequence[Chunk], vectors: Vector,
                       embedder: EmbedderInfo, identifiers: Sequence[str] = ()) -> None:
        embedded = vectors_by_chunk(chunks, vectors, embedder)
        headings = {c.id: searched_headings(document, c) for c in chunks}
        blobs = {chunk_id: v.tobytes() for chunk_id, v in embedded.items()}
        with self._transaction() as conn:
            self._bind_embedder(conn, embedder)
            _bump(conn, document.workspace)
            self._delete(conn, document.id)
            self._insert_document(conn, document)
            for chunk in chunks:
                cur = conn.execute(
                    "INSERT INTO chunks (id, document_id, kind, parent_id, ordinal, text,"
                    " heading_path, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (chunk.id, document.id, chunk.kind.value, chunk.parent_id, chunk.ordinal,
                     chunk.text, json.dumps(list(chunk.heading_path)), blobs.get(chunk.id)),
                )
                if chunk.kind is not ChunkKind.PARENT:
                    conn.execute("INSERT INTO chunks_fts (rowid, headings, body) VALUES (?, ?, ?)",
                                 (cur.lastrowid, headings[chunk.id], chunk.text))
            conn.executemany("INSERT OR IGNORE INTO identifiers (document_id, token) VALUES (?, ?)",
                             [(document.id, t) for t in identifiers])

    @staticmethod
    def _insert_document(conn: sqlite3.Connection, document: Document) -> None:
        conn.execute(
            "INSERT INTO documents (id, workspace, source, title, content_hash, curated,"
            " published, metadata, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (document.id, document.workspace, document.source, document.title,
             document.content_hash, int(document.curated), int(document.published),
             json.dumps(document.metadata, default=str), document.origin),
        )

    def stage_chunks(self, staging_id: str, document: Document, chunks: Sequence[Chunk],
                     vectors: Vector, embedder: EmbedderInfo) -> None:
        check_staging_id(staging_id, document.id)
        embedded = vectors_by_chunk(chunks, vectors, embedder)
        with self._transaction() as conn:
            self._bind_embedder(conn, embedder)
            row = conn.execute("SELECT coalesce(max(n), -1) FROM staged_chunks"
                               " WHERE staging_id = ?", (staging_id,)).fetchone()
            start = int(row[0]) + 1
            conn.executemany(
                "INSERT INTO staged_chunks (staging_id, n, id, kind, parent_id, ordinal, text,"
                " heading_path, headings, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(staging_id, start + i, c.id, c.kind.value, c.parent_id, c.ordinal, c.text,
                  json.dumps(list(c.heading_path)), searched_headings(document, c),
                  embedded[c.id].tobytes() if c.id in embedded else None)
                 for i, c in enumerate(chunks)])

    def commit_staged(self, staging_id: str, document: Document, embedder: EmbedderInfo,
                      identifiers: Sequence[str], expected_chunks: int) -> None:
        check_staging_id(staging_id, document.id)
        with self._transaction() as conn:
            self._bind_embedder(conn, embedder)
            staged = int(conn.execute("SELECT count(*) FROM staged_chunks WHERE staging_id = ?",
                                      (staging_id,)).fetchone()[0])
            if staged != expected_chunks:
                raise StoreError(f"{document.source}: {staged} chunks are staged, "
                                 f"{expected_chunks} expected (another ingest of the same "
                                 "document discarded them?); ingest it again")
            _bump(conn, document.workspace)
            self._delete(conn, document.id)
            self._insert_document(conn, document)
            conn.execute(
                "INSERT INTO chunks (id, document_id, kind, parent_id, ordinal, text,"
                " heading_path, embedding) SELECT id, ?, kind, parent_id, ordinal, text,"
                " heading_path, embedding FROM staged_chunks WHERE staging_id = ? ORDER BY n",
                (document.id, staging_id))
            conn.execute(
                "INSERT INTO chunks_fts (rowid, headings, body) SELECT c.rowid, s.headings,"
                " s.text FROM staged_chunks s JOIN chunks c ON c.id = s.id"
                " WHERE s.staging_id = ? AND s.kind <> 'parent' ORDER BY c.rowid",
                (staging_id,))
            conn.executemany("INSERT OR IGNORE INTO identifiers (document_id, token) VALUES (?, ?)",
                             [(document.id, t) for t in identifiers])
            conn.execute("DELETE FROM staged_chunks WHERE staging_id = ?", (staging_id,))

    def discard_staged(self, document_id: str) -> int:
        where = " FROM staged_chunks WHERE staging_id >= ? AND staging_id < ?"
        span = (f"{document_id}/", f"{document_id}0")  # '0' follows '/'
        if self._conn().execute("SELECT 1" + where + " LIMIT 1", span).fetchone() is None:
            return 0
        with self._transaction() as conn:
            return conn.execute("DELETE" + where, span).rowcount

    def _delete(self, conn: sqlite3.Connection, document_id: str) -> bool:
        conn.execute("DELETE FROM chunks_fts WHERE rowid IN "
                     "(SELECT rowid FROM chunks WHERE document_id = ?)", (document_id,))
        return conn.execute("DELETE FROM documents WHERE id = ?", (document_id,)).rowcount > 0

    def delete_document(self, workspace: str, document_id: str) -> bool:
        with self._transaction() as conn:
            row = conn.execute("SELECT 1 FROM documents WHERE id = ? AND workspace = ?",
                               (document_id, workspace)).fetchone()
            if not row:
                return False
            _bump(conn, workspace)
            return self._delete(conn, document_id)

    def set_published(self, workspace: str, document_id: str, published: bool) -> bool:
        with self._transaction() as conn:
            changed = conn.execute(
                "UPDATE documents SET published = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%SZ',"
                " 'now') WHERE id = ? AND workspace = ?",
                (int(published), document_id, workspace)).rowcount > 0
            if changed:
                _bump(conn, workspace)
            return changed

    # -- reads -------------------------------------------------------------
    def document_hash(self, workspace: str, source: str) -> str | None:
        row = self._conn().execute(
            "SELECT content_hash FROM documents WHERE workspace = ? AND source = ?",
            (workspace, source)).fetchone()
        return None if row is None else str(row[0])

    def document(self, workspace: str, source: str) -> DocumentInfo | None:
        rows = self._documents(" WHERE d.workspace = ? AND d.source = ?", (workspace, source))
        return rows[0] if rows else None

    def list_documents(self, workspace: str | None = None) -> list[DocumentInfo]:
        if workspace is None:
            return self._documents("", ())
        return self._documents(" WHERE d.workspace = ?", (workspace,))

    def _documents(self, where: str, params: tuple[str, ...]) -> list[DocumentInfo]:
        sql = ("SELECT d.id, d.workspace, d.source, d.title, d.content_hash, d.curated,"
               " d.published, d.updated_at, (SELECT count(*) FROM chunks c"
               " WHERE c.document_id = d.id AND c.kind = 'child'), d.origin FROM documents d")
        rows = self._conn().execute(sql + where + " ORDER BY d.workspace, d.source",
                                    params).fetchall()
        return [DocumentInfo(id=r[0], workspace=r[1], source=r[2], title=r[3], content_hash=r[4],
                             curated=bool(r[5]), published=bool(r[6]), chunks=int(r[8]),
                             updated_at=r[7], origin=r[9]) for r in rows]

    def workspaces(self) -> list[str]:
        return [r[0] for r in self._conn().execute(
            "SELECT DISTINCT workspace FROM documents ORDER BY workspace")]

    def identifiers(self, workspace: str) -> list[str]:
        return [r[0] for r in self._conn().execute(
            "SELECT DISTINCT i.token FROM identifiers i JOIN documents d ON d.id = i.document_id"
            " WHERE d.workspace = ? ORDER BY i.token", (workspace,))]

    def get_chunks(self, ids: Sequence[str]) -> dict[str, StoredChunk]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._conn().execute(
            "SELECT c.id, c.document_id, c.kind, c.parent_id, c.ordinal, c.text, c.heading_path,"
            " d.workspace, d.source, d.title, d.content_hash, d.curated, d.published, d.metadata,"
            " coalesce(p.text, c.text)"
            f" FROM chunks c JOIN documents d ON d.id = c.document_id"
            f" LEFT JOIN chunks p ON p.id = c.parent_id AND c.kind = 'child'"
            f" WHERE c.id IN ({marks})", list(ids)).fetchall()
        out: dict[str, StoredChunk] = {}
        for r in rows:
            chunk = Chunk(r[0], r[1], ChunkKind(r[2]), r[5], r[4], r[3], tuple(json.loads(r[6])))
            doc = Document(r[1], r[7], r[8], r[9], r[10], bool(r[11]), bool(r[12]),
                           json.loads(r[13]))
            out[chunk.id] = StoredChunk(chunk, doc, r[14])
        return out

    def term_counts(self, workspace: str, phrases: Sequence[str], *,
                    published_only: bool = True) -> TermCounts:
        total = self._searchable(workspace, published_only)
        conn = self._conn()
        every: int | None = None
        counts: dict[str, int] = {}
        for phrase in dict.fromkeys(phrases):
            words = tokens(phrase)
            if not words or total == 0:
                counts[phrase] = 0
                continue
            likes = compound_likes(phrase)  # proxy-headers: written as one token
            n = int(conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM chunks_fts"
                " JOIN chunks c ON c.rowid = chunks_fts.rowid"
                " JOIN documents d ON d.id = c.document_id"
                " WHERE chunks_fts MATCH ? AND d.workspace = ? AND (d.published = 1 OR ?)"
                + (" AND (c.text LIKE ? ESCAPE '\\' OR c.text LIKE ? ESCAPE '\\')"
                   if likes else "") + " LIMIT ?)",
                ('"' + " ".join(words) + '"', workspace, int(not published_only),
                 *(likes or ()), TERM_COUNT_CAP)).fetchone()[0])
            if n >= TERM_COUNT_CAP and len(words) == 1:
                if every is None:  # rows of the FTS table, the vocabulary's denominator
                    # (0.1 ms at 100k chunks, where counting chunks reads every vector)
                    every = max(1, self._fts_rows(conn))
                n = max(n, round(self._vocabulary_count(conn, words[0]) * total / every))
            counts[phrase] = n
        return TermCounts(total, counts)

    @staticmethod
    def _vocabulary_count(conn: sqlite3.Connection, word: str) -> int:
        """Chunks of the whole store that hold ``word``, from FTS5's own vocabulary (one
        lookup; the word stemmed as the keyword arm's Porter tokenizer stems it)."""
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocabulary"
                     " USING fts5vocab(main, chunks_fts, row)")
        row = conn.execute("SELECT doc FROM temp.chunks_vocabulary WHERE term = ?",
                           (_PORTER.stemWord(word),)).fetchone()
        return 0 if row is None else int(row[0])

    # -- keyword arm -------------------------------------------------------
    def search_text(self, query: str | KeywordQuery, *, workspace: str, limit: int,
                    published_only: bool = True) -> list[ArmHit]:
        keywords = query if isinstance(query, KeywordQuery) else KeywordQuery.of(query)
        parts = keywords.fts5_parts()
        if not parts or limit <= 0:
            return []
        conn = self._conn()
        index = self._keyword_index(conn)
        if index is not None:
            return sqlite_keywords.search(conn, index, keywords, workspace=workspace,
                                          limit=limit, published_only=published_only)
        ranked = self._ranked_parts(conn, parts)
        budget = keyword_bounds.CANDIDATE_BUDGET
        matches = ("SELECT rowid, bm25(chunks_fts, 2.0, 1.0) AS score FROM chunks_fts"
                   " WHERE chunks_fts MATCH ? LIMIT ?")
        if len(ranked) > 1:  # rows with every term first (keyword_bounds, rule 3)
            matches = (f"SELECT rowid, min(score) AS score FROM (SELECT * FROM ({matches})"
                       f" UNION ALL SELECT * FROM ({matches})) GROUP BY rowid")
            params: tuple[object, ...] = (" AND ".join(ranked), budget, " OR ".join(ranked),
                                          budget)
        else:
            params = (ranked[0], budget)
        rows = conn.execute(
            f"SELECT c.id, c.kind, c.parent_id, m.score FROM ({matches}) AS m"
            " JOIN chunks c ON c.rowid = m.rowid JOIN documents d ON d.id = c.document_id"
            " WHERE d.workspace = ? AND (d.published = 1 OR ?)"
            " ORDER BY m.score, c.rowid LIMIT ?",
            (*params, workspace, int(not published_only), limit)).fetchall()
        return [ArmHit(chunk_id=r[0], rank=i, score=-float(r[3]),
                       collapse_to=r[2] if r[1] == "paraphrase" else None)
                for i, r in enumerate(rows, start=1)]

    def _ranked_parts(self, conn: sqlite3.Connection, parts: list[str]) -> list[str]:
        """The MATCH parts worth ranking (:mod:`abstain.stores.keyword_bounds`). A part's
        frequency is its word's own count in FTS5's vocabulary (for a phrase, its rarest
        word's): one lookup, a lower bound for a prefix, where counting the prefix's matches
        would cost as much as ranking them."""
        if len(parts) < 2:
            return parts
        rows = self._fts_rows(conn)
        if rows <= keyword_bounds.frequent_above(rows):
            return parts
        frequency = {part: min(self._vocabulary_count(conn, word)
                               for word in part.strip('"*').split()) for part in parts}
        return keyword_bounds.prune(frequency, rows)

    def _fts_rows(self, conn: sqlite3.Connection) -> int:
        """Rows of the full-text index (its docsize shadow table: one small row per chunk)."""
        return int(conn.execute("SELECT count(*) FROM chunks_fts_docsize").fetchone()[0])

    # -- embedding cache ---------------------------------------------------
    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        conn = self._conn()
        unique = list(dict.fromkeys(hashes))
        for part, marks in in_batches(unique):
            for text_hash, blob in conn.execute(
                    f"SELECT text_hash, vector FROM embedding_cache WHERE model = ?"
                    f" AND text_hash IN ({marks})", [model, *part]):
                out[text_hash] = np.frombuffer(blob, dtype=np.float32).copy()
        return out

    def cache_vectors(self, model: str, items: dict[str, Vector]) -> None:
        if not items:
            return
        with self._transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO embedding_cache (model, text_hash, vector) VALUES (?, ?, ?)",
                [(model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items.items()])


def _bump(conn: sqlite3.Connection, workspace: str) -> None:
    """Move the workspace's write generation on (inside the writing transaction)."""
    conn.execute("INSERT INTO generations (workspace, generation) VALUES (?, 1)"
                 " ON CONFLICT (workspace) DO UPDATE SET generation = generation + 1",
                 (workspace,))


def _no_room(exc: sqlite3.OperationalError) -> bool:
    """Is this SQLite's "database or disk is full" (or a file size limit, EFBIG)?"""
    text = str(exc).lower()
    return "disk is full" in text or "file too large" in text or "disk i/o error" in text
