"""Tenancy at random: hypothesis runs random sequences of operations across workspaces.

create-key, upload, delete (also through another workspace's path), ask (JSON and the
OpenAI-compatible chat, with the right and the wrong key), search, list, models, the
query log and labels, over the real app (in process) on SQLite and on PostgreSQL, with
the deterministic hashing embedder. Every document of a workspace carries that
workspace's marker word and secret word, and every question names a marker (often
another workspace's, as a lure) but never a secret: after each operation no secret,
chunk, document, question or count of another workspace may have been returned.
Each store runs at least OPERATIONS operations.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)
from starlette.testclient import TestClient

from abstain.embed.hashing import HashingEmbedder
from abstain.ingest import document_id
from abstain.pipeline import Pipeline
from abstain.querylog import open_log
from abstain.server import KeyStore, ServerConfig, create_app
from abstain.stores.base import Store
from abstain.stores.log_base import LogSettings
from tests.server.helpers import bearer

OPERATIONS = int(os.environ.get("ABSTAIN_TENANCY_OPS", "5000"))
"""Operations per store (two stores: 10,000 per run)."""
STEPS = 50
WORKSPACES = 3
WORDS = ("backup", "restore", "node", "shard", "replica", "quota", "token", "port", "disk")


@dataclass
class World:
    """What the store, the key file and the app share across the state machine's runs."""

    client: TestClient
    keys: KeyStore
    pipeline: Pipeline
    admin: str
    runs: Iterator[int] = field(default_factory=itertools.count)
    operations: int = 0


def _world(store: Store, tmp: Path) -> Iterator[World]:
    pipe = Pipeline(store, HashingEmbedder())
    open_log(store).configure(LogSettings(enabled=True))
    keys = KeyStore(tmp / "keys.db")
    app = create_app(pipe, keys=keys, config=ServerConfig(rate=0, query_batching=False))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield World(client, keys, pipe, keys.create(admin=True)[1])
    keys.close()
    pipe.close()


