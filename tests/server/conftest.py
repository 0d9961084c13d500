"""One real server for the whole server test session: a small corpus, real MiniLM, real HTTP.

Workspaces: ``docs`` (four sample-corpus files, for answers and refusals),
``fuzz`` (one note, for schemathesis) and ``scratch`` (uploads and deletes).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="needs the server extra: pip install 'abstain[server]'")

from abstain.embed.base import Embedder
from abstain.pipeline import Pipeline
from abstain.server import KeyStore, ServerConfig, ServerThread, create_app
from abstain.stores.sqlite import SQLiteStore
from tests.conftest import SAMPLE_CORPUS

CORPUS = ("qa/reset-admin-password.md", "qa/network-ports.md", "reference/error-codes.md",
          "adr/ADR-0007-crc32c-checksums-for-wal-segments.md")


@dataclass(frozen=True)
class Keys:
    docs: str
    other: str
    fuzz: str
    scratch: str
    admin: str
    revoked: str


@dataclass(frozen=True)
class Env:
    url: str
    pipeline: Pipeline
    keystore: KeyStore
    keys: Keys


@pytest.fixture(scope="session")
def corpus_pipeline(tmp_path_factory: pytest.TempPathFactory,
                    minilm: Embedder) -> Iterator[Pipeline]:
    db = tmp_path_factory.mktemp("server-store") / "kb.db"
    pipe = Pipeline(SQLiteStore(db), minilm)
    pipe.ingest([SAMPLE_CORPUS / name for name in CORPUS], workspace="docs")
    pipe.ingest_text("# Fuzzing\n\nThe fuzz workspace holds one note about testing.",
                     source="fuzz.md", workspace="fuzz")
    yield pipe
    pipe.close()


@pytest.fixture(scope="session")
def keystore(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KeyStore, Keys]]:
    store = KeyStore(tmp_path_factory.mktemp("server-keys") / "keys.db")
    made = {ws: store.create(workspace=ws)[1] for ws in ("docs", "other", "fuzz", "scratch")}
    revoked_record, revoked = store.create(workspace="docs", label="to revoke")
    store.revoke(revoked_record.id)
    keys = Keys(admin=store.create(admin=True)[1], revoked=revoked, **made)
    yield store, keys
    store.close()


@pytest.fixture(scope="session")
def server(corpus_pipeline: Pipeline, keystore: tuple[KeyStore, Keys]) -> Iterator[Env]:
    store, keys = keystore
    app = create_app(corpus_pipeline, keys=store, config=ServerConfig(rate=0))
    with ServerThread(app) as running:
        yield Env(running.url, corpus_pipeline, store, keys)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    path = Path(__file__).resolve().parents[1] / "artifacts"
    path.mkdir(exist_ok=True)
    return path
