"""Notes a store makes while it answers one question, for that answer's audit trail.

A store's fallbacks (a read replica that lags or has gone away, so that the primary
answers) change where an answer came from, so each one is noted in the answer that it
served, not only counted on the store. The question path opens :func:`collecting`
around its searches; a store calls :func:`note` from whichever thread runs the search
(the arms run on threads started with :func:`contextvars.copy_context`, which share
the list). Outside :func:`collecting` a note is dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_NOTES: ContextVar[list[str] | None] = ContextVar("abstain_store_notes", default=None)


@contextmanager
def collecting() -> Iterator[list[str]]:
    """The notes made by the stores within the block (each text once, in order)."""
    notes: list[str] = []
    token = _NOTES.set(notes)
    try:
        yield notes
    finally:
        _NOTES.reset(token)


def note(text: str) -> None:
    """Note ``text`` for the question being answered, if one is."""
    notes = _NOTES.get()
    if notes is not None and text not in notes:
        notes.append(text)
