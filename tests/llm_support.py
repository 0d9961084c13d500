"""A small knowledge base for the LLM and verification tests (real MiniLM, real SQLite).

Three short documents; each test question below retrieves exactly one source, so
scripted answers cite [1]. ``drafts`` holds only an unpublished document: retrieval
there comes back empty (the zero-hits path).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abstain.embed.base import Embedder
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore

DOCS = {
    "keys.md": "# API keys\n\nAPI keys are rotated every 30 days. Run `qsctl keys rotate` to "
               "rotate them early.\n\nOld keys stay valid for 24 hours after a rotation, so "
               "clients can switch over.\n",
    "backup.md": "# Backups\n\nBackups run every night at 02:00 UTC and are kept for 14 days."
                 "\n\nRestore a backup with `qsctl backup restore --id ID`. A restore stops "
                 "the server for about five minutes.\n",
    "replicas.md": "# Replicas\n\nA cluster has three replicas by default. Writes are "
                   "acknowledged once two replicas have stored them.\n",
}
DRAFT = "---\npublished: false\n---\n# Roadmap\n\nNothing decided yet.\n"

KEYS_Q = "How often are API keys rotated?"
OFF_TOPIC_Q = "What is the boiling point of tungsten?"
FAITHFUL = ("API keys are rotated every 30 days [1]. Run qsctl keys rotate to rotate them "
            "early [1].")
FABRICATED = "Keys are stored in a hardware module made by Thales since 2019."


def build_kb(path: Path, embedder: Embedder) -> Path:
    with Pipeline(SQLiteStore(path), embedder) as pipe:
        for name, text in DOCS.items():
            pipe.ingest_text(text, source=name)
        pipe.ingest_text(DRAFT, source="roadmap.md", workspace="drafts")
    return path


def pipeline(db: Path, embedder: Embedder, **kwargs: Any) -> Pipeline:
    return Pipeline(SQLiteStore(db), embedder, **kwargs)
