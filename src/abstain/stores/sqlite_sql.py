"""SQL helpers shared by the SQLite store's modules."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

MAX_BOUND = 500
"""Values bound in one ``IN (…)`` list: well under SQLite's limit on host parameters
(999 before 3.32), with room for the statement's other parameters."""


def in_batches(values: Sequence[T]) -> Iterator[tuple[Sequence[T], str]]:
    """``values`` in batches of at most :data:`MAX_BOUND`, each with its ``?,?,…``
    placeholders for an ``IN (…)`` list."""
    for start in range(0, len(values), MAX_BOUND):
        part = values[start:start + MAX_BOUND]
        yield part, ",".join("?" * len(part))
