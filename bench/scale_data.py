"""The synthetic corpus of ``bench_scale.py``, built once and cached on disk.

``<folder>/corpus-<rows>/`` holds ``vectors.npy`` (float32, read back memory-mapped),
``texts.txt`` (one chunk a line) and ``queries.npz`` (the query vectors, their keyword
queries and the exact top-k of each against every vector). A rerun, or another stage
of the benchmark in another process, reads them instead of building them again
(1M chunks: ~1.5 GB of vectors, ~300 MB of text).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import numpy.typing as npt
from bench_postgres import DIM, VOCAB, corpus

K = 30
EXACT_BLOCK = 65_536


@dataclass(frozen=True)
class Corpus:
    folder: Path
    vectors: npt.NDArray[np.float32]
    """(rows, DIM), memory-mapped: pages are read as they are touched."""
    queries: npt.NDArray[np.float32]
    words: list[str]
    """Per query: 3 words of its target chunk outside the 100 most frequent."""
    worst: list[str]
    """Per query: the most frequent word, then ``words``."""
    exact: npt.NDArray[np.int64]
    """Per query: the row numbers of its exact top ``K`` (unordered)."""
    targets: npt.NDArray[np.int64]
    """Per query: the row its vector and its words were taken from."""

    @property
    def rows(self) -> int:
        return len(self.vectors)

    @cached_property
    def texts(self) -> list[str]:
        """Read when first asked for (1M chunks: ~400 MB of Python strings, which the
        process that measures a store does not hold)."""
        return (self.folder / "texts.txt").read_text().split("\n")


def cached(rows: int, queries: int, folder: Path) -> Corpus:
    """The corpus of ``rows`` chunks and ``queries`` queries, built if not cached."""
    where = folder / f"corpus-{rows}"
    if not (where / "queries.npz").exists():
        _build(rows, queries, where)
    vectors = np.load(where / "vectors.npy", mmap_mode="r")
    saved = np.load(where / "queries.npz")
    if len(saved["queries"]) < queries:
        raise SystemExit(f"{where} holds {len(saved['queries'])} queries; remove it to rebuild")
    words = saved["words"].tolist()[:queries]
    return Corpus(where, vectors, saved["queries"][:queries], words,
                  [f"{VOCAB[0]} {w}" for w in words], saved["exact"][:queries],
                  _picks(rows, len(saved["queries"]))[:queries])


def _picks(rows: int, queries: int) -> npt.NDArray[np.int64]:
    return np.random.default_rng(1).integers(0, rows, size=queries)


def _build(rows: int, queries: int, where: Path) -> None:
    where.mkdir(parents=True, exist_ok=True)
    vectors, texts = corpus(rows)
    np.save(where / "vectors.npy", vectors)
    (where / "texts.txt").write_text("\n".join(texts))
    rng = np.random.default_rng(1)
    picks = rng.integers(0, rows, size=queries)  # = _picks(rows, queries)
    q = vectors[picks] + 0.01 * rng.normal(size=(queries, DIM))
    q = (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)
    head = set(VOCAB[:100])
    words = [" ".join([w for w in texts[p].split() if w not in head][:3]) for p in picks]
    np.savez(where / "queries.npz", queries=q, words=np.array(words),
             exact=exact_top(vectors, q, K))


def exact_top(vectors: npt.NDArray[np.float32], queries: npt.NDArray[np.float32],
              k: int) -> npt.NDArray[np.int64]:
    """Each query's exact top ``k`` rows by dot product, scanning ``vectors`` in blocks."""
    best_ids = np.zeros((len(queries), 0), dtype=np.int64)
    best = np.zeros((len(queries), 0), dtype=np.float32)
    for start in range(0, len(vectors), EXACT_BLOCK):
        sims = np.asarray(vectors[start:start + EXACT_BLOCK]) @ queries.T  # (block, queries)
        ids = np.arange(start, start + len(sims))
        both = np.concatenate([best, sims.T], axis=1)
        both_ids = np.concatenate([best_ids, np.broadcast_to(ids, (len(queries), len(ids)))],
                                  axis=1)
        keep = np.argpartition(-both, min(k, both.shape[1] - 1), axis=1)[:, :k]
        best = np.take_along_axis(both, keep, axis=1)
        best_ids = np.take_along_axis(both_ids, keep, axis=1)
    return best_ids
