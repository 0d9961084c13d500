"""The server store: PostgreSQL with pgvector (HNSW, cosine) and weighted full text.

Every transaction binds its workspace (``abstain.workspace``) before it runs, and
every query also filters on the workspace itself: row-level security is the
second wall, not the first (see :mod:`abstain.stores.postgres_migrations`).
The ``embedding`` column is typed ``vector(N)`` and its HNSW index built by the
first document written, with N from that write's embedder.

``search_fused`` does both arms, paraphrase collapse and RRF in one statement;
it returns what ``abstain.fuse.collapse`` + ``rrf`` return on the two arms.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import groupby
from typing import Any

import numpy as np
import numpy.typing as npt

from abstain.errors import EmbedderMismatch, MissingDependency, StoreError
from abstain.evidence import ArmHit, Chunk, ChunkKind, Document, FusedHit
from abstain.fuse import RRF_K
from abstain.query import KeywordQuery
from abstain.records import TermCounts
from abstain.stores import keyword_bounds
from abstain.stores import postgres_sql as sql
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
from abstain.text import compound_likes, tokens

try:
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg_pool import ConnectionPool, PoolTimeout
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise MissingDependency(exc.name or "psycopg", "postgres") from exc

from abstain.stores.postgres_bulk import LoadReport, hnsw_index, rebuilt_indexes
from abstain.stores.postgres_bulk import load as bulk_load
from abstain.stores.postgres_migrations import APP_ROLE, is_privileged, migrate
from abstain.stores.postgres_replicas import WAIT_S, ReplicaSet, redacted

Vector = npt.NDArray[np.float32]
Conn = psycopg.Connection[tuple[Any, ...]]

DEFAULT_HNSW_M = 24
DEFAULT_HNSW_EF_CONSTRUCTION = 128
"""The HNSW graph's links per node and build beam. At 1M clustered 384-d chunks (1,000 a
cluster) m = 16 / ef_construction = 64 gave recall@30 0.66-0.71 at ef_search 60 and 0.90 at
800; 24 / 128 gave 0.977 at 60 and 0.986 at 100, for 1.6x the build time (docs/SCALING.md)."""
DEFAULT_EF_SEARCH = 100
"""The search beam (raised to 2x the limit when that is larger)."""
MAX_EF_SEARCH = 1000  # pgvector's upper bound
CONNECT_TIMEOUT_S = 10
DOWN_WAIT_S = 1.0
"""How long a request waits for a connection while the server is known to be unreachable."""


class PostgresStore:
    def __init__(self, url: str, *, pool_size: int = 4, hnsw_m: int = DEFAULT_HNSW_M,
                 hnsw_ef_construction: int = DEFAULT_HNSW_EF_CONSTRUCTION,
                 ef_search: int | None = None,
                 replicas: Sequence[str] = (), replica_wait_s: float = WAIT_S) -> None:
        """``url``: the primary, which takes every write; ``replicas``: streaming replicas
        of it that answer the searches (see :mod:`abstain.stores.postgres_replicas`)."""
        self.url = url
        self.hnsw_m = int(hnsw_m)
        self.hnsw_ef_construction = int(hnsw_ef_construction)
        self.ef_search = ef_search
        self._embedder: EmbedderInfo | None = None
        self._down_since: float | None = None
        """When a connection was last found lost (None while the server answers)."""
        kwargs = _connect_kwargs(url)
        try:
            with psycopg.connect(url, **kwargs) as conn:
                migrate(conn)
                self._set_role = is_privileged(conn)
                if self._set_role and not conn.execute(
                        "SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone():
                    raise StoreError(f"{self}: superusers bypass row-level security and role "
                                     f"{APP_ROLE!r} is missing; connect as the tables' owner")
        except psycopg.Error as exc:
            raise StoreError(f"cannot open PostgreSQL at {self}: {_first_line(exc)}") from exc
        self._pool: ConnectionPool[Conn] = ConnectionPool(
            url, kwargs=kwargs, min_size=1, max_size=max(1, pool_size), open=True,
            configure=self._configure, timeout=CONNECT_TIMEOUT_S, name="abstain")
        self.replicas = ReplicaSet(replicas, kwargs=kwargs, configure=self._configure,
                                   pool_size=pool_size, wait_s=replica_wait_s) if replicas else None

    def __str__(self) -> str:
        return redacted(self.url)

    def _configure(self, conn: Conn) -> None:
        if self._set_role:
            conn.execute(f"SET ROLE {APP_ROLE}".encode())
        register_vector(conn)
        conn.commit()

    @contextmanager
    def _tx(self, workspace: str | None, **settings: str) -> Iterator[Conn]:
        """One transaction bound to ``workspace`` (None: every workspace, reads only)."""
        if self._pool.closed:
            raise StoreError("the store is closed")
        # While the server is unreachable, wait only briefly for a connection, so that
        # every request fails fast (503) instead of each waiting the whole timeout.
        wait = DOWN_WAIT_S if self._down_since is not None else CONNECT_TIMEOUT_S
        try:
            with self._pool.connection(timeout=wait) as conn:
                conn.execute(_SET_CONFIG, _settings(workspace, settings))
                self._down_since = None
                yield conn
        except (PoolTimeout, psycopg.Error) as exc:
            raise self._failed(exc) from exc

    def _failed(self, exc: PoolTimeout | psycopg.Error) -> StoreError:
        """The error to raise; a lost server is remembered, so the next requests fail fast."""
        if isinstance(exc, PoolTimeout):
            self._down_since = self._down_since or time.monotonic()
            return StoreError(f"no connection to PostgreSQL at {self}: {exc}")
        if isinstance(exc, psycopg.OperationalError) and (
                exc.sqlstate is None or exc.sqlstate.startswith("08")):  # connection lost
            self._down_since = self._down_since or time.monotonic()
        return StoreError(f"PostgreSQL at {self}: {_first_line(exc)}")

    def _read(self, workspace: str, statement: str, params: dict[str, Any],
              **settings: str) -> list[tuple[Any, ...]]:
        """One read-only statement in its own transaction, bound as ``_tx`` binds it, in
        one round trip (BEGIN, the settings, the statement and COMMIT go out pipelined);
        on a replica when the store has one that holds the store's last write."""
        if self._pool.closed:
            raise StoreError("the store is closed")

        def run(conn: Conn) -> list[tuple[Any, ...]]:
            with conn.pipeline():
                conn.execute(_SET_CONFIG, _settings(workspace, settings))
                cursor = conn.execute(statement.encode(), params)
                conn.commit()
            return cursor.fetchall()

        if self.replicas is not None:
            rows = self.replicas.read(run)
            if rows is not None:
                return rows
            self.replicas.reads["primary"] += 1
        wait = DOWN_WAIT_S if self._down_since is not None else CONNECT_TIMEOUT_S
        try:
            with self._pool.connection(timeout=wait) as conn:
                rows = run(conn)
            self._down_since = None
            return rows
        except (PoolTimeout, psycopg.Error) as exc:
            raise self._failed(exc) from exc

    def _wrote(self) -> None:
        """Note the primary's WAL position after a write, for read-your-writes on replicas."""
        if self.replicas is None:
            return
        with self._tx(None) as conn:
            row = conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
        if row is not None:
            self.replicas.wrote(str(row[0]))

    def close(self) -> None:
        self._pool.close()
        if self.replicas is not None:
            self.replicas.close()

    # -- embedder binding --------------------------------------------------
    def embedder(self) -> EmbedderInfo | None:
        if self._embedder is None:
            with self._tx(None) as conn:
                self._embedder = _read_embedder(conn)
        return self._embedder

    def check_embedder(self, info: EmbedderInfo) -> None:
        current = self.embedder()
        if current is not None and current != info:
            raise embedder_mismatch(str(self), current, info, option="--store")

    def _bind_embedder(self, conn: Conn, info: EmbedderInfo) -> None:
        current = _read_embedder(conn)
        if current is None:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('abstain.embedder'))")
            current = _read_embedder(conn)
        if current is None:
            conn.execute("INSERT INTO meta (key, value) VALUES ('embedder', %s), ('dim', %s)",
                         (info.name, str(info.dim)))
            conn.execute(f"ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({info.dim:d})"
                         .encode())
            conn.execute(hnsw_index(self.hnsw_m, self.hnsw_ef_construction).encode())
        elif current != info:
            raise embedder_mismatch(str(self), current, info, option="--store")

    # -- writes ------------------------------------------------------------
    def write_document(self, document: Document, chunks: Sequence[Chunk], vectors: Vector,
                       embedder: EmbedderInfo, identifiers: Sequence[str] = ()) -> None:
        embedded = vectors_by_chunk(chunks, vectors, embedder)
        ws = document.workspace
        with self._tx(ws) as conn:
            self._bind_embedder(conn, embedder)
            _replace_document(conn, document)
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO chunks (id, document_id, workspace, published, kind, parent_id,"
                    " ordinal, text, heading_path, headings, embedding)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    [(c.id, document.id, ws, document.published, c.kind.value, c.parent_id,
                      c.ordinal, c.text, list(c.heading_path),
                      searched_headings(document, c), embedded.get(c.id))
                     for c in chunks])
                cur.executemany(
                    "INSERT INTO identifiers (document_id, workspace, token) VALUES (%s, %s, %s)"
                    " ON CONFLICT DO NOTHING", [(document.id, ws, t) for t in identifiers])
        self._embedder = embedder
        self._wrote()

    def write_documents(self, items: Iterable[tuple[Document, Sequence[Chunk], Vector]],
                        embedder: EmbedderInfo, *,
                        identifiers: Mapping[str, Sequence[str]] | None = None,
                        rebuild_indexes: bool | None = None) -> LoadReport:
        """Bulk load: ``write_document`` for each item, through ``COPY``, one transaction per
        run of items of one workspace, read as it goes (a generator of a million chunks
        holds ~20,000 in memory; see :mod:`abstain.stores.postgres_bulk`). ``identifiers``:
        each document's identifier tokens by document id. ``rebuild_indexes``: drop the
        vector, text and postings indexes and build them after the load (None: when the
        load holds at least as many chunks as the table, ``REBUILD_RATIO``)."""
        report = LoadReport(0, 0, 0, ())
        indexes = rebuilt_indexes(self.hnsw_m, self.hnsw_ef_construction)
        for ws, run in groupby(items, key=lambda item: item[0].workspace):
            checked = ((d, c, vectors_by_chunk(c, v, embedder)) for d, c, v in run)
            with self._tx(ws) as conn:
                self._bind_embedder(conn, embedder)
                report = report.merge(bulk_load(conn, ws, checked, identifiers or {},
                                                rebuild=rebuild_indexes, indexes=indexes))
        self._embedder = embedder
        self._wrote()
        return report

    def stage_chunks(self, staging_id: str, document: Document, chunks: Sequence[Chunk],
                     vectors: Vector, embedder: EmbedderInfo) -> None:
        check_staging_id(staging_id, document.id)
        embedded = vectors_by_chunk(chunks, vectors, embedder)
        ws = document.workspace
        with self._tx(ws) as conn:
            self._bind_embedder(conn, embedder)
            row = conn.execute("SELECT coalesce(max(n), -1) FROM staged_chunks"
                               " WHERE staging_id = %s", (staging_id,)).fetchone()
            start = int(row[0]) + 1 if row else 0
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO staged_chunks (staging_id, n, workspace, id, kind, parent_id,"
                    " ordinal, text, heading_path, headings, embedding)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    [(staging_id, start + i, ws, c.id, c.kind.value, c.parent_id, c.ordinal,
                      c.text, list(c.heading_path), searched_headings(document, c),
                      embedded.get(c.id)) for i, c in enumerate(chunks)])

    def commit_staged(self, staging_id: str, document: Document, embedder: EmbedderInfo,
                      identifiers: Sequence[str], expected_chunks: int) -> None:
        check_staging_id(staging_id, document.id)
        ws = document.workspace
        with self._tx(ws) as conn:
            self._bind_embedder(conn, embedder)
            row = conn.execute("SELECT count(*) FROM staged_chunks WHERE staging_id = %s"
                               " AND workspace = %s", (staging_id, ws)).fetchone()
            staged = int(row[0]) if row else 0
            if staged != expected_chunks:
                raise StoreError(f"{document.source}: {staged} chunks are staged, "
                                 f"{expected_chunks} expected (another ingest of the same "
                                 "document discarded them?); ingest it again")
            _replace_document(conn, document)
            conn.execute(
                "INSERT INTO chunks (id, document_id, workspace, published, kind, parent_id,"
                " ordinal, text, heading_path, headings, embedding)"
                " SELECT id, %s, workspace, %s, kind, parent_id, ordinal, text, heading_path,"
                " headings, embedding FROM staged_chunks WHERE staging_id = %s"
                " AND workspace = %s ORDER BY n",
                (document.id, document.published, staging_id, ws))
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO identifiers (document_id, workspace, token) VALUES (%s, %s, %s)"
                    " ON CONFLICT DO NOTHING", [(document.id, ws, t) for t in identifiers])
            conn.execute("DELETE FROM staged_chunks WHERE staging_id = %s AND workspace = %s",
                         (staging_id, ws))
        self._embedder = embedder
        self._wrote()

    def discard_staged(self, document_id: str) -> int:
        with self._tx(None) as conn:
            ws = conn.execute("SELECT DISTINCT workspace FROM staged_chunks WHERE"
                              " staging_id LIKE %s", (_like_prefix(document_id),)).fetchall()
        removed = 0
        for (workspace,) in ws:
            with self._tx(workspace) as conn:
                removed += conn.execute(
                    "DELETE FROM staged_chunks WHERE staging_id LIKE %s AND workspace = %s",
                    (_like_prefix(document_id), workspace)).rowcount
        return removed

    def delete_document(self, workspace: str, document_id: str) -> bool:
        with self._tx(workspace) as conn:
            found = conn.execute("DELETE FROM documents WHERE id = %s AND workspace = %s",
                                 (document_id, workspace)).rowcount > 0
        self._wrote()
        return found

    def set_published(self, workspace: str, document_id: str, published: bool) -> bool:
        with self._tx(workspace) as conn:
            found = conn.execute(
                "UPDATE documents SET published = %s, updated_at = now()"
                " WHERE id = %s AND workspace = %s", (published, document_id, workspace)
            ).rowcount > 0
            conn.execute("UPDATE chunks SET published = %s WHERE document_id = %s"
                         " AND workspace = %s", (published, document_id, workspace))
        self._wrote()
        return found

    # -- reads -------------------------------------------------------------
    def document_hash(self, workspace: str, source: str) -> str | None:
        with self._tx(workspace) as conn:
            row = conn.execute("SELECT content_hash FROM documents WHERE workspace = %s"
                               " AND source = %s", (workspace, source)).fetchone()
        return None if row is None else str(row[0])

    def document(self, workspace: str, source: str) -> DocumentInfo | None:
        rows = self._documents(workspace, source)
        return rows[0] if rows else None

    def list_documents(self, workspace: str | None = None) -> list[DocumentInfo]:
        return self._documents(workspace, None)

    def _documents(self, workspace: str | None, source: str | None) -> list[DocumentInfo]:
        query = ("SELECT d.id, d.workspace, d.source, d.title, d.content_hash, d.curated,"
                 " d.published, to_char(d.updated_at AT TIME ZONE 'UTC',"
                 " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), (SELECT count(*) FROM chunks c"
                 " WHERE c.document_id = d.id AND c.kind = 'child'), d.origin FROM documents d"
                 " WHERE (d.workspace = %s OR %s::text IS NULL)"
                 " AND (d.source = %s OR %s::text IS NULL)"
                 " ORDER BY d.workspace COLLATE \"C\", d.source COLLATE \"C\"")
        with self._tx(workspace) as conn:
            rows = conn.execute(query, (workspace, workspace, source, source)).fetchall()
        return [DocumentInfo(id=r[0], workspace=r[1], source=r[2], title=r[3], content_hash=r[4],
                             curated=r[5], published=r[6], chunks=int(r[8]), updated_at=r[7],
                             origin=r[9]) for r in rows]

    def workspaces(self) -> list[str]:
        with self._tx(None) as conn:
            return [r[0] for r in conn.execute(
                "SELECT workspace FROM documents GROUP BY workspace"
                " ORDER BY workspace COLLATE \"C\"")]

    def identifiers(self, workspace: str) -> list[str]:
        with self._tx(workspace) as conn:
            return [r[0] for r in conn.execute(
                "SELECT token FROM identifiers WHERE workspace = %s GROUP BY token"
                " ORDER BY token COLLATE \"C\"", (workspace,))]

    def term_counts(self, workspace: str, phrases: Sequence[str], *,
                    published_only: bool = True) -> TermCounts:
        wanted = {p: " ".join(tokens(p)) for p in dict.fromkeys(phrases)}
        with self._tx(workspace) as conn:
            total = _count(conn.execute(sql.COUNT_SEARCHABLE, {
                "ws": workspace, "published_only": published_only}).fetchone())
            counts = {}
            for p, words in wanted.items():
                likes = compound_likes(p)  # proxy-headers: written as one token
                params = {"ws": workspace, "published_only": published_only, "phrase": words,
                          "limit": TERM_COUNT_CAP}
                if likes:
                    params |= {"hyphens": likes[0], "underscores": likes[1]}
                counts[p] = 0 if not words or total == 0 else _count(conn.execute(
                    sql.COUNT_COMPOUND if likes else sql.COUNT_PHRASE, params).fetchone())
        return TermCounts(total, counts)

    def get_chunks(self, ids: Sequence[str]) -> dict[str, StoredChunk]:
        if not ids:
            return {}
        with self._tx(None) as conn:
            rows = conn.execute(
                "SELECT c.id, c.document_id, c.kind, c.parent_id, c.ordinal, c.text,"
                " c.heading_path, d.workspace, d.source, d.title, d.content_hash, d.curated,"
                " d.published, d.metadata, coalesce(p.text, c.text)"
                " FROM chunks c JOIN documents d ON d.id = c.document_id"
                " LEFT JOIN chunks p ON p.id = c.parent_id AND c.kind = 'child'"
                " WHERE c.id = ANY(%s::text[])", (list(ids),)).fetchall()
        out: dict[str, StoredChunk] = {}
        for r in rows:
            chunk = Chunk(r[0], r[1], ChunkKind(r[2]), r[5], r[4], r[3], tuple(r[6]))
            doc = Document(r[1], r[7], r[8], r[9], r[10], r[11], r[12], r[13])
            out[chunk.id] = StoredChunk(chunk, doc, r[14])
        return out

    # -- search arms -------------------------------------------------------
    def search_vector(self, vector: Vector, *, workspace: str, limit: int,
                      published_only: bool = True) -> list[ArmHit]:
        query = self._query_vector(vector)
        if query is None or limit <= 0:
            return []
        params = {"q": query, "ws": workspace, "published_only": published_only,
                  "limit": limit}
        rows = self._read(workspace, sql.SEARCH_VECTOR, params, **self._hnsw_settings(limit))
        return _arm_hits(rows)

    def search_text(self, query: str | KeywordQuery, *, workspace: str, limit: int,
                    published_only: bool = True) -> list[ArmHit]:
        terms, exact = _terms(query), _exact(query)
        if not (terms or exact) or limit <= 0:
            return []
        params = {"terms": terms, "exact": exact, "ws": workspace, "published_only": published_only,
                  "limit": limit, "quota": keyword_bounds.storage_quota(len(terms)),
                  "best": keyword_bounds.best_per_term(),
                  "budget": keyword_bounds.CANDIDATE_BUDGET}
        rows = self._read(workspace, sql.SEARCH_TEXT, params)
        return _arm_hits(rows)

    def search_fused(self, vector: Vector, query: str | KeywordQuery, *, workspace: str,
                     limit: int, candidates: int, k: int = RRF_K, published_only: bool = True
                     ) -> list[FusedHit]:
        """Both arms (``candidates`` rows each), paraphrase collapse and RRF in one
        statement; the best ``limit`` fused hits, as ``rrf(collapse(v), collapse(w))``."""
        if k < 0:
            raise ValueError("RRF k must be >= 0")
        q = self._query_vector(vector)
        if q is None or limit <= 0 or candidates <= 0:
            return []
        terms = _terms(query)
        params = {"q": q, "terms": terms, "exact": _exact(query), "ws": workspace, "k": k,
                  "top": limit,
                  "published_only": published_only, "limit": candidates,
                  "quota": keyword_bounds.storage_quota(len(terms)),
                  "best": keyword_bounds.best_per_term(), "budget": keyword_bounds.CANDIDATE_BUDGET}
        rows = self._read(workspace, sql.SEARCH_FUSED, params,
                          **self._hnsw_settings(candidates))
        return [FusedHit(chunk_id=r[0], fused_score=float(r[1]), vector_rank=r[2],
                         vector_distance=r[3], keyword_rank=r[4], keyword_score=r[5])
                for r in rows]

    def _query_vector(self, vector: Vector) -> Vector | None:
        """The query as float32, or None while the store holds no vectors."""
        info = self.embedder()
        if info is None:
            return None
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != info.dim:
            raise EmbedderMismatch(f"query vector is {query.shape[0]}-d but {self} holds "
                                   f"{info.dim}-d vectors")
        return query

    def _hnsw_settings(self, limit: int) -> dict[str, str]:
        ef = min(MAX_EF_SEARCH, max(self.ef_search or DEFAULT_EF_SEARCH, 2 * limit))
        return {"hnsw.ef_search": str(ef), "hnsw.iterative_scan": "relaxed_order"}

    # -- embedding cache ---------------------------------------------------
    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, Vector]:
        if not hashes:
            return {}
        with self._tx(None) as conn:
            rows = conn.execute("SELECT text_hash, vector FROM embedding_cache WHERE model = %s"
                                " AND text_hash = ANY(%s::text[])",
                                (model, list(dict.fromkeys(hashes)))).fetchall()
        return {h: np.asarray(v.to_numpy(), dtype=np.float32) for h, v in rows}

    def cache_vectors(self, model: str, items: dict[str, Vector]) -> None:
        if not items:
            return
        with self._tx(None) as conn, conn.cursor() as cur:
            cur.executemany("INSERT INTO embedding_cache (model, text_hash, vector)"
                            " VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                            [(model, h, np.asarray(v, dtype=np.float32))
                             for h, v in items.items()])