def _machine(world: World) -> type[RuleBasedStateMachine]:
    class Tenancy(RuleBasedStateMachine):
        """One run: WORKSPACES fresh workspaces, each with its own marker word."""

        @initialize()
        def setup(self) -> None:
            run = next(world.runs)
            self.ws = [f"r{run}-w{i}" for i in range(WORKSPACES)]
            self.marker = {ws: f"mark{run}x{i}" for i, ws in enumerate(self.ws)}
            self.secret = {ws: f"sec{run}y{i}" for i, ws in enumerate(self.ws)}
            self.docs: dict[str, dict[str, str]] = {ws: {} for ws in self.ws}
            self.keys: dict[str, list[str]] = {ws: [] for ws in self.ws}
            self.asked: dict[str, set[str]] = {ws: set() for ws in self.ws}
            self.entries: dict[str, set[int]] = {ws: set() for ws in self.ws}
            self.n = itertools.count()
            self.leaks: list[str] = []

        # -- helpers ---------------------------------------------------------------
        def key(self, ws: str) -> str:
            return self.keys[ws][-1] if self.keys[ws] else world.admin

        def foreign(self, ws: str, text: str, where: str) -> None:
            """Another workspace's secret word (never in a question) in ``text``."""
            for other in self.ws:
                if other != ws and self.secret[other] in text:
                    at = text.index(self.secret[other])
                    self.leaks.append(f"{where}: {self.secret[other]} of {other} in {ws}: "
                                      f"{text[max(0, at - 200):at + 50]}")

        def chunks_ok(self, ws: str, chunk_ids: list[str], where: str) -> None:
            own = {document_id(ws, source) for source in self.docs[ws]}
            extra = {c for c in chunk_ids if c.rsplit("-", 1)[0] not in own}
            if extra:
                self.leaks.append(f"{where}: {ws} returned chunks {sorted(extra)}")

        def question(self, target: str, n: int) -> str:
            return (f"When does the {self.marker[target]} {WORDS[n % len(WORDS)]} service "
                    f"restart? (q{n})")

        def call(self, method: str, url: str, key: str, **kwargs: Any) -> Any:
            world.operations += 1
            response = world.client.request(method, url, headers=bearer(key), **kwargs)
            assert response.status_code < 500, response.text
            return response

        # -- rules -------------------------------------------------------------------
        @rule(i=st.integers(0, WORKSPACES - 1))
        def create_key(self, i: int) -> None:
            world.operations += 1
            self.keys[self.ws[i]].append(world.keys.create(workspace=self.ws[i])[1])

        @rule(i=st.integers(0, WORKSPACES - 1), d=st.integers(0, 5),
              words=st.lists(st.sampled_from(WORDS), min_size=3, max_size=12))
        def upload(self, i: int, d: int, words: list[str]) -> None:
            ws = self.ws[i]
            text = (f"# {self.marker[ws]} {words[0]}\n\nThe {self.marker[ws]} {' '.join(words)} "
                    f"service restarts at {d + 1} o'clock. Ticket {self.secret[ws]}.\n")
            r = self.call("POST", f"/v1/workspaces/{ws}/documents", self.key(ws),
                          json={"text": text, "source": f"d{d}.md"})
            assert r.status_code == 201, r.text
            self.docs[ws][f"d{d}.md"] = text

        @rule(i=st.integers(0, WORKSPACES - 1), j=st.integers(0, WORKSPACES - 1),
              d=st.integers(0, 5))
        def upload_with_a_foreign_key(self, i: int, j: int, d: int) -> None:
            ws, other = self.ws[i], self.ws[j]
            if i == j or not self.keys[other]:
                return
            r = self.call("POST", f"/v1/workspaces/{ws}/documents", self.keys[other][-1],
                          json={"text": f"{self.marker[other]} planted", "source": f"d{d}.md"})
            assert r.status_code == 403, r.text

        @rule(i=st.integers(0, WORKSPACES - 1), j=st.integers(0, WORKSPACES - 1),
              d=st.integers(0, 5))
        def delete(self, i: int, j: int, d: int) -> None:
            """Delete ws i's document d through ws j's path (the admin key may use both)."""
            ws, path_ws = self.ws[i], self.ws[j]
            source = f"d{d}.md"
            r = self.call("DELETE", f"/v1/workspaces/{path_ws}/documents/"
                          f"{document_id(ws, source)}", world.admin)
            if i == j and source in self.docs[ws]:
                assert r.status_code == 204, r.text
                del self.docs[ws][source]
            else:
                assert r.status_code == 404, r.text

        @rule(i=st.integers(0, WORKSPACES - 1), t=st.integers(0, WORKSPACES - 1),
              via=st.integers(0, WORKSPACES))
        def ask(self, i: int, t: int, via: int) -> None:
            """Ask in ws i about ws t's marker, with a key of ws ``via`` (or the admin's)."""
            ws, n = self.ws[i], next(self.n)
            key = world.admin if via == WORKSPACES or not self.keys[self.ws[via]] \
                else self.keys[self.ws[via]][-1]
            own = key == world.admin or self.ws[via] == ws
            q = self.question(self.ws[t], n)
            r = self.call("POST", f"/v1/workspaces/{ws}/ask", key, json={"question": q})
            if not own:
                assert r.status_code == 403, r.text
                return
            if not self.docs[ws]:
                assert r.status_code == 404, r.text
                return
            assert r.status_code == 200, r.text
            self.asked[ws].add(q)
            body = r.json()
            self.foreign(ws, r.text, "ask")
            self.chunks_ok(ws, [e["chunk_id"] for e in body["evidence"]]
                           + [c["chunk_id"] for c in body["citations"]], "ask")

        @rule(i=st.integers(0, WORKSPACES - 1), t=st.integers(0, WORKSPACES - 1),
              stream=st.booleans())
        def chat(self, i: int, t: int, stream: bool) -> None:
            ws, n = self.ws[i], next(self.n)
            q = self.question(self.ws[t], n)
            r = self.call("POST", "/v1/chat/completions", self.key(ws),
                          json={"model": ws, "stream": stream,
                                "messages": [{"role": "user", "content": q}]})
            if not self.docs[ws]:
                assert r.status_code in (403, 404), r.text
                return
            assert r.status_code == 200, r.text
            self.asked[ws].add(q)
            self.foreign(ws, r.text, "chat")

        @rule(i=st.integers(0, WORKSPACES - 1), t=st.integers(0, WORKSPACES - 1))
        def search(self, i: int, t: int) -> None:
            ws = self.ws[i]
            if not self.docs[ws]:
                return
            world.operations += 1
            found = world.pipeline.search(self.question(self.ws[t], 0), workspace=ws)
            self.chunks_ok(ws, [e.chunk_id for e in found.evidence], "search")
            for ev in found.evidence:
                self.foreign(ws, f"{ev.text} {ev.parent_text} {ev.document.title}", "search")

        @rule(i=st.integers(0, WORKSPACES - 1))
        def list_documents(self, i: int) -> None:
            ws = self.ws[i]
            r = self.call("GET", f"/v1/workspaces/{ws}/documents", self.key(ws))
            assert r.status_code == 200, r.text
            listed = sorted(d["source"] for d in r.json()["documents"])
            if listed != sorted(self.docs[ws]):
                self.leaks.append(f"list: {ws} lists {listed}, holds {sorted(self.docs[ws])}")

        @rule(i=st.integers(0, WORKSPACES - 1))
        def models(self, i: int) -> None:
            ws = self.ws[i]
            if not self.keys[ws]:
                return
            r = self.call("GET", "/v1/models", self.keys[ws][-1])
            ids = [m["id"] for m in r.json()["data"]]
            if ids != ([ws] if self.docs[ws] else []):
                self.leaks.append(f"models: a key of {ws} sees {ids}")

        @rule(i=st.integers(0, WORKSPACES - 1))
        def log(self, i: int) -> None:
            ws = self.ws[i]
            r = self.call("GET", f"/v1/workspaces/{ws}/log?limit=1000", world.admin)
            assert r.status_code == 200, r.text
            entries = r.json()["entries"]
            questions = {e["question"] for e in entries}
            if questions != self.asked[ws]:
                self.leaks.append(f"log: {ws} logs {len(questions)} questions, asked "
                                   f"{len(self.asked[ws])}; foreign: "
                                   f"{sorted(questions - self.asked[ws])[:3]}")
            self.entries[ws] = {int(e["id"]) for e in entries}

        @rule(i=st.integers(0, WORKSPACES - 1), j=st.integers(0, WORKSPACES - 1),
              expected=st.sampled_from(["answer", "refuse"]))
        def label(self, i: int, j: int, expected: str) -> None:
            """Label an entry of ws j through ws i's path: only its own workspace finds it."""
            if not self.entries[self.ws[j]]:
                return
            entry = min(self.entries[self.ws[j]])
            r = self.call("POST", f"/v1/workspaces/{self.ws[i]}/log/{entry}/label",
                          world.admin, json={"expected": expected})
            assert r.status_code == (200 if i == j else 404), r.text

        @invariant()
        def no_leak(self) -> None:
            assert not self.leaks, self.leaks[:5]

    return Tenancy


def _run(world: World) -> None:
    machine = _machine(world)
    # Hypothesis starts from the simplest runs: ask for enough runs at once to get past
    # them (a run averages about 30 operations)
    runs = settings(max_examples=max(4, OPERATIONS // 30), stateful_step_count=STEPS,
                    deadline=None, database=None, suppress_health_check=list(HealthCheck))
    while world.operations < OPERATIONS:
        run_state_machine_as_test(machine, settings=runs)
    print(f"{world.operations} operations, no leak")


def test_random_operations_never_cross_workspaces_sqlite(tmp_path: Path) -> None:
    from abstain.stores.sqlite import SQLiteStore

    for world in _world(SQLiteStore(tmp_path / "kb.db"), tmp_path):
        _run(world)


@pytest.mark.postgres
def test_random_operations_never_cross_workspaces_postgres(tmp_path: Path,
                                                           pg_database: str) -> None:
    from abstain.stores.postgres import PostgresStore

    for world in _world(PostgresStore(pg_database), tmp_path):
        _run(world)

