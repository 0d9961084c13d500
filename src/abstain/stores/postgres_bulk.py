"""Bulk load for the PostgreSQL store: many documents in one transaction, through COPY.

PostgreSQL refuses ``COPY`` into a table under row-level security, so the rows go
by ``COPY … (FORMAT BINARY)`` into a session-local table (no policy, no index, no
WAL) and from there into ``documents`` and ``chunks`` with one ``INSERT … SELECT``
each: the policies' checks run inside the server, and the client sends each row
once, in binary (a 384-d vector is 1.5 KB, not ~4 KB of text). The statement
triggers of migrations 6 to 8 fill ``chunk_terms`` and ``chunk_counts`` from each
``INSERT … SELECT`` as a set, in the same transaction.

**Indexes.** Inserting a row into the HNSW graph, ~36 random keys into the primary key
of ``chunk_terms`` and its words into the GIN index costs more than building those
indexes once from the loaded table (measured in docs/SCALING.md: HNSW ~4×, the
postings key ~3×, GIN ~2×). So a load that writes at least ``REBUILD_RATIO`` times
the rows ``chunks`` holds drops the three indexes, loads, and builds them again,
all in its one transaction: a load that fails or is killed leaves the store as it
was, indexes included. While it runs, the load holds ``chunks`` and ``chunk_terms``
exclusively, so searches wait for it (a first load, or one that doubles the store);
a smaller load keeps the indexes and readers see the store as it was until it commits.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg

from abstain.evidence import Chunk, Document
from abstain.stores.base import searched_headings

Conn = psycopg.Connection[tuple[Any, ...]]
Vector = npt.NDArray[np.float32]
Item = tuple[Document, Sequence[Chunk], Mapping[str, Vector]]
"""A document, its chunks and each searchable chunk's vector by chunk id."""

WORDS_PER_CHUNK = 30
"""Distinct words of a chunk, roughly: ``chunk_terms`` rows a chunk adds."""
REBUILD_RATIO = 1.0
"""A load rebuilds the indexes when it writes at least this many times the chunk rows
the table holds (the store at least doubles): see the module's docstring."""
BATCH_ROWS = 20_000
"""Chunk rows sent by one ``COPY`` and moved by one ``INSERT … SELECT``."""
BUILD_BYTES_PER_ROW = 3 * 1024
MAX_BUILD_MB = 2048
"""A rebuild raises ``maintenance_work_mem`` (never lowers it) to ~3 KB a chunk row, at most
2 GB: pgvector builds the HNSW graph in memory while it fits (~2.2 KB a 384-d chunk at
m = 24) and much more slowly past it. A server with memory to spare for 1M chunks and
more can be given more (``ALTER SYSTEM SET maintenance_work_mem``)."""

_DOC_COLUMNS = ("id", "workspace", "source", "title", "content_hash", "curated", "published",
                "metadata", "origin")
_DOC_TYPES = ("text", "text", "text", "text", "text", "bool", "bool", "text", "text")
_CHUNK_COLUMNS = ("id", "document_id", "workspace", "published", "kind", "parent_id",
                  "ordinal", "text", "heading_path", "headings", "embedding")
_CHUNK_TYPES = ("text", "text", "text", "bool", "text", "text", "int4", "text", "text[]",
                "text", "vector")


def hnsw_index(m: int, ef_construction: int) -> str:
    """The statement that builds the vector arm's index."""
    return (f"CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw"
            f" (embedding vector_cosine_ops) WITH (m = {m:d},"
            f" ef_construction = {ef_construction:d})")