_SET_CONFIG = ("SELECT set_config(n, v, true) FROM unnest(%s::text[], %s::text[])"
               " AS s(n, v)")


def _settings(workspace: str | None, settings: dict[str, str]) -> tuple[list[str], list[str]]:
    """Names and values that bind a transaction to ``workspace`` (None: every one)."""
    return (["abstain.workspace", "abstain.all_workspaces", *settings],
            [workspace or "", "off" if workspace is not None else "on", *settings.values()])


def _replace_document(conn: Conn, document: Document) -> None:
    """Delete the document (its chunks and identifiers cascade) and insert its new row."""
    conn.execute("DELETE FROM documents WHERE id = %s AND workspace = %s",
                 (document.id, document.workspace))
    conn.execute(
        "INSERT INTO documents (id, workspace, source, title, content_hash, curated,"
        " published, metadata, origin) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)",
        (document.id, document.workspace, document.source, document.title,
         document.content_hash, document.curated, document.published,
         json.dumps(document.metadata, default=str), document.origin))


def _like_prefix(document_id: str) -> str:
    escaped = document_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"{escaped}/%"


def _terms(query: str | KeywordQuery) -> list[str]:
    """The keyword arm's prefix terms, as the SQLite store's ``fts5_query`` picks them."""
    keywords = query if isinstance(query, KeywordQuery) else KeywordQuery.of(query)
    return list(keywords.prefix_terms)


