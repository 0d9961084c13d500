"""Scale: N synthetic chunks in the embedded store (and optionally PostgreSQL).

Clustered 384-d unit vectors and Zipf-distributed words (the corpus of
``bench_postgres.py``): no embedding is needed to fill the store. Reports, for
each store: build time (load, then the approximate index), p50 / p95 of hybrid
retrieval excluding the query embedding (both arms, collapse, RRF, hydration),
of the keyword arm on a query led by the most frequent word, and of a refusal
through ``Pipeline.ask`` including the query's embedding (MiniLM); recall@30 of
the vector arm against exact search; RSS; the size on disk; and the ratio to an
exact floor in the same process (numpy top-k + bm25s + RRF). Usage:

    nice -n 19 python bench/bench_scale.py --rows 100000 [--postgres] [--write]

bm25s is needed for the floor (``pip install bm25s``); it is not a dependency.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import machine, percentiles, write_section
from bench_postgres import CHILDREN, VOCAB, corpus, documents

from abstain.embed.minilm import MiniLMEmbedder
from abstain.fuse import collapse, rrf
from abstain.pipeline import Pipeline
from abstain.stores.base import EmbedderInfo, Store

WS = "default"
K = 30
OFF_TOPIC = ["What is the boiling point of tungsten?", "Who painted the Mona Lisa?",
             "How many moons does Mars have?", "Wie wird das Wetter morgen in Berlin?"]


def fill(store: Store, vectors: np.ndarray, texts: list[str], info: EmbedderInfo) -> None:
    for doc, chunks, vecs in documents(vectors, texts, WS):
        store.write_document(doc, chunks, vecs, info)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def hybrid(store: Store, vector: np.ndarray, text: str) -> int:
    vec = collapse(store.search_vector(vector, workspace=WS, limit=K))
    kw = collapse(store.search_text(text, workspace=WS, limit=K))
    fused = rrf(vec, kw, k=60)[:10]
    return len(store.get_chunks([f.chunk_id for f in fused]))


def timed_each(fn, items) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def measure(name: str, store: Store, vectors: np.ndarray, queries: np.ndarray,
            words: list[str], worst: list[str], embedder: MiniLMEmbedder) -> dict[str, object]:
    t0 = time.perf_counter()
    store.search_vector(queries[0], workspace=WS, limit=K)  # loads or builds the vector index
    index_s = time.perf_counter() - t0
    found = 0
    for q in queries:
        exact = set(np.argpartition(-(vectors @ q), K)[:K].tolist())
        hits = store.search_vector(q, workspace=WS, limit=K)
        found += sum(int(h.chunk_id.rsplit("-c", 1)[1]) in exact for h in hits)
    hybrid_ms = timed_each(lambda i: hybrid(store, queries[i], words[i]), range(len(queries)))
    worst_ms = timed_each(lambda t: store.search_text(t, workspace=WS, limit=K), worst)
    with Pipeline(store, embedder) as pipe:
        pipe.ask(OFF_TOPIC[0])
        refusals = []
        for i in range(len(queries)):
            answer = pipe.ask(OFF_TOPIC[i % len(OFF_TOPIC)])
            assert not answer.answered and not answer.llm_called
            refusals.append(answer.timings_ms["total_ms"])
    return {"store": name, "index_s": index_s, "recall": found / (K * len(queries)),
            "hybrid": percentiles(hybrid_ms), "worst": percentiles(worst_ms),
            "refusal": percentiles(refusals), "rss": rss_mb()}


def floor(vectors: np.ndarray, texts: list[str], queries: np.ndarray,
          words: list[str]) -> tuple[float, float]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("porter")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stemmer=stemmer, show_progress=False),
                    show_progress=False)

    def one(i: int) -> None:
        sims = vectors @ queries[i]
        top = np.argpartition(-sims, K)[:K]
        vec = top[np.argsort(-sims[top])]
        docs, _ = retriever.retrieve(bm25s.tokenize([words[i]], stemmer=stemmer,
                                                    show_progress=False), k=K,
                                     show_progress=False, n_threads=1)
        scores: dict[int, float] = {}
        for arm in (vec.tolist(), docs[0].tolist()):
            for r, d in enumerate(arm, start=1):
                scores[d] = scores.get(d, 0.0) + 1.0 / (60 + r)
        sorted(scores.items(), key=lambda kv: -kv[1])[:10]

    return percentiles(timed_each(one, range(len(queries))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--postgres", action="store_true", help="also the PostgreSQL store")
    ap.add_argument("--no-sqlite", action="store_true", help="skip the SQLite store")
    ap.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = ap.parse_args()

    vectors, texts = corpus(args.rows)
    rng = np.random.default_rng(1)
    picks = rng.integers(0, args.rows, size=args.queries)
    queries = vectors[picks] + 0.01 * rng.normal(size=(args.queries, vectors.shape[1]))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    head = set(VOCAB[:100])
    words = [" ".join([w for w in texts[p].split() if w not in head][:3]) for p in picks]
    worst = [f"{VOCAB[0]} {w}" for w in words]
    embedder = MiniLMEmbedder()
    info = EmbedderInfo(embedder.name, embedder.dim)
    rows = []
    if not args.no_sqlite:
        rows.append(sqlite_row(args, vectors, texts, queries, words, worst, embedder, info))
    if args.postgres:
        print("postgres…", flush=True)
        rows.append(postgres_row(args, vectors, texts, queries, words, worst, embedder, info))
    f50, f95 = floor(vectors, texts, queries, words)
    print(f"floor: {f50:.1f} / {f95:.1f} ms", flush=True)
    table = ["| store | load s | vector index s | hybrid p50 / p95 ms (× floor p50) "
             "| frequent word p50 / p95 ms | refusal p50 / p95 ms | recall@30 | RSS MB | disk MB |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        h, w, f = r["hybrid"], r["worst"], r["refusal"]
        table.append(
            f"| {r['store']} | {r['load_s']:.0f} | {r['index_s']:.1f} | {h[0]:.1f} / {h[1]:.1f}"  # type: ignore[index]
            f" ({h[0] / f50:.2f}×) | {w[0]:.1f} / {w[1]:.1f} | {f[0]:.1f} / {f[1]:.1f} |"  # type: ignore[index]
            f" {r['recall']:.3f} | {r['rss']:.0f} | {r['disk_mb']:.0f} |")
    table.append(f"| exact floor (numpy + bm25s) | | | {f50:.1f} / {f95:.1f} | | | 1.000 | | |")
    text = "\n".join(table)
    print(text)
    if args.write:
        write_section(f"Scale: {args.rows:,} chunks", f"""
