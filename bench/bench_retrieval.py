"""Retrieval and refusal latency on the embedded store at 10k and 100k chunks.

Chunks are synthetic (clustered 384-d unit vectors + text drawn from a
vocabulary) so the store can be filled without embedding 100k passages; the
query is embedded for real with MiniLM on every call, so the numbers include
query embedding. Usage:

    python bench/bench_retrieval.py --sizes 10000 100000 [--write]
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

import numpy as np
from _common import machine, percentiles, timed, write_section

from abstain.embed.minilm import MiniLMEmbedder
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.pipeline import Pipeline
from abstain.stores.base import EmbedderInfo
from abstain.stores.sqlite import SQLiteStore

VOCAB = [f"w{i}" for i in range(20000)] + """replication storage cluster backup segment queue
token error latency compaction snapshot restore upgrade metric port config admin password shelf
index""".split()

QUESTIONS = ["How do I restore a backup snapshot?", "What does error E1207 mean?",
             "Which port does replication use?", "How large is a WAL segment?"]
OFF_TOPIC = ["What is the boiling point of tungsten?", "Who painted the Mona Lisa?",
             "How many moons does Mars have?", "Wie wird das Wetter morgen in Berlin?"]


def fill(store: SQLiteStore, n: int, dim: int, name: str, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    rnd = random.Random(seed)
    centres = rng.normal(size=(64, dim)).astype(np.float32)
    per_doc = 100
    info = EmbedderInfo(name, dim)
    for d in range(n // per_doc):
        doc_id = f"doc{d}"
        parent = Chunk(f"{doc_id}-p0", doc_id, ChunkKind.PARENT, "parent", 0)
        texts = [" ".join(rnd.choices(VOCAB, k=60)) for _ in range(per_doc)]
        chunks = [parent] + [Chunk(f"{doc_id}-c{i}", doc_id, ChunkKind.CHILD, t, i, parent.id)
                             for i, t in enumerate(texts)]
        vecs = centres[rng.integers(0, 64, per_doc)] + 0.6 * rng.normal(size=(per_doc, dim))
        vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
        store.write_document(Document(doc_id, "default", f"{doc_id}.md", f"Doc {d}", "h"),
                             chunks, vecs, info)


def run(size: int, repeat: int) -> dict[str, float]:
    embedder = MiniLMEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "bench.db")
        fill(store, size, embedder.dim, embedder.name)
        with Pipeline(store, embedder) as pipe:
            pipe.search(QUESTIONS[0])  # load the vector index once
            q = iter(QUESTIONS * repeat)
            search = timed(lambda: pipe.search(next(q)), repeat)
            o = iter(OFF_TOPIC * repeat)
            refusals: list[float] = []
            for _ in range(repeat):
                answer = pipe.ask(next(o))
                assert not answer.answered and not answer.llm_called
                refusals.append(answer.timings_ms["total_ms"])
            embed_only = timed(lambda: embedder.embed_batch(["How do I restore a backup?"]),
                               repeat)
    s50, s95 = percentiles(search)
    r50, r95 = percentiles(refusals)
    e50, e95 = percentiles(embed_only)
    return {"size": size, "search_p50": s50, "search_p95": s95, "refuse_p50": r50,
            "refuse_p95": r95, "embed_p50": e50, "embed_p95": e95}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    rows = [run(size, args.repeat) for size in args.sizes]
    lines = ["| chunks | retrieval p50 / p95 (ms) | refusal p50 / p95 (ms) | query embedding "
             "alone p50 / p95 (ms) |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['size']:,} | {r['search_p50']:.1f} / {r['search_p95']:.1f} | "
                     f"{r['refuse_p50']:.1f} / {r['refuse_p95']:.1f} | "
                     f"{r['embed_p50']:.1f} / {r['embed_p95']:.1f} |")
    table = "\n".join(lines)
    print(table)
    if args.write:
        write_section("Retrieval and refusal latency (embedded SQLite store)", f"""
Machine: {machine()}.
`python bench/bench_retrieval.py --sizes {' '.join(map(str, args.sizes))} --write`
({args.repeat} queries each). Synthetic clustered 384-d vectors and synthetic text fill the
store; every query is embedded for real with MiniLM int8, so the figures include query
embedding. Refusals are off-topic questions through the full `Pipeline.ask` path (no LLM).
Goals: retrieval p95 ≤ 25 ms and refusal p95 ≤ 30 ms at 100k chunks.

{table}
""")


if __name__ == "__main__":
    main()