def _exact(query: str | KeywordQuery) -> list[str]:
    """The words the keyword arm searches whole, not as a prefix (``KeywordQuery.flags``)."""
    keywords = query if isinstance(query, KeywordQuery) else KeywordQuery.of(query)
    return [" ".join(words) for words in keywords.flags]


def _arm_hits(rows: list[tuple[Any, ...]]) -> list[ArmHit]:
    return [ArmHit(chunk_id=r[0], rank=i, score=float(r[3]),
                   collapse_to=r[2] if r[1] == "paraphrase" else None)
            for i, r in enumerate(rows, start=1)]


def _read_embedder(conn: Conn) -> EmbedderInfo | None:
    rows: dict[str, str] = dict(conn.execute(
        "SELECT key, value FROM meta WHERE key IN ('embedder', 'dim')").fetchall())
    return EmbedderInfo(rows["embedder"], int(rows["dim"])) if "embedder" in rows else None


def _connect_kwargs(url: str) -> dict[str, Any]:
    try:
        params = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise StoreError(f"not a valid PostgreSQL URL: {_first_line(exc)}") from exc
    return {} if "connect_timeout" in params else {"connect_timeout": CONNECT_TIMEOUT_S}


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _count(row: tuple[Any, ...] | None) -> int:
    return 0 if row is None else int(row[0])