def rebuilt_indexes(m: int, ef_construction: int) -> dict[str, tuple[str, str]]:
    """The indexes a large load drops and builds again: name -> (drop, create)."""
    return {
        "chunks_embedding_hnsw": ("DROP INDEX chunks_embedding_hnsw",
                                  hnsw_index(m, ef_construction)),
        "chunks_tsv": ("DROP INDEX chunks_tsv",
                       "CREATE INDEX chunks_tsv ON chunks USING gin (tsv)"),
        "chunk_terms_pkey": ("ALTER TABLE chunk_terms DROP CONSTRAINT chunk_terms_pkey",
                             "ALTER TABLE chunk_terms ADD PRIMARY KEY (workspace, term, impact,"
                             " seq)"),
    }


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What one bulk load wrote and where its time went."""

    documents: int
    chunks: int
    """Chunk rows of every kind."""
    searchable: int
    """Child and paraphrase chunks (the ones with a vector and postings)."""
    rebuilt: tuple[str, ...]
    """The indexes dropped before the load and built after it (none: kept, row by row)."""
    seconds: Mapping[str, float] = field(default_factory=dict)
    """Wall time per phase: ``copy`` (the client's COPY into the session's tables),
    ``insert`` (rows, their ``tsvector``, postings and counts, and the indexes kept),
    ``index:<name>`` per rebuilt index, ``analyze`` (the commit comes after)."""

    @property
    def total_s(self) -> float:
        return sum(self.seconds.values())

    def merge(self, other: LoadReport) -> LoadReport:
        seconds = dict(self.seconds)
        for name, s in other.seconds.items():
            seconds[name] = seconds.get(name, 0.0) + s
        return LoadReport(self.documents + other.documents, self.chunks + other.chunks,
                          self.searchable + other.searchable,
                          tuple(dict.fromkeys((*self.rebuilt, *other.rebuilt))), seconds)


def load(conn: Conn, workspace: str, items: Iterable[Item],
         identifiers: Mapping[str, Sequence[str]], *, rebuild: bool | None,
         indexes: Mapping[str, tuple[str, str]]) -> LoadReport:
    """Replace ``items`` (documents of ``workspace``) in the transaction of ``conn``, which
    is bound to ``workspace``. Every row is first copied into the session's tables (the
    client holds ``BATCH_ROWS`` chunk rows at a time), then the documents replaced are
    deleted (their postings found through the key), then, when ``rebuild`` (None: when the
    load holds ``REBUILD_RATIO`` times the rows of ``chunks``), the indexes are dropped,
    the rows inserted ``BATCH_ROWS`` at a time, and the indexes built again."""
    clock = _Clock()
    documents = chunks = searchable = 0
    with clock("copy"):
        _staging_tables(conn)
        for batch in _batches(iter(items)):
            _copy(conn, workspace, batch, identifiers, chunks)
            documents += len(batch)
            chunks += sum(len(c) for _, c, _ in batch)
            searchable += sum(len(v) for _, _, v in batch)
    if rebuild is None:
        rebuild = chunks > 0 and chunks >= REBUILD_RATIO * table_rows(conn)
    dropped: list[str] = []
    with clock("insert"):
        if rebuild:  # before the delete: no lock upgrade for a concurrent writer to deadlock
            conn.execute("LOCK TABLE chunks, chunk_terms IN ACCESS EXCLUSIVE MODE")
        conn.execute("DELETE FROM documents d USING abstain_load_documents l"
                     " WHERE d.id = l.id AND d.workspace = %s", (workspace,))
        if rebuild:  # after it: the replaced chunks' postings are found through the key
            dropped = _drop(conn, indexes)
        _insert(conn, workspace, chunks)
    if dropped:
        _raise_build_memory(conn, table_rows(conn))
    for name in dropped:
        with clock(f"index:{name}"):
            conn.execute(indexes[name][1].encode())
    with clock("analyze"):
        if dropped:
            conn.execute("ANALYZE chunks, chunk_terms")
        else:
            analyze_if_grown(conn, chunks)
    return LoadReport(documents, chunks, searchable, tuple(dropped), clock.seconds)


def table_rows(conn: Conn) -> float:
    """The rows of ``chunks`` in every workspace, as the planner estimates them (row-level
    security hides the other workspaces from a count): the last ``ANALYZE``'s rows per
    page times the pages now, or ~4 a page before any."""
    row = conn.execute("SELECT reltuples, relpages, pg_relation_size(oid)"
                       " / current_setting('block_size')::int FROM pg_class"
                       " WHERE oid = 'chunks'::regclass").fetchone()
    if row is None:
        return 0.0
    tuples, pages, now = float(row[0]), int(row[1]), int(row[2])
    return tuples / pages * now if tuples >= 0 and pages > 0 else 4.0 * now


def _raise_build_memory(conn: Conn, rows: float) -> None:
    row = conn.execute("SELECT setting::bigint * 1024 FROM pg_settings"
                       " WHERE name = 'maintenance_work_mem'").fetchone()
    current = int(row[0]) if row else 0
    wanted = min(int(rows * BUILD_BYTES_PER_ROW), MAX_BUILD_MB * 2**20)
    if wanted > current:
        conn.execute(f"SET LOCAL maintenance_work_mem = '{wanted // 2**20:d}MB'".encode())


def _staging_tables(conn: Conn) -> None:
    for table, columns, types in (("abstain_load_documents", _DOC_COLUMNS, _DOC_TYPES),
                                  ("abstain_load_chunks", _CHUNK_COLUMNS, _CHUNK_TYPES)):
        conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} ({_columns(columns, types)},"
                     " n bigint) ON COMMIT DELETE ROWS".encode())
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS abstain_load_identifiers"
                 " (document_id text, token text) ON COMMIT DELETE ROWS")
    conn.execute("CREATE INDEX IF NOT EXISTS abstain_load_chunks_n ON abstain_load_chunks (n)")
    conn.execute("TRUNCATE abstain_load_documents, abstain_load_chunks,"
                 " abstain_load_identifiers")


def _copy(conn: Conn, workspace: str, batch: Sequence[Item],
          identifiers: Mapping[str, Sequence[str]], n: int) -> None:
    """Append ``batch`` to the session's tables, numbering its chunk rows from ``n``."""
    with conn.cursor() as cur:
        with cur.copy(f"COPY abstain_load_documents ({', '.join(_DOC_COLUMNS)})"
                      " FROM STDIN (FORMAT BINARY)".encode()) as copy:
            copy.set_types(list(_DOC_TYPES))
            for document, _, _ in batch:
                copy.write_row((document.id, workspace, document.source, document.title,
                                document.content_hash, document.curated, document.published,
                                json.dumps(document.metadata, default=str), document.origin))
        with cur.copy(f"COPY abstain_load_chunks ({', '.join(_CHUNK_COLUMNS)}, n)"
                      " FROM STDIN (FORMAT BINARY)".encode()) as copy:
            copy.set_types([*_CHUNK_TYPES, "int8"])
            for document, chunks, vectors in batch:
                for c in chunks:
                    copy.write_row((c.id, document.id, workspace, document.published,
                                    c.kind.value, c.parent_id, c.ordinal, c.text,
                                    list(c.heading_path), searched_headings(document, c),
                                    vectors.get(c.id), n))
                    n += 1
        with cur.copy("COPY abstain_load_identifiers FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["text", "text"])
            for document, _, _ in batch:
                for token in identifiers.get(document.id, ()):
                    copy.write_row((document.id, token))


def _drop(conn: Conn, indexes: Mapping[str, tuple[str, str]]) -> list[str]:
    """Drop those of ``indexes`` that exist; their names."""
    present = {r[0] for r in conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
        " AND indexname = ANY(%s)", (list(indexes),))}
    dropped = [name for name in indexes if name in present]
    for name in dropped:
        conn.execute(indexes[name][0].encode())
    return dropped


