"""Tenancy under load: 10,000 random queries over 5 workspaces, not one foreign hit."""

from __future__ import annotations

import random

import numpy as np

from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores.base import EmbedderInfo, Store

EMB = EmbedderInfo("tenancy-8d", 8)
WORKSPACES = [f"tenant-{i}" for i in range(5)]
WORDS = ["alpha", "beta", "gamma", "delta", "backup", "retention", "policy", "error",
         "restore", "cluster", "node", "shard"]
QUERIES = 10_000


def _corpus(store: Store, rng: random.Random) -> dict[str, set[str]]:
    """Five workspaces of the same words and nearby vectors; returns each one's chunk ids."""
    owned: dict[str, set[str]] = {ws: set() for ws in WORKSPACES}
    for ws in WORKSPACES:
        for d in range(6):
            doc_id = f"{ws}-d{d}"
            doc = Document(doc_id, ws, f"{doc_id}.md", f"{ws} {rng.choice(WORDS)}", "h",
                           published=rng.random() > 0.2)
            parent = Chunk(f"{doc_id}-p", doc_id, ChunkKind.PARENT, "parent", 0)
            children = [Chunk(f"{doc_id}-c{i}", doc_id, ChunkKind.CHILD,
                              " ".join(rng.choices(WORDS, k=6)), i, parent.id)
                        for i in range(3)]
            para = Chunk(f"{doc_id}-q0", doc_id, ChunkKind.PARAPHRASE,
                         " ".join(rng.choices(WORDS, k=4)), 0, children[0].id)
            chunks = [parent, *children, para]
            vectors = np.array([[rng.gauss(0, 1) for _ in range(EMB.dim)] for _ in range(4)],
                               dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            store.write_document(doc, chunks, vectors, EMB)
            owned[ws] |= {c.id for c in chunks}
    return owned


def test_ten_thousand_random_queries_never_cross_workspaces(store: Store) -> None:
    rng = random.Random(5)
    owned = _corpus(store, rng)
    crossed, hits = 0, 0
    for n in range(QUERIES):
        ws = rng.choice(WORKSPACES)
        limit = rng.randint(1, 40)
        published_only = rng.random() > 0.5
        if n % 2:
            found = store.search_text(" ".join(rng.choices(WORDS, k=rng.randint(1, 4))),
                                      workspace=ws, limit=limit, published_only=published_only)
        else:
            q = np.array([rng.gauss(0, 1) for _ in range(EMB.dim)], dtype=np.float32)
            found = store.search_vector(q / np.linalg.norm(q), workspace=ws, limit=limit,
                                        published_only=published_only)
        hits += len(found)
        crossed += sum(h.chunk_id not in owned[ws] or (h.collapse_to or h.chunk_id)
                       not in owned[ws] for h in found)
    assert crossed == 0
    assert hits > QUERIES  # the queries did find things: this is not a vacuous pass
    assert {d.workspace for d in store.list_documents()} == set(WORKSPACES)
