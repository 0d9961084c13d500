"""The tokenized training set on disk: built once on a CPU, read by the machine that trains.

One file, ``trainset.npz.xz`` (an ``.npz`` compressed with xz): every distinct text once as
token ids (``tokens`` + ``offsets``, no special tokens) and the pairs as rows of indexes into
that table. Numpy only, so a bare accelerator machine with torch needs nothing else::

    train pairs:  a, b (text indexes), head, label, kind
    val pairs:    a, b, head, label, group (pairs of one group score as their best: a question
                  read against every window of its own paragraph)

Heads (the columns of the model's logits): 0 answers, 1 supports, 2 relevance.
"""

from __future__ import annotations

import io
import json
import lzma
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ANSWERS, SUPPORTS, RELEVANCE = 0, 1, 2
HEAD_NAMES = ("answers", "supports", "relevance")
CLS, SEP = 101, 102
"""[CLS] and [SEP] in the all-MiniLM-L6-v2 (bert-base-uncased) vocabulary."""
FILE = "trainset.npz.xz"


@dataclass(frozen=True)
class PairTable:
    a: np.ndarray
    b: np.ndarray
    head: np.ndarray
    label: np.ndarray
    tag: np.ndarray
    """Train: index into ``meta['kinds']``; val: the pair's group (-1: none)."""

    def __len__(self) -> int:
        return len(self.a)


@dataclass(frozen=True)
class TrainSet:
    tokens: np.ndarray
    offsets: np.ndarray
    train: PairTable
    val: PairTable
    meta: dict[str, Any]

    def ids(self, i: int) -> np.ndarray:
        return self.tokens[int(self.offsets[i]):int(self.offsets[i + 1])]

    def lengths(self, table: PairTable, max_lengths: tuple[int, int, int]) -> np.ndarray:
        """Token count of each pair after truncation (special tokens included)."""
        size = np.diff(self.offsets)
        la, lb = size[table.a], size[table.b]
        limit = np.asarray(max_lengths)[table.head] - 3
        return np.asarray(np.minimum(la + lb, limit) + 3)


def save(path: Path, tokens: np.ndarray, offsets: np.ndarray, train: PairTable, val: PairTable,
         meta: dict[str, Any]) -> Path:
    buffer = io.BytesIO()
    arrays: dict[str, Any] = {"tokens": tokens.astype(np.uint16),
                              "offsets": offsets.astype(np.int64),
                              "meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}
    for name, table in (("train", train), ("val", val)):
        arrays[f"{name}_a"] = table.a.astype(np.int32)
        arrays[f"{name}_b"] = table.b.astype(np.int32)
        arrays[f"{name}_head"] = table.head.astype(np.int8)
        arrays[f"{name}_label"] = table.label.astype(np.int8)
        arrays[f"{name}_tag"] = table.tag.astype(np.int32)
    np.savez(buffer, **arrays)
    path.write_bytes(lzma.compress(buffer.getvalue(), preset=6))
    return path


def load(path: Path) -> TrainSet:
    with np.load(io.BytesIO(lzma.decompress(path.read_bytes()))) as z:
        def table(name: str) -> PairTable:
            return PairTable(z[f"{name}_a"], z[f"{name}_b"], z[f"{name}_head"],
                             z[f"{name}_label"], z[f"{name}_tag"])
        return TrainSet(z["tokens"], z["offsets"], table("train"), table("val"),
                        json.loads(bytes(z["meta"]).decode()))


def truncate(la: int, lb: int, budget: int) -> tuple[int, int]:
    """Lengths kept of two sequences so that they fit ``budget``, as the tokenizer's
    ``longest_first`` keeps them: the shorter one whole if it fits half the budget, else half
    each (the longer one gets the odd token)."""
    if la + lb <= budget:
        return la, lb
    swap = la > lb
    short, long = (lb, la) if swap else (la, lb)
    if short > budget // 2:
        short, long = budget // 2, budget // 2 + budget % 2
    else:
        long = budget - short
    return (long, short) if swap else (short, long)


def collate(ts: TrainSet, table: PairTable, rows: np.ndarray | list[int],
            max_lengths: tuple[int, int, int]) -> dict[str, np.ndarray]:
    """``[CLS] a [SEP] b [SEP]`` for the rows, padded to the longest (int64 arrays)."""
    pieces = []
    for r in rows:
        a, b = ts.ids(int(table.a[r])), ts.ids(int(table.b[r]))
        la, lb = truncate(len(a), len(b), max_lengths[int(table.head[r])] - 3)
        pieces.append((a[:la], b[:lb]))
    width = max(len(a) + len(b) + 3 for a, b in pieces)
    ids = np.zeros((len(pieces), width), dtype=np.int64)
    types = np.zeros_like(ids)
    mask = np.zeros_like(ids)
    for i, (a, b) in enumerate(pieces):
        n = len(a) + len(b) + 3
        ids[i, :n] = np.concatenate(([CLS], a, [SEP], b, [SEP]))
        types[i, len(a) + 2:n] = 1
        mask[i, :n] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def buckets(lengths: np.ndarray, size: int, rng: random.Random) -> list[list[int]]:
    """Shuffled batches of similar length (little padding), in a shuffled order."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    out: list[list[int]] = []
    group = size * 50
    for start in range(0, len(order), group):
        chunk = sorted(order[start:start + group], key=lambda i: int(lengths[i]))
        out += [chunk[i:i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


def auroc(labels: np.ndarray | list[int], scores: np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney U with average ranks for ties); labels first."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    _, first, counts = np.unique(sorted_s, return_index=True, return_counts=True)
    average = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(average, counts)
    pos, neg = int(y.sum()), int((~y).sum())
    if not pos or not neg:
        return float("nan")
    return float((ranks[y].sum() - pos * (pos + 1) / 2) / (pos * neg))
