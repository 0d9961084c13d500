"""Scale: N synthetic chunks in the embedded store and PostgreSQL.

Clustered 384-d unit vectors and Zipf-distributed words (the corpus of
``bench_postgres.py``): no embedding is needed to fill the stores. Reports, for
each store: build time (load, then the approximate index), p50 / p95 of hybrid
retrieval excluding the query embedding (both arms, collapse, RRF, hydration; for
PostgreSQL ``search_fused``, one statement, then hydration), of the keyword arm on a
query led by the most frequent word, and of a refusal through ``Pipeline.ask``
including the query's embedding (MiniLM); recall@30 of the vector arm against exact
search; RSS of the process that measures; the size on disk; and the ratio to an
exact floor (numpy top-k + bm25s + RRF). Usage:

    nice -n 10 python bench/bench_scale.py --rows 1000000 [--postgres] [--no-sqlite] [--write]

The corpus, the loaded SQLite database with its graph and the PostgreSQL data
directory are kept under ``--data`` (``.data/scale``, git-ignored), so a rerun
measures without building again (remove the folder to rebuild). Every stage runs in
its own process: the measuring process holds the store and the embedder, not the
corpus, so its RSS is what serving the store takes. bm25s is needed for the floor
(``pip install bm25s``); it is not a dependency.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT, load_average, machine, percentiles, write_section
from bench_postgres import documents
from scale_data import Corpus, K, cached

from abstain.embed.minilm import MiniLMEmbedder
from abstain.fuse import collapse, rrf
from abstain.pipeline import Pipeline
from abstain.stores.base import EmbedderInfo, Store

WS = "default"
OFF_TOPIC = ["What is the boiling point of tungsten?", "Who painted the Mona Lisa?",
             "How many moons does Mars have?", "Wie wird das Wetter morgen in Berlin?"]
TARGET_QUERIES = 50
INFO = EmbedderInfo(MiniLMEmbedder.name, 384)
BUILD_MEMORY = "3GB"
"""The server's maintenance_work_mem, for the bulk load's HNSW build: the 1M graph (~2.2 GB)
fits in memory (the store raises it to at most 2 GB by itself)."""


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def hybrid(store: Store, vector: np.ndarray, text: str) -> int:
    vec = collapse(store.search_vector(vector, workspace=WS, limit=K))
    kw = collapse(store.search_text(text, workspace=WS, limit=K))
    fused = rrf(vec, kw, k=60)[:10]
    return len(store.get_chunks([f.chunk_id for f in fused]))


def fused(store: Any, vector: np.ndarray, text: str) -> int:
    hits = store.search_fused(vector, text, workspace=WS, limit=10, candidates=K)
    return len(store.get_chunks([h.chunk_id for h in hits]))


def timed_each(fn, items) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def measure(store: Store, c: Corpus, search: Any) -> dict[str, Any]:
    """Recall, hybrid / frequent-word / refusal latencies and RSS, on an open store."""
    t0 = time.perf_counter()
    store.search_vector(c.queries[0], workspace=WS, limit=K)  # loads or builds the index
    first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    store.search_text(c.words[0], workspace=WS, limit=K)  # builds the keyword index (SQLite)
    keyword_first_s = time.perf_counter() - t0
    found = 0
    for q, exact in zip(c.queries, c.exact, strict=True):
        hits = store.search_vector(q, workspace=WS, limit=K)
        found += len({int(h.chunk_id.rsplit("-c", 1)[1]) for h in hits} & set(exact.tolist()))
    n = len(c.queries)
    targets = 0  # the keyword arm finds the chunk whose 3 words it was given
    for words, target in list(zip(c.words, c.targets, strict=True))[:TARGET_QUERIES]:
        hits = store.search_text(words, workspace=WS, limit=K)
        targets += any(h.chunk_id.endswith(f"-c{target}") for h in hits)
    hybrid_ms = timed_each(lambda i: search(store, c.queries[i], c.words[i]), range(n))
    worst_ms = timed_each(lambda t: store.search_text(t, workspace=WS, limit=K), c.worst)
    embedder = MiniLMEmbedder()
    with Pipeline(store, embedder) as pipe:
        pipe.ask(OFF_TOPIC[0])
        refusals = []
        for i in range(n):
            answer = pipe.ask(OFF_TOPIC[i % len(OFF_TOPIC)])
            assert not answer.answered and not answer.llm_called
            refusals.append(answer.timings_ms["total_ms"])
    return {"first_search_s": first_s, "keyword_first_s": keyword_first_s,
            "recall": found / (K * n),
            "keyword_target": targets / min(n, TARGET_QUERIES),
            "hybrid": percentiles(hybrid_ms), "worst": percentiles(worst_ms),
            "refusal": percentiles(refusals), "rss": rss_mb(), "load_average": load_average()}


def disk_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def done(folder: Path, name: str, compute: Any) -> dict[str, Any]:
    """``folder/name.json``, computed (and written) the first time only."""
    path = folder / f"{name}.json"
    if not path.exists():
        path.write_text(json.dumps(compute()))
    return dict(json.loads(path.read_text()))


# -- stages, each run in its own process ------------------------------------
def stage_sqlite_load(c: Corpus) -> dict[str, Any]:
    from abstain.stores.sqlite import SQLiteStore

    folder = c.folder / "sqlite"

    def load() -> dict[str, Any]:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        store = SQLiteStore(folder / "scale.db")
        t0 = time.perf_counter()
        for doc, chunks, vecs in documents(c.vectors, c.texts, WS):
            store.write_document(doc, chunks, np.asarray(vecs), INFO)
        store.close()
        return {"load_s": time.perf_counter() - t0, "load_average": load_average()}

    return done(c.folder, "sqlite-load", load)


def stage_sqlite_measure(c: Corpus) -> dict[str, Any]:
    from abstain.stores.sqlite import SQLiteStore

    folder = c.folder / "sqlite"
    store = SQLiteStore(folder / "scale.db")
    result = measure(store, c, hybrid)
    store.close()  # writes the graph, so that a rerun loads it
    build = done(c.folder, "sqlite-index", lambda: {"index_s": result["first_search_s"]})
    return {**result, **build, "disk_mb": disk_mb(folder)}


def stage_floor(c: Corpus) -> dict[str, Any]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("porter")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(c.texts, stemmer=stemmer, show_progress=False),
                    show_progress=False)
    vectors = np.ascontiguousarray(c.vectors)  # in memory, as the exact scan holds it

    def one(i: int) -> None:
        sims = vectors @ c.queries[i]
        top = np.argpartition(-sims, K)[:K]
        vec = top[np.argsort(-sims[top])]
        docs, _ = retriever.retrieve(bm25s.tokenize([c.words[i]], stemmer=stemmer,
                                                    show_progress=False), k=K,
                                     show_progress=False, n_threads=1)
        scores: dict[int, float] = {}
        for arm in (vec.tolist(), docs[0].tolist()):
            for r, d in enumerate(arm, start=1):
                scores[d] = scores.get(d, 0.0) + 1.0 / (60 + r)
        sorted(scores.items(), key=lambda kv: -kv[1])[:10]

    found = 0
    for i in range(min(len(c.queries), TARGET_QUERIES)):
        docs, _ = retriever.retrieve(bm25s.tokenize([c.words[i]], stemmer=stemmer,
                                                    show_progress=False), k=K,
                                     show_progress=False, n_threads=1)
        found += int(c.targets[i]) in docs[0].tolist()
    return {"floor": percentiles(timed_each(one, range(len(c.queries)))),
            "keyword_target": found / min(len(c.queries), TARGET_QUERIES),
            "rss": rss_mb(), "load_average": load_average()}


def stage_postgres_load(c: Corpus) -> dict[str, Any]:
    import psycopg

    from abstain.stores import pg_embedded
    from abstain.stores.postgres import PostgresStore

    root = c.folder / "pg"

    def load() -> dict[str, Any]:
        import shutil

        if pg_embedded.running(root):
            pg_embedded.stop(root)
        shutil.rmtree(root, ignore_errors=True)
        url = pg_embedded.start(root).url()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET maintenance_work_mem = '{BUILD_MEMORY}'".encode())
            conn.execute("SELECT pg_reload_conf()")
        store = PostgresStore(url)
        t0 = time.perf_counter()  # one transaction; the indexes built once, after the rows
        report = store.write_documents(documents(c.vectors, c.texts, WS), INFO,
                                       rebuild_indexes=True)
        wall = time.perf_counter() - t0
        store.close()
        hnsw_s = report.seconds.get("index:chunks_embedding_hnsw", 0.0)
        return {"load_s": wall - hnsw_s, "load_rate": report.searchable / (wall - hnsw_s),
                "hnsw_s": hnsw_s, "phases": dict(report.seconds),
                "load_average": load_average()}

    loaded = done(c.folder, "postgres-load", load)
    url = pg_embedded.start(root).url()

    def build() -> dict[str, Any]:  # the graph was built by the load; the visibility map
        with psycopg.connect(url, autocommit=True) as conn:
            t0 = time.perf_counter()
            conn.execute("VACUUM ANALYZE chunks, chunk_terms")
            return {"index_s": loaded.get("hnsw_s", 0.0) + time.perf_counter() - t0,
                    "load_average": load_average()}

    return {**loaded, **done(c.folder, "postgres-index", build)}


def stage_postgres_measure(c: Corpus) -> dict[str, Any]:
    from abstain.stores import pg_embedded
    from abstain.stores.postgres import PostgresStore

    root = c.folder / "pg"
    store = PostgresStore(pg_embedded.start(root).url())
    result = measure(store, c, fused)
    store.close()
    return {**result, "disk_mb": disk_mb(root / "data")}


STAGES = {"sqlite-load": stage_sqlite_load, "sqlite-measure": stage_sqlite_measure,
          "floor": stage_floor, "postgres-load": stage_postgres_load,
          "postgres-measure": stage_postgres_measure}


def child(stage: str, args: argparse.Namespace) -> dict[str, Any]:
    """Run ``stage`` in a fresh process; its result is the last line it prints, kept in
    ``<corpus>/<stage>.result.json`` (``--report-only`` reads those instead)."""
    kept = args.data / f"corpus-{args.rows}" / f"{stage}.result.json"
    if args.report_only:
        return dict(json.loads(kept.read_text()))
    print(f"[{time.strftime('%H:%M:%S')}] {stage}… (load average {load_average()})", flush=True)
    cmd = [sys.executable, __file__, "--rows", str(args.rows), "--queries", str(args.queries),
           "--data", str(args.data), "--stage", stage]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    result = dict(json.loads(out.strip().splitlines()[-1]))
    kept.write_text(json.dumps(result))
    print(f"[{time.strftime('%H:%M:%S')}] {stage}: {result}", flush=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--data", type=Path, default=ROOT / ".data" / "scale",
                    help="where the corpus and the built stores are kept between runs")
    ap.add_argument("--postgres", action="store_true", help="also the PostgreSQL store")
    ap.add_argument("--no-sqlite", action="store_true", help="skip the SQLite store")
    ap.add_argument("--stage", choices=sorted(STAGES), help=argparse.SUPPRESS)
    ap.add_argument("--report-only", action="store_true",
                    help="the table from the results kept by the last run of each stage")
    ap.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = ap.parse_args()

    c = cached(args.rows, args.queries, args.data)
    if args.stage:
        print(json.dumps(STAGES[args.stage](c)), flush=True)
        return
    rows = []
    if not args.no_sqlite:
        rows.append({"store": "SQLite", **child("sqlite-load", args),
                     **child("sqlite-measure", args)})
    if args.postgres:
        rows.append({"store": "PostgreSQL", **child("postgres-load", args),
                     **child("postgres-measure", args)})
    floor = child("floor", args)
    report(args, rows, floor)


def report(args: argparse.Namespace, rows: list[dict[str, Any]], floor: dict[str, Any]) -> None:
    f50, f95 = floor["floor"]
    table = ["| store | load s | vector index s | hybrid p50 / p95 ms (× floor p50) "
             "| frequent word p50 / p95 ms | refusal p50 / p95 ms | recall@30 | keyword target@30 "
             "| RSS MB | disk MB | load average |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        h, w, f = r["hybrid"], r["worst"], r["refusal"]
        table.append(
            f"| {r['store']} | {r['load_s']:.0f} | {r['index_s']:.0f} | {h[0]:.1f} / {h[1]:.1f}"
            f" ({h[0] / f50:.2f}×) | {w[0]:.1f} / {w[1]:.1f} | {f[0]:.1f} / {f[1]:.1f} |"
            f" {r['recall']:.3f} | {r['keyword_target']:.2f} | {r['rss']:.0f} |"
            f" {r['disk_mb']:,.0f} | {r['load_average']} |")
    table.append(f"| exact floor (numpy + bm25s) | | | {f50:.1f} / {f95:.1f} | | | 1.000 |"
                 f" {floor['keyword_target']:.2f} | {floor['rss']:.0f} | | "
                 f"{floor['load_average']} |")
    text = "\n".join(table)
    print(text)
    if args.write:
        write_section(f"Scale: {args.rows:,} chunks", f"""
Machine: {machine()}, shared with other jobs (load average per row).
`nice -n 10 python bench/bench_scale.py --rows {args.rows}{' --postgres' if args.postgres else ''}
--write` ({args.queries} queries). Hybrid: both arms (top {K}), collapse, RRF, hydration of the
top 10, excluding the query embedding (PostgreSQL: `search_fused`, one statement); frequent
word: the keyword arm on a query led by the most frequent word; refusal: an off-topic
question through `Pipeline.ask`, including its MiniLM embedding. Recall@30 of the vector
arm against exact numpy search. RSS of the measuring process (store + embedder; the
PostgreSQL row: the client only); disk: database plus approximate index.

{text}
""")


if __name__ == "__main__":
    main()
