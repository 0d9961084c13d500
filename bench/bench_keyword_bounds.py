"""The keyword arm's bound (``abstain.stores.keyword_bounds``) on BEIR SciFact: ranking kept.

Indexes the 5,183 abstracts in a SQLite store (one chunk each, title as heading, no
embedding: the vectors are placeholders) and ranks the 300 test claims with the keyword
arm alone, three ways through FTS5: no bound, the shipped rule, and the rule forced on a
collection this small (``FREQUENT_MIN_ROWS = 0``: every term in more than 10% of the
abstracts dropped). Then the same through the keyword index that a store of 20,000 chunks
or more ranks with (``abstain.stores.sqlite_keywords``, forced: ``keyword_threshold = 0``).
Reports
keyword-only nDCG@10 and R@100 against the qrels. Usage:

    nice -n 10 python bench/bench_keyword_bounds.py [--postgres]

``--postgres``: the PostgreSQL store's keyword arm (rule 4, impact-ordered postings) on an
embedded server, at the shipped candidate sizes, twice and half of them.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import percentiles
from _common import postgres as throwaway_postgres

from abstain.evaluate.loaders import load_dataset
from abstain.evaluate.metrics import ndcg_at_k
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores import keyword_bounds
from abstain.stores.base import EmbedderInfo, Store
from abstain.stores.sqlite import SQLiteStore

EMB = EmbedderInfo("placeholder", 4)


def rank(store: Store, data: Any, source: dict[str, str], name: str) -> None:
    """One row: keyword-only nDCG@10, R@100 and latency of ``store`` on the 300 claims."""
    ndcg, recall, times = [], [], []
    for q in data.questions:
        t0 = time.perf_counter()
        hits = store.search_text(q.question, workspace="scifact", limit=300)
        times.append((time.perf_counter() - t0) * 1000)
        ranked = list(dict.fromkeys(source[h.chunk_id] for h in hits))
        ndcg.append(ndcg_at_k(ranked, set(q.gold_sources), 10))
        recall.append(len(set(ranked[:100]) & set(q.gold_sources)) / len(set(q.gold_sources)))
    p50, p95 = percentiles(times)
    print(f"| {name} | {np.mean(ndcg):.3f} | {np.mean(recall):.3f} | {p50:.1f} / {p95:.1f} |",
          flush=True)


def items(data: Any) -> list[tuple[Document, list[Chunk], np.ndarray]]:
    out = []
    for n, doc in enumerate(data.collection):
        d = Document(f"d{n}", "scifact", doc.source, doc.title or doc.source, f"h{n}")
        out.append((d, [Chunk(f"d{n}-c0", d.id, ChunkKind.CHILD, doc.text, 0, None, ())],
                    np.ones((1, 4), dtype=np.float32)))
    return out


def postgres(data: Any, source: dict[str, str]) -> None:
    """Rule 4 (impact-ordered postings) on a throw-away embedded server, at the shipped
    candidate sizes and at twice and half of them."""
    from abstain.stores.postgres import PostgresStore

    with throwaway_postgres(None, "abstain-kb-", fsync=False) as url:
        store = PostgresStore(url)
        loaded = items(data)
        for start in range(0, len(loaded), 500):
            store.write_documents(loaded[start:start + 500], EMB)
        best, storage = keyword_bounds.BEST_PER_TERM, keyword_bounds.STORAGE_BUDGET
        print("| PostgreSQL keyword arm | nDCG@10 | R@100 | p50 / p95 ms |\n|---|---|---|---|")
        for factor in (1.0, 2.0, 0.5):
            keyword_bounds.BEST_PER_TERM = int(best * factor)
            keyword_bounds.STORAGE_BUDGET = int(storage * factor)
            rank(store, data, source, f"rule 4: {keyword_bounds.BEST_PER_TERM} best rows a word,"
                 f" {keyword_bounds.STORAGE_BUDGET} prefix rows")
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--postgres", action="store_true",
                    help="the PostgreSQL store's keyword arm instead (an embedded server)")
    args = ap.parse_args()
    data = load_dataset("scifact")
    source = {f"d{n}-c0": doc.source for n, doc in enumerate(data.collection)}
    if args.postgres:
        postgres(data, source)
        return
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "scifact.db")
        for document, chunks, vectors in items(data):
            store.write_document(document, chunks, vectors, EMB)
        shipped = keyword_bounds.FREQUENT_MIN_ROWS
        modes = {"no bound": (10**12, 10**12), "shipped rule": (shipped, 10**12),
                 "rule forced (min rows 0)": (0, 10**12),
                 "keyword index (tantivy), as from 20,000 chunks": (shipped, 0),
                 "keyword index, rule forced (min rows 0)": (0, 0)}
        print("| keyword arm | nDCG@10 | R@100 | p50 / p95 ms |\n|---|---|---|---|")
        for name, (min_rows, threshold) in modes.items():
            keyword_bounds.FREQUENT_MIN_ROWS = min_rows
            store.keyword_threshold = threshold
            rank(store, data, source, name)
        store.close()


if __name__ == "__main__":
    main()
