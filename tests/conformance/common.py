"""Shared material for the seam conformance suites (one file per seam).

Each suite runs the same tests once per implementation of its seam, like
``tests/stores/test_conformance.py`` does for stores. Add an implementation by
adding a parameter to the suite's fixture; one whose extra is not installed is
skipped there (and named in the skip reason).
"""

from __future__ import annotations

import importlib.util

import pytest

from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit

QUESTION = "How often are API keys rotated?"
ANSWERING = "API keys are rotated every 30 days. Old keys stay valid for 24 hours."
UNRELATED = "The cafeteria serves lunch from noon until two in the afternoon."


def evidence(*texts: str) -> list[Evidence]:
    """Evidence in rank order, numbered [1], [2], … as a generator sees it."""
    doc = Document("d", "default", "doc.md", "Doc", "h")
    return [Evidence(FusedHit(f"c{i}", 1 / (60 + i)),
                     Chunk(f"c{i}", "d", ChunkKind.CHILD, text, i), doc, text)
            for i, text in enumerate(texts, start=1)]


def needs(*modules: str) -> pytest.MarkDecorator:
    """Skip an implementation whose optional dependency is not installed."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} not installed")
