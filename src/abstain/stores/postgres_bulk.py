"""Bulk load for the PostgreSQL store: many documents in one transaction, through COPY.

PostgreSQL refuses ``COPY`` into a table under row-level security, so the rows go
by ``COPY … (FORMAT BINARY)`` into a session-local table (no policy, no index, no
WAL) and from there into ``documents`` and ``chunks`` with one ``INSERT … SELECT``
each: the policies' checks run inside the server, and the client sends each row
once, in binary (a 384-d vector is 1.5 KB, not ~4 KB of text).

What remains per row is the server's own work: the generated ``tsvector``, the
GIN and b-tree inserts, the foreign-key check, and the HNSW insert when the index
exists. For a first load of a large collection drop ``chunks_embedding_hnsw``
before and create it once after (docs/SCALING.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg

from abstain.evidence import Chunk, Document
from abstain.stores.base import searched_headings

Conn = psycopg.Connection[tuple[Any, ...]]
WORDS_PER_CHUNK = 30
"""Distinct words of a chunk, roughly: ``chunk_terms`` rows a chunk adds."""
Vector = npt.NDArray[np.float32]

_DOC_COLUMNS = ("id", "workspace", "source", "title", "content_hash", "curated", "published",
                "metadata", "origin")
_DOC_TYPES = ("text", "text", "text", "text", "text", "bool", "bool", "text", "text")
_CHUNK_COLUMNS = ("id", "document_id", "workspace", "published", "kind", "parent_id",
                  "ordinal", "text", "heading_path", "headings", "embedding")
_CHUNK_TYPES = ("text", "text", "text", "bool", "text", "text", "int4", "text", "text[]",
                "text", "vector")


def copy_documents(conn: Conn, workspace: str,
                   items: Sequence[tuple[Document, Sequence[Chunk], dict[str, Vector]]]
                   ) -> None:
    """Replace ``items`` (documents of ``workspace``, their chunks and each searchable
    chunk's vector) in the transaction of ``conn``, which is bound to ``workspace``."""
    for table, columns, types in (("abstain_load_documents", _DOC_COLUMNS, _DOC_TYPES),
                                  ("abstain_load_chunks", _CHUNK_COLUMNS, _CHUNK_TYPES)):
        conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} ({_columns(columns, types)},"
                     " n bigint) ON COMMIT DELETE ROWS".encode())
    with conn.cursor() as cur:
        with cur.copy(f"COPY abstain_load_documents ({', '.join(_DOC_COLUMNS)})"
                      " FROM STDIN (FORMAT BINARY)".encode()) as copy:
            copy.set_types(list(_DOC_TYPES))
            for document, _, _ in items:
                copy.write_row((document.id, workspace, document.source, document.title,
                                document.content_hash, document.curated, document.published,
                                json.dumps(document.metadata, default=str), document.origin))
        n = 0
        with cur.copy(f"COPY abstain_load_chunks ({', '.join(_CHUNK_COLUMNS)}, n)"
                      " FROM STDIN (FORMAT BINARY)".encode()) as copy:
            copy.set_types([*_CHUNK_TYPES, "int8"])
            for document, chunks, vectors in items:
                for c in chunks:
                    copy.write_row((c.id, document.id, workspace, document.published,
                                    c.kind.value, c.parent_id, c.ordinal, c.text,
                                    list(c.heading_path), searched_headings(document, c),
                                    vectors.get(c.id), n))
                    n += 1
    conn.execute("DELETE FROM documents d USING abstain_load_documents l"
                 " WHERE d.id = l.id AND d.workspace = %s", (workspace,))
    conn.execute(f"INSERT INTO documents ({', '.join(_DOC_COLUMNS)})"
                 f" SELECT {', '.join(_DOC_COLUMNS[:-2])}, metadata::jsonb, origin"
                 " FROM abstain_load_documents".encode())
    conn.execute(f"INSERT INTO chunks ({', '.join(_CHUNK_COLUMNS)})"
                 f" SELECT {', '.join(_CHUNK_COLUMNS)} FROM abstain_load_chunks ORDER BY n"
                 .encode())


def _columns(names: Sequence[str], types: Sequence[str]) -> str:
    return ", ".join(f"{n} {t}" for n, t in zip(names, types, strict=True))


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
