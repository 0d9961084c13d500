"""The SQLite store's approximate vector index (usearch HNSW, int8), one per workspace.

A workspace with at least ``ann_threshold`` vectors is searched through an HNSW
graph over int8-quantised vectors (384 bytes per 384-d vector, a quarter of
float32); the graph proposes candidates and the store re-scores them exactly
from the float32 vectors kept in SQLite, so every score the gate reads is the
exact cosine. Smaller workspaces keep the exact in-memory scan.

Persistence and crash safety. The index lives beside the database in
``<db>.ann/<workspace>.<seq>.usearch``: ``seq`` is the last entry of the
``vector_log`` table it holds. Triggers on ``chunks`` append to that log in the
writing transaction itself (a vector added or removed), so the log never
disagrees with the chunks: a killed ingest either committed its rows and their
log entries or neither. Loading an index replays the log entries after its
``seq`` (idempotently: removing an absent key is a no-op, an added key replaces
itself), then checks that it holds exactly the workspace's vectors; a missing,
unreadable or disagreeing index is rebuilt from the database and the rebuild
reported (a warning on the ``abstain.stores`` logger and
``SQLiteStore.ann_rebuilds``). A file is written to a temporary name and renamed,
so a crash while saving leaves the previous one.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from abstain.errors import MissingDependency
from abstain.stores import sqlite_changes
from abstain.stores.sqlite_sql import in_batches

log = logging.getLogger("abstain.stores")

ANN_THRESHOLD = 20_000
"""Vectors in a workspace from which the HNSW index is used: below it the exact scan
takes under ~4 ms on one core, as fast as the graph plus the exact re-score."""

CONNECTIVITY = 24
"""HNSW edges per node (``M``). At 1M clustered 384-d vectors (1,000 a cluster) M = 16 with
an ``EXPANSION_ADD`` of 64 plateaued at recall@30 0.84-0.94 whatever the search beam;
24 / 128 gave 0.999 (a 760 MB graph, built in 737 s on 2 busy cores; docs/SCALING.md)."""

EXPANSION_ADD = 128
"""Candidate list while building (``ef_construction``)."""

MIN_CANDIDATES = 100
"""The graph proposes at least this many chunks (and 4× the limit) for exact re-scoring."""

EXPANSION_SEARCH = 512
"""Candidate list while searching (``ef``): the graph's beam, wider than the candidates it
returns. At 1M clustered 384-d vectors recall@30 after the exact re-score was 0.842 with a
beam of 120 and 0.916 with 512 on an M = 16 / 64 graph (one built before these settings),
0.999 with either on a 24 / 128 graph, the search 0.6 / 1.1 ms p50 (bench/bench_scale.py)."""

SAVE_EVERY = 5_000
"""Log entries applied in memory before the index is written to disk again (also on close)."""

BUILD_BATCH = 20_000


def _usearch() -> Any:
    # onnxruntime (a core dependency: the embedder) is loaded first on purpose: importing
    # usearch 2.26's compiled module before onnxruntime 1.32 makes the second import
    # crash the process (a segmentation fault); the other order works.
    import onnxruntime  # noqa: F401

    try:
        from usearch import index
    except ImportError as exc:
        raise MissingDependency("usearch", "ann") from exc
    return index


def available() -> bool:
    """Whether usearch (the ``ann`` extra) can be imported."""
    try:
        _usearch()
    except MissingDependency:
        return False
    return True


@dataclass
class AnnIndex:
    """One workspace's HNSW graph, keyed by ``chunks.rowid``, as of log entry ``seq``."""

    workspace: str
    graph: Any
    seq: int
    saved_seq: int = -1
    unpublished: dict[int, int] = field(default_factory=dict)
    """write generation -> unpublished searchable chunks (for counts), one entry cached."""

    def __len__(self) -> int:
        return len(self.graph)

    def candidates(self, query: npt.NDArray[np.float32], count: int) -> list[int]:
        """Up to ``count`` rowids of nearby vectors (approximate order)."""
        count = min(count, len(self.graph))
        if count <= 0:
            return []
        self.graph.expansion_search = max(count, EXPANSION_SEARCH)
        matches = self.graph.search(query, count, threads=1)
        return [int(k) for k in np.asarray(matches.keys).reshape(-1).tolist()]

    # -- keeping up with the database -------------------------------------
    def catch_up(self, conn: sqlite3.Connection, dim: int) -> int | None:
        """Apply the log entries after ``seq``; how many were applied, or None when the
        log no longer holds them (another process saved and pruned: load its file)."""
        if _loadable(conn, self.seq) is not None:
            return None
        entries = conn.execute("SELECT seq, chunk_rowid, added FROM vector_log WHERE seq > ?"
                               " ORDER BY seq", (self.seq,)).fetchall()
        if not entries:
            return 0
        final: dict[int, bool] = {}
        for _, rowid, added in entries:  # the last word on each rowid wins
            final[int(rowid)] = bool(added)
        keys = list(final)
        present = [k for k in keys if self.graph.contains(k)]
        if present:
            self.graph.remove(present)
        wanted = [k for k, added in final.items() if added]
        rows = _vectors(conn, self.workspace, wanted)
        if rows:
            self.graph.add(np.array([r[0] for r in rows], dtype=np.uint64),
                           _matrix([r[1] for r in rows], dim), threads=1)
        self.seq = int(entries[-1][0])
        return len(entries)

    def save(self, folder: Path, conn: sqlite3.Connection) -> None:
        """Write the graph as ``<workspace>.<seq>.usearch`` (atomically) and drop older files."""
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{self.workspace}.{self.seq}.usearch"
        temporary = folder / f".{self.workspace}.{self.seq}.{os.getpid()}.tmp"
        self.graph.save(str(temporary))
        os.replace(temporary, target)
        for seq, path in _files(folder, self.workspace):
            if seq < self.seq:  # a newer file another process saved meanwhile stays
                path.unlink(missing_ok=True)
        self.saved_seq = self.seq
        conn.execute("INSERT INTO ann_state (workspace, seq) VALUES (?, ?) ON CONFLICT"
                     " (workspace) DO UPDATE SET seq = max(seq, excluded.seq)",
                     (self.workspace, self.seq))
        prune_log(conn)


