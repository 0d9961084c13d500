"""One small knowledge base for the framework adapters' tests (real MiniLM, real SQLite)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstain.embed.base import Embedder
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore
from tests.conftest import SAMPLE_CORPUS

# haystack-ai sends usage events to PostHog unless told not to; the tests stay offline.
os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

ANSWERED = "How do I reset the admin password?"
REFUSED = "What does ADR-0050 decide?"


@pytest.fixture(scope="session")
def adapters_pipeline(tmp_path_factory: pytest.TempPathFactory,
                      minilm: Embedder) -> Iterator[Pipeline]:
    path: Path = tmp_path_factory.mktemp("adapters") / "kb.db"
    with Pipeline(SQLiteStore(path), minilm, workspace="docs") as pipe:
        pipe.ingest([SAMPLE_CORPUS / "adr", SAMPLE_CORPUS / "qa/reset-admin-password.md"])
        yield pipe
