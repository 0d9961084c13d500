from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstain.embed import HashingEmbedder
from abstain.embed.base import Embedder

pytest_plugins = ["tests.pg"]

SAMPLE_CORPUS = Path(__file__).resolve().parents[1] / "src" / "abstain" / "sample_corpus"


def ingest_sample_hashing(folder: Path) -> str:
    """The whole sample corpus in a store of its own under ``folder``, with the deterministic
    hashing embedder (fast, offline): for tests that may write to it."""
    from abstain.pipeline import Pipeline
    from abstain.stores.sqlite import SQLiteStore

    path = folder / "sample-hashing.db"
    with Pipeline(SQLiteStore(path), HashingEmbedder()) as pipe:
        assert not pipe.ingest([SAMPLE_CORPUS]).skipped
    return str(path)


@pytest.fixture(autouse=True, scope="session")
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test writes to the real user data or cache directories."""
    home = tmp_path_factory.mktemp("home")
    old = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "ABSTAIN_DB",
                                          "ABSTAIN_STORE", "ABSTAIN_LLM_URL")}
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ["XDG_CACHE_HOME"] = str(home / "cache")
    for k in ("ABSTAIN_DB", "ABSTAIN_STORE", "ABSTAIN_LLM_URL"):
        os.environ.pop(k, None)
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def hashing() -> Embedder:
    return HashingEmbedder()


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    from abstain.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture
def sample_corpus() -> Path:
    assert SAMPLE_CORPUS.is_dir(), "the bundled sample corpus is missing"
    return SAMPLE_CORPUS


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> str:
    """The whole sample corpus ingested once per session with the real MiniLM embedder."""
    from abstain.pipeline import Pipeline
    from abstain.stores.sqlite import SQLiteStore

    path = tmp_path_factory.mktemp("sample") / "sample.db"
    with Pipeline(SQLiteStore(path), minilm) as pipe:
        report = pipe.ingest([SAMPLE_CORPUS])
    assert not report.skipped, report.skipped
    return str(path)


@pytest.fixture(scope="session")
def sample_pipeline(sample_db: str, minilm: Embedder) -> Iterator[object]:
    """A Pipeline over the sample corpus (read-only use, shared across tests)."""
    from abstain.pipeline import Pipeline
    from abstain.stores.sqlite import SQLiteStore

    with Pipeline(SQLiteStore(sample_db), minilm) as pipe:
        yield pipe


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> Path:
    """A small knowledge base for the LLM tests (tests/llm_support.py), built once per module."""
    from tests.llm_support import build_kb

    return build_kb(tmp_path_factory.mktemp("kb") / "kb.db", minilm)


@pytest.fixture
def server() -> Iterator[object]:
    """A scripted OpenAI-compatible HTTP server on a loopback port."""
    from abstain.testing.openai_server import ScriptedOpenAIServer

    with ScriptedOpenAIServer() as srv:
        yield srv
