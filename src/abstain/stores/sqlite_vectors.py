"""The SQLite store's vector arm: the exact scan of small workspaces, the HNSW graph of
large ones (:mod:`abstain.stores.sqlite_ann`), and when each is (re)loaded.

A workspace's vectors are loaded once per process and reloaded only when its write
generation moved on; a workspace of ``ann_threshold`` vectors or more is searched
through its approximate index instead, caught up from the vector log on the same
signal, with its candidates re-scored exactly from the stored float32 vectors.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from abstain.errors import EmbedderMismatch
from abstain.evidence import ArmHit
from abstain.stores import sqlite_ann
from abstain.stores.base import EmbedderInfo
from abstain.stores.notes import note
from abstain.stores.sqlite_ann import AnnIndex
from abstain.stores.sqlite_sql import in_batches

log = logging.getLogger("abstain.stores")

Vector = npt.NDArray[np.float32]


@dataclass
class _Index:
    """Searchable vectors of one workspace, rows in rowid order."""

    ids: list[str]
    collapse_to: list[str | None]
    published: npt.NDArray[np.bool_]
    matrix: Vector

    def __len__(self) -> int:
        return len(self.ids)


class VectorArm:
    """The vector arm of :class:`~abstain.stores.sqlite.SQLiteStore` (its base class)."""

    path: str
    ann_threshold: int
    ann_rebuilds: list[str]
    index_loads: int
    _ann_folder: Path | None
    _ann_missing_warned: bool
    _index: dict[str, tuple[int, _Index | AnnIndex | None]]
    _lock: threading.RLock

    def _conn(self) -> sqlite3.Connection:
        raise NotImplementedError

    def embedder(self) -> EmbedderInfo | None:
        raise NotImplementedError

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    # -- vector arm --------------------------------------------------------
    def search_vector(self, vector: Vector, *, workspace: str, limit: int,
                      published_only: bool = True) -> list[ArmHit]:
        index = self._vector_index(workspace)
        if index is None or limit <= 0 or not len(index):
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        dim = index.graph.ndim if isinstance(index, AnnIndex) else index.matrix.shape[1]
        if query.shape[0] != dim:
            raise EmbedderMismatch(
                f"query vector is {query.shape[0]}-d but {self.path} holds {dim}-d vectors")
        if isinstance(index, AnnIndex):
            return self._search_ann(index, query, limit, published_only)
        similarity = index.matrix @ query
        if published_only and not index.published.all():
            similarity = np.where(index.published, similarity, -np.inf)
        available = int(np.isfinite(similarity).sum())
        k = min(limit, available)
        if k <= 0:
            return []
        if k < len(similarity):
            top = np.argpartition(-similarity, k - 1)[:k]
        else:
            top = np.arange(len(similarity))
        top = top[np.lexsort((top, -similarity[top]))]
        return [ArmHit(chunk_id=index.ids[i], rank=r, score=float(1.0 - similarity[i]),
                       collapse_to=index.collapse_to[i])
                for r, i in enumerate(top.tolist(), start=1)]

    def _search_ann(self, index: AnnIndex, query: Vector, limit: int,
                    published_only: bool) -> list[ArmHit]:
        """The graph's candidates, re-scored exactly from the stored float32 vectors; the
        candidate list widens until ``limit`` of them pass the published filter."""
        count = max(sqlite_ann.MIN_CANDIDATES, 4 * limit)
        conn = self._conn()
        while True:
            with self._lock:
                keys = index.candidates(query, count)
            rows = [r for part, marks in in_batches(keys) for r in conn.execute(
                "SELECT c.rowid, c.id, c.kind, c.parent_id, d.published, c.embedding"
                " FROM chunks c JOIN documents d ON d.id = c.document_id"
                f" WHERE c.rowid IN ({marks}) AND c.embedding IS NOT NULL", part)]
            if published_only:
                rows = [r for r in rows if r[4]]
            if len(rows) >= limit or count >= len(index):
                break
            count *= 4
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(r[5] for r in rows), dtype=np.float32)
        similarity = matrix.reshape(len(rows), -1) @ query
        order = sorted(range(len(rows)), key=lambda i: (-similarity[i], rows[i][0]))[:limit]
        return [ArmHit(chunk_id=rows[i][1], rank=r, score=float(1.0 - similarity[i]),
                       collapse_to=rows[i][3] if rows[i][2] == "paraphrase" else None)
                for r, i in enumerate(order, start=1)]

    def _searchable(self, workspace: str, published_only: bool) -> int:
        """Searchable chunks of the workspace (each has a vector), published only or all."""
        index = self._vector_index(workspace)
        if index is None:
            return 0
        if isinstance(index, _Index):
            return int(index.published.sum()) if published_only else len(index.ids)
        if not published_only:
            return len(index)
        generation = self._generation(self._conn(), workspace)
        if generation not in index.unpublished:
            index.unpublished = {generation: int(self._conn().execute(
                "SELECT count(*) FROM documents d JOIN chunks c ON c.document_id = d.id"
                " WHERE d.workspace = ? AND d.published = 0 AND c.embedding IS NOT NULL",
                (workspace,)).fetchone()[0])}
        return len(index) - index.unpublished[generation]

    @staticmethod
    def _generation(conn: sqlite3.Connection, workspace: str) -> int:
        row = conn.execute("SELECT generation FROM generations WHERE workspace = ?",
                           (workspace,)).fetchone()
        return int(row[0]) if row else 0

    def _vector_index(self, workspace: str) -> _Index | AnnIndex | None:
        """The workspace's vectors, reloaded only when its write generation moved on.

        The generation is read before the rows: a write in between makes the next
        search reload once more, never serve vectors older than their generation."""
        conn = self._conn()
        generation = self._generation(conn, workspace)
        with self._lock:
            cached = self._index.get(workspace)
            if cached is not None and cached[0] == generation:
                return cached[1]
            index: _Index | AnnIndex | None
            info = self.embedder()
            if cached is not None and isinstance(cached[1], AnnIndex) and info is not None \
                    and cached[1].catch_up(conn, info.dim) is not None:
                index = cached[1]
            elif info is not None and sqlite_ann.has_index(self._ann_folder, workspace) \
                    and self._ann_ready():
                index = self._open_ann(conn, workspace, info.dim)
            elif info is not None and sqlite_ann.searchable_count(conn, workspace) >= max(
                    1, self.ann_threshold) and self._ann_ready():
                # counted first: a large workspace never loads its float32 matrix (at 1M
                # chunks that alone took ~4 GB while the graph was built from it)
                index = self._open_ann(conn, workspace, info.dim)
            else:
                index = self._load_index(conn, workspace)
            self._index[workspace] = (generation, index)
            self.index_loads += 1
            self._save_indexes(every=False)
            return index

    def _ann_ready(self) -> bool:
        """Whether usearch is installed; warns once when a large workspace is scanned instead."""
        if sqlite_ann.available():
            return True
        if not self._ann_missing_warned:
            self._ann_missing_warned = True
            log.warning("%s: a workspace holds %d vectors or more and is scanned exactly; "
                        "pip install 'abstain[ann]' for the approximate index", self.path,
                        self.ann_threshold)
        return False

    def _open_ann(self, conn: sqlite3.Connection, workspace: str, dim: int) -> AnnIndex:
        existed = sqlite_ann.has_index(self._ann_folder, workspace)
        index, reason = sqlite_ann.open_index(conn, self._ann_folder, workspace, dim)
        if reason is not None and existed:
            line = f"{workspace}: {reason}; rebuilt from the database"
            self.ann_rebuilds.append(line)
            log.warning("%s: approximate index of %s", self.path, line)
            note(f"approximate vector index of {line}")
        return index

    def _save_indexes(self, *, every: bool) -> None:
        """Write approximate indexes to disk: those never saved or ``SAVE_EVERY`` log entries
        behind, or (``every``, on close) each that changed since it was saved."""
        if self._ann_folder is None:
            return
        for _, index in self._index.values():
            if isinstance(index, AnnIndex) and index.seq != index.saved_seq and (
                    every or index.saved_seq < 0
                    or index.seq - index.saved_seq >= sqlite_ann.SAVE_EVERY):
                try:
                    with self._transaction() as conn:
                        index.save(self._ann_folder, conn)
                except (OSError, sqlite3.Error) as exc:
                    log.warning("%s: cannot save the approximate index of %s: %s",
                                self.path, index.workspace, exc)

    def _load_index(self, conn: sqlite3.Connection, workspace: str) -> _Index | None:
        info = self.embedder()
        items = conn.execute(
            "SELECT c.id, c.kind, c.parent_id, d.published, c.embedding"
            " FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE d.workspace = ? AND c.embedding IS NOT NULL ORDER BY c.rowid",
            (workspace,)).fetchall()
        if not items:
            return None
        dim = info.dim if info else 0
        matrix = np.frombuffer(b"".join(i[4] for i in items), dtype=np.float32)
        return _Index(
            ids=[i[0] for i in items],
            collapse_to=[i[2] if i[1] == "paraphrase" else None for i in items],
            published=np.array([bool(i[3]) for i in items], dtype=bool),
            matrix=matrix.reshape(len(items), dim) if dim else matrix.reshape(len(items), -1),
        )
