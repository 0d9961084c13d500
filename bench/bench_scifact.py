"""BEIR SciFact retrieval: nDCG@10 and recall@100 for vector-only, keyword-only and hybrid.

The 5,183 abstracts are ingested once (embedding takes ~10+ minutes on 2 cores; the store
is cached, so a second run only asks the 300 test claims). Each arm returns 300 chunks so
that at least 100 distinct abstracts are ranked; a document's rank is that of its best
chunk. Usage:

    nice -n 10 abstain eval --dataset scifact --db .data/eval/scifact-minilm.db \\
        --save-records bench/out/scifact-records.jsonl
    python bench/bench_scifact.py --records bench/out/scifact-records.jsonl
"""

from __future__ import annotations

import argparse

from abstain.evaluate.records import load_records
from abstain.evaluate.report import retrieval_metrics

ANCHORS = """\
| published / measured elsewhere (same 300 queries) | nDCG@10 | R@100 |
|---|---|---|
| BM25 multifield (anserini) | 0.665 | 0.908 |
| BM25 flat (anserini) | 0.679 | 0.925 |
| all-MiniLM-L6-v2 (MTEB) | 0.645 | 0.925 |
| hints: numpy exact (vector) | .647 | .922 |
| hints: bm25s, stemmed (keyword) | .686 | .913 |
| hints: RRF of the two (hybrid) | .716 | .948 |"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", required=True)
    args = ap.parse_args()
    records = load_records(args.records)
    m = retrieval_metrics(records)
    print(f"{m['questions']} queries with qrels\n")
    print("| abstain arm | nDCG@10 | R@1 | R@5 | R@10 | R@100 |")
    print("|---|---|---|---|---|---|")
    for arm in ("vector", "keyword", "hybrid"):
        r = m[arm]
        print(f"| {arm} | {r['ndcg@10']:.3f} | {r['recall@1']:.3f} | {r['recall@5']:.3f} | "
              f"{r['recall@10']:.3f} | {r['recall@100']:.3f} |")
    depth = sorted(len(r.rankings.get("vector", ())) for r in records)
    print(f"\ndistinct abstracts ranked per query (vector arm): min {depth[0]}, "
          f"median {depth[len(depth) // 2]}")
    lat = sorted(r.latency_ms for r in records)
    print(f"ask latency per claim (whole pipeline): p50 {lat[len(lat) // 2]:.0f} ms, "
          f"p95 {lat[int(len(lat) * 0.95)]:.0f} ms\n")
    print(ANCHORS)


if __name__ == "__main__":
    main()