def folder_of(db_path: str) -> Path | None:
    """Where the database's indexes live (None for an in-memory database)."""
    return sqlite_changes.folder_beside(db_path, ".ann")


def has_index(folder: Path | None, workspace: str) -> bool:
    return folder is not None and bool(_files(folder, workspace))


def searchable_count(conn: sqlite3.Connection, workspace: str) -> int:
    """Vectors (searchable chunks) of the workspace, published or not (a covering index)."""
    return int(conn.execute(
        "SELECT count(*) FROM chunks c"
        " JOIN documents d ON d.id = c.document_id"
        " WHERE d.workspace = ? AND c.embedding IS NOT NULL", (workspace,)).fetchone()[0])


def open_index(conn: sqlite3.Connection, folder: Path | None, workspace: str,
               dim: int) -> tuple[AnnIndex, str | None]:
    """The workspace's index, loaded and caught up, or rebuilt; with the reason for a rebuild."""
    files = _files(folder, workspace) if folder is not None else []
    reason: str | None = "no index on disk yet"
    if files:
        seq, path = files[-1]
        reason = _loadable(conn, seq)
        if reason is None:
            try:
                graph = _usearch().Index.restore(str(path), view=False)
            except Exception as exc:
                graph, reason = None, f"{path.name} is unreadable ({exc})"
            if graph is None:
                reason = reason or f"{path.name} is unreadable"
            elif graph.ndim != dim:
                reason = f"{path.name} holds {graph.ndim}-d vectors, the store {dim}-d"
            else:
                index = AnnIndex(workspace, graph, seq, saved_seq=seq)
                if index.catch_up(conn, dim) is None:  # pruned in between: load once more
                    return open_index(conn, folder, workspace, dim)
                expected = searchable_count(conn, workspace)
                if len(index) == expected:
                    return index, None
                reason = (f"{path.name} holds {len(index)} vectors after replaying the log,"
                          f" the database {expected}")
    return build(conn, workspace, dim), reason


def build(conn: sqlite3.Connection, workspace: str, dim: int) -> AnnIndex:
    """A fresh graph over every vector of the workspace, read in batches."""
    seq = _newest(conn)
    graph = _usearch().Index(ndim=dim, metric="cos", dtype="i8", connectivity=CONNECTIVITY,
                             expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)
    last = -1
    while True:
        rows = conn.execute(
            "SELECT c.rowid, c.embedding FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE d.workspace = ? AND c.embedding IS NOT NULL AND c.rowid > ?"
            " ORDER BY c.rowid LIMIT ?", (workspace, last, BUILD_BATCH)).fetchall()
        if not rows:
            break
        graph.add(np.array([r[0] for r in rows], dtype=np.uint64),
                  _matrix([r[1] for r in rows], dim), threads=os.cpu_count() or 1)
        last = int(rows[-1][0])
    return AnnIndex(workspace, graph, seq)


def prune_log(conn: sqlite3.Connection) -> None:
    """Drop log entries that every saved index already holds (all of them when none is saved:
    an index built later reads the chunks themselves)."""
    row = conn.execute("SELECT min(seq) FROM ann_state").fetchone()
    upto = int(row[0]) if row and row[0] is not None else _newest(conn)
    sqlite_changes.prune(conn, "vector_log", upto)


def _loadable(conn: sqlite3.Connection, seq: int) -> str | None:
    """Why an index saved at log entry ``seq`` cannot be caught up from the log, if it cannot."""
    return sqlite_changes.unloadable(conn, "vector_log", seq, "the index")


def _newest(conn: sqlite3.Connection) -> int:
    return sqlite_changes.newest(conn, "vector_log")


def _files(folder: Path, workspace: str) -> list[tuple[int, Path]]:
    """The workspace's saved indexes, oldest first."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob(f"{workspace}.*.usearch"):
        middle = path.name[len(workspace) + 1:-len(".usearch")]
        if middle.isdigit():
            found.append((int(middle), path))
    return sorted(found)


def _vectors(conn: sqlite3.Connection, workspace: str, rowids: list[int]
             ) -> list[tuple[int, bytes]]:
    out: list[tuple[int, bytes]] = []
    for part, marks in in_batches(rowids):
        out += conn.execute(
            "SELECT c.rowid, c.embedding FROM chunks c JOIN documents d ON d.id = c.document_id"
            f" WHERE c.rowid IN ({marks}) AND d.workspace = ?"
            " AND c.embedding IS NOT NULL", [*part, workspace]).fetchall()
    return out


def _matrix(blobs: list[bytes], dim: int) -> npt.NDArray[np.float32]:
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