Machine: {machine()}. **Taken on a busy machine**: 2 cores shared with other agents and
a model training, the benchmark run at `nice -n 19`; read the figures as upper bounds.
`nice -n 19 python bench/bench_scale.py --rows {args.rows}{' --postgres' if args.postgres else ''}
--write` ({args.queries} queries). Hybrid: both arms (top {K}), collapse, RRF, hydration of the
top 10, excluding the query embedding; frequent word: the keyword arm on a query led by the
most frequent word; refusal: an off-topic question through `Pipeline.ask`, including its
MiniLM embedding. Recall@30 of the vector arm against exact numpy search. RSS after the
queries; disk: database plus approximate index.

{text}
""")


def sqlite_row(args: argparse.Namespace, vectors: np.ndarray, texts: list[str],
               queries: np.ndarray, words: list[str], worst: list[str],
               embedder: MiniLMEmbedder, info: EmbedderInfo) -> dict[str, object]:
    from abstain.stores.sqlite import SQLiteStore

    with tempfile.TemporaryDirectory(prefix="abstain-scale-", dir="/tmp") as tmp:
        store = SQLiteStore(Path(tmp) / "scale.db")
        t0 = time.perf_counter()
        fill(store, vectors, texts, info)
        load_s = time.perf_counter() - t0
        print(f"sqlite: loaded {args.rows} chunks in {load_s:.0f} s", flush=True)
        result = measure("SQLite", store, vectors, queries, words, worst, embedder)
        store.close()
        disk = sum(f.stat().st_size for f in Path(tmp).rglob("*") if f.is_file()) / 2**20
        row = {**result, "load_s": load_s, "disk_mb": disk}
        print(row, flush=True)
        return row


def postgres_row(args: argparse.Namespace, vectors: np.ndarray, texts: list[str],
                 queries: np.ndarray, words: list[str], worst: list[str],
                 embedder: MiniLMEmbedder, info: EmbedderInfo) -> dict[str, object]:
    import shutil

    import psycopg
    from bench_postgres import build_index

    from abstain.stores import pg_embedded
    from abstain.stores.postgres import PostgresStore

    root = Path(tempfile.mkdtemp(prefix="abstain-scale-pg-", dir="/tmp"))
    root.chmod(0o755)
    try:
        url = pg_embedded.start(root).url()
        store = PostgresStore(url)
        t0 = time.perf_counter()
        fill(store, vectors[:CHILDREN], texts[:CHILDREN], info)
        with psycopg.connect(url, autocommit=True) as conn:  # built once, after the load
            conn.execute("DROP INDEX chunks_embedding_hnsw")
        fill(store, vectors, texts, info)
        load_s = time.perf_counter() - t0
        build_s = build_index(url, store.hnsw_m, store.hnsw_ef_construction)
        print(f"postgres: loaded {args.rows} chunks in {load_s:.0f} s, HNSW {build_s:.0f} s",
              flush=True)
        result = measure("PostgreSQL", store, vectors, queries, words, worst, embedder)
        store.close()
        disk = sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / 2**20
        return {**result, "load_s": load_s, "index_s": build_s, "disk_mb": disk}
    finally:
        pg_embedded.stop(root)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