def _insert(conn: Conn, workspace: str, rows: int) -> None:
    """Move the session's rows into the tables, ``BATCH_ROWS`` chunk rows a statement (the
    triggers' transition tables hold one statement's rows)."""
    conn.execute(f"INSERT INTO documents ({', '.join(_DOC_COLUMNS)})"
                 f" SELECT {', '.join(_DOC_COLUMNS[:-2])}, metadata::jsonb, origin"
                 " FROM abstain_load_documents".encode())
    for start in range(0, rows, BATCH_ROWS):
        conn.execute(f"INSERT INTO chunks ({', '.join(_CHUNK_COLUMNS)})"
                     f" SELECT {', '.join(_CHUNK_COLUMNS)} FROM abstain_load_chunks"
                     " WHERE n >= %s AND n < %s ORDER BY n".encode(),
                     (start, start + BATCH_ROWS))
    conn.execute("INSERT INTO identifiers (document_id, workspace, token)"
                 " SELECT document_id, %s, token FROM abstain_load_identifiers"
                 " ON CONFLICT DO NOTHING", (workspace,))


def _batches(items: Iterator[Item]) -> Iterator[list[Item]]:
    """Runs of whole documents of about ``BATCH_ROWS`` chunk rows."""
    batch: list[Item] = []
    rows = 0
    for item in items:
        batch.append(item)
        rows += len(item[1])
        if rows >= BATCH_ROWS:
            yield batch
            batch, rows = [], 0
    if batch:
        yield batch


def _columns(names: Sequence[str], types: Sequence[str]) -> str:
    return ", ".join(f"{n} {t}" for n, t in zip(names, types, strict=True))


class _Clock:
    """Adds up wall time per phase."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + time.perf_counter() - t0


def analyze_if_grown(conn: Conn, chunks: int) -> None:
    """``ANALYZE chunk_terms`` when it was never analysed or this load grew it by a fifth: a
    term's best rows are read through its key only when the planner knows a term has many
    (without statistics it reads them all by bitmap and sorts them, ~10× slower), and
    autovacuum analyses a freshly loaded table only a minute or so later."""
    row = conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'chunk_terms'::regclass"
                       ).fetchone()
    known = float(row[0]) if row else -1.0
    if known < 0 or chunks * WORDS_PER_CHUNK > 0.2 * known:
        conn.execute("ANALYZE chunk_terms")

