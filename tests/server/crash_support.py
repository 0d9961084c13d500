"""A real `abstain serve` subprocess to kill, and checks that a store came out whole."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from abstain.embed.hashing import HashingEmbedder
from abstain.ingest import embedding_text
from abstain.stores.base import Store
from tests.server.helpers import bearer

WORDS = ("backup", "restore", "replica", "shard", "quota", "token", "port", "disk", "node")


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    url: str
    key: str

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        assert self.proc.returncode == -signal.SIGKILL


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(store_args: list[str], keys: Path, key: str) -> Iterator[Served]:
    """`abstain serve` on a free port with the hashing embedder, ready; killed on exit."""
    port = free_port()
    abstain = Path(sys.executable).with_name("abstain")
    proc = subprocess.Popen(
        [str(abstain), "serve", *store_args, "--keys", str(keys), "--port", str(port),
         "--embedder", "hashing", "--rate", "0", "--log-level", "warning"],
        env={**os.environ}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        assert proc.poll() is None, f"abstain serve exited with {proc.returncode}"
        yield Served(proc, url, key)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


def token(n: int) -> str:
    """Document n's own word: ``tok`` and n's six digits as consonants (one stem, no digits,
    and no prefix of another document's word)."""
    return "tok" + "".join("bcdfghjkmp"[int(d)] for d in f"{n:06d}")


def document_text(n: int, rng: random.Random) -> str:
    """A document whose every paragraph holds its own word, :func:`token`."""
    paragraphs = [f"Paragraph {p} of {token(n)}: " + " ".join(rng.choices(WORDS, k=40)) + "."
                  for p in range(rng.randint(2, 12))]
    return f"# Document {token(n)}\n\n" + "\n\n".join(paragraphs) + "\n"


@dataclass
class Uploads:
    """Uploads sent by client threads; ``acked`` holds each 201's (source, text, chunks)."""

    acked: dict[str, tuple[str, int]] = field(default_factory=dict)
    sent: int = 0
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)


def upload_until_killed(server: Served, workspace: str, *, clients: int, kill_after: int,
                        start: int = 0) -> Uploads:
    """``clients`` threads upload documents until ``kill_after`` were acknowledged, then
    the server gets SIGKILL while the others are in flight."""
    out = Uploads()
    stop = threading.Event()
    counter = iter(range(start, start + 100_000))

    def client(seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(base_url=server.url, headers=bearer(server.key), timeout=30) as http:
            while not stop.is_set():
                with out._lock:
                    n = next(counter)
                    out.sent += 1
                text = document_text(n, rng)
                try:
                    r = http.post(f"/v1/workspaces/{workspace}/documents",
                                  json={"text": text, "source": f"doc{n}.md"})
                except httpx.TransportError:
                    return  # the server died under us: not acknowledged
                if r.status_code == 201:
                    with out._lock:
                        out.acked[f"doc{n}.md"] = (text, r.json()["chunks"])
                else:
                    out.errors.append(f"{r.status_code} {r.text[:200]}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    while len(out.acked) < kill_after and all(t.is_alive() for t in threads):
        time.sleep(0.01)
    server.kill9()
    stop.set()
    for t in threads:
        t.join(timeout=60)
    return out


def check_whole(store: Store, workspace: str, acked: dict[str, tuple[str, int]]) -> int:
    """Every acknowledged upload is there whole; every stored document is whole and found
    by both indexes. Returns the number of documents checked."""
    docs = {d.source: d for d in store.list_documents(workspace)}
    missing = sorted(set(acked) - set(docs))
    assert not missing, f"acknowledged uploads lost: {missing[:5]}"
    for source, (text, chunks) in acked.items():
        doc = docs[source]
        assert doc.content_hash == hashlib.sha256(text.encode()).hexdigest(), source
        assert doc.chunks == chunks, (source, doc.chunks, chunks)
    embedder = HashingEmbedder()
    for doc in docs.values():
        ids = [f"{doc.id}-c{i}" for i in range(doc.chunks)]
        stored = store.get_chunks(ids)
        assert sorted(stored) == sorted(ids), f"{doc.source}: half a document"
        word = doc.title.split()[-1]  # "Document tok…": the document's own word
        found = store.search_text(word, workspace=workspace, limit=100)
        assert sorted(h.chunk_id for h in found) == sorted(ids), f"{doc.source}: keyword index"
        first = stored[ids[0]]
        vector = embedder.embed_batch([embedding_text(doc.title, first.chunk)])[0]
        [top] = store.search_vector(vector, workspace=workspace, limit=1)
        assert top.chunk_id == ids[0], f"{doc.source}: vector index"
    return len(docs)


def stream_until_killed(server: Served, workspace: str, questions: list[str], *,
                        clients: int, kill_after: int) -> tuple[int, int]:
    """Client threads read answer streams; SIGKILL once ``kill_after`` streams finished.
    Returns (streams finished, streams cut)."""
    done, cut = [0], [0]
    stop = threading.Event()
    lock = threading.Lock()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(base_url=server.url, headers=bearer(server.key), timeout=30) as http:
            while not stop.is_set():
                try:
                    with http.stream("POST", f"/v1/workspaces/{workspace}/ask/stream",
                                     json={"question": rng.choice(questions)}) as r:
                        body = "".join(r.iter_text())
                    assert r.status_code == 200 and "event: done" in body, body[-300:]
                    with lock:
                        done[0] += 1
                except (httpx.TransportError, httpx.StreamError):
                    with lock:
                        cut[0] += 1
                    return

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    while done[0] < kill_after and all(t.is_alive() for t in threads):
        time.sleep(0.01)
    server.kill9()
    stop.set()
    for t in threads:
        t.join(timeout=60)
    return done[0], cut[0]

