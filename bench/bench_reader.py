"""The reading-level model: speed, end to end on held-out SQuAD articles, SciFact reranking.

    python bench/bench_reader.py speed
    python bench/bench_reader.py squad --limit 300       # per category (answerable, near_miss)
    python bench/bench_reader.py scifact --limit 100     # claims; first stage as noted
    python bench/bench_reader.py write                   # docs/BENCHMARKS.md from the JSONs

Results go to ``.data/reader/bench/*.json``. The SQuAD collection is the paragraphs of the
even-indexed articles, which the shipped model never saw (it trained on the odd ones).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from _common import ROOT, data_dir, machine, percentiles, write_section

from abstain.rerank.reader import OnnxReader

OUT = ROOT / ".data" / "reader" / "bench"
THRESHOLDS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def speed(model: str | None) -> dict[str, Any]:
    from abstain.rerank.windows import sentence_windows
    from abstain.train import evaluate

    reader = OnnxReader(model, threads=2)
    questions = evaluate.heldout_questions(data_dir(), 64, seed=1)
    pairs = [(q.text, sentence_windows(q.context)[0]) for q in questions] * 4
    reader.logits(*zip(*pairs[:32], strict=True))  # warm up
    started = time.perf_counter()
    reader.logits(*zip(*pairs, strict=True))
    rate = len(pairs) / (time.perf_counter() - started)
    single = OnnxReader(model, threads=1)
    cpu = time.process_time()
    single.logits(*zip(*pairs, strict=True))
    per_cpu_s = len(pairs) / (time.process_time() - cpu)
    passages = [q.context for q in questions[:10]]
    sentences = [sentence_windows(q.context)[0] for q in questions[:10]]
    result: dict[str, Any] = {"pairs_per_s": round(rate, 1), "machine": machine(),
                              "pairs_per_cpu_s_one_thread": round(per_cpu_s, 1),
                              "load_average_1min": round(os.getloadavg()[0], 2)}
    for name, texts in (("paragraphs", passages), ("sentences", sentences)):
        samples = []
        for q in questions[:20]:
            t0 = time.perf_counter()
            reader.score(q.text, texts)
            samples.append((time.perf_counter() - t0) * 1000)
        p50, p95 = percentiles(samples)
        windows = sum(len(sentence_windows(t)) for t in texts)
        result[f"latency_10_{name}_ms"] = {"p50": round(p50, 1), "p95": round(p95, 1),
                                           "windows": windows}
    return result


def squad(limit: int, seed: int, model: str | None) -> dict[str, Any]:
    from abstain.embed.minilm import MiniLMEmbedder
    from abstain.evaluate.loaders import load_squad2
    from abstain.evaluate.runner import ingest_collection
    from abstain.pipeline import PRESETS, Pipeline
    from abstain.stores.sqlite import SQLiteStore
    from abstain.train.evaluate import auroc

    ds = load_squad2(data_dir())
    rng = random.Random(seed)
    chosen = []
    for category in ("answerable", "near_miss"):
        items = [q for q in ds.questions if q.category == category]
        chosen += rng.sample(items, min(limit, len(items)))
    OUT.mkdir(parents=True, exist_ok=True)
    embedder = MiniLMEmbedder()
    runs: dict[str, list[dict[str, Any]]] = {}
    reader = OnnxReader(model) if model else True
    for name, kwargs in (("off", {}),
                         ("reader", {"reader": reader, "answerability_threshold": 0.0})):
        store = SQLiteStore(OUT / "squad2-even.db")
        with Pipeline(store, embedder, thresholds=PRESETS["balanced"], **kwargs) as pipe:
            ingest_collection(pipe, ds.collection)
            rows = []
            for item in chosen:
                answer = pipe.ask(item.question)
                score = next((c.value for c in answer.checks if c.name == "rule:answerability"),
                             None)
                rows.append({"category": item.category, "answered": answer.answered,
                             "best_cosine": answer.features.get("best_cosine"),
                             "reason": answer.refusal.reason if answer.refusal else None,
                             "score": score, "rerank_ms": answer.timings_ms.get("rerank_ms"),
                             "total_ms": answer.timings_ms.get("total_ms")})
            runs[name] = rows
    result: dict[str, Any] = {"questions_per_category": limit, "seed": seed,
                              "off": _rates(runs["off"], 0.0)}
    result["reader"] = {f"{t:.1f}": _rates(runs["reader"], t) for t in THRESHOLDS}
    scored = [r for r in runs["reader"] if isinstance(r["score"], float)]
    result["answerability_auroc_retrieved"] = round(auroc(
        [r["category"] == "answerable" for r in scored], [r["score"] for r in scored]), 4)
    off = [r for r in runs["off"] if r["best_cosine"] is not None]
    result["best_cosine_auroc_retrieved"] = round(auroc(
        [r["category"] == "answerable" for r in off], [r["best_cosine"] for r in off]), 4)
    ms = [r["rerank_ms"] for r in runs["reader"] if r["rerank_ms"] is not None]
    p50, p95 = percentiles(ms)
    result["rerank_ms"] = {"p50": round(p50, 1), "p95": round(p95, 1)}
    result["total_ms_median"] = {k: round(statistics.median(r["total_ms"] for r in v), 1)
                                 for k, v in runs.items()}
    return result


def _rates(rows: list[dict[str, Any]], threshold: float) -> dict[str, float]:
    def share(category: str) -> float:
        group = [r for r in rows if r["category"] == category]
        hits = [r for r in group if r["answered"]
                and (r["score"] is None or r["score"] >= threshold)]
        return round(len(hits) / max(1, len(group)), 4)

    return {"answerable_answered": share("answerable"), "near_miss_answered": share("near_miss")}


def scifact(limit: int, seed: int, model: str | None, depth: int = 30) -> dict[str, Any]:
    """nDCG@10 of the first stage and after reranking its top ``depth``.

    First stage: the hybrid retrieval of the SciFact store that ``abstain eval --dataset
    scifact`` caches in ``.data/eval/scifact-minilm.db`` (copied, never written), else a BM25
    (k1 0.9, b 0.4, title + text) computed here.
    """
    import gzip
    import shutil

    from abstain.evaluate.loaders import load_scifact
    from abstain.evaluate.metrics import ndcg_at_k

    ds = load_scifact(data_dir())
    with gzip.open(data_dir() / "beir-scifact" / "corpus.jsonl.gz", "rt") as fh:
        rows = [json.loads(line) for line in fh]
    text_of = {str(r["_id"]): f"{r['title']}. {r['text']}" for r in rows}
    questions = list(ds.questions)
    if limit < len(questions):
        questions = random.Random(seed).sample(questions, limit)
    cached = ROOT / ".data" / "eval" / "scifact-minilm.db"
    if cached.exists():
        from abstain.config import RetrievalConfig
        from abstain.embed.minilm import MiniLMEmbedder
        from abstain.pipeline import Pipeline
        from abstain.stores.sqlite import SQLiteStore

        copy = OUT / "scifact-hybrid.db"
        shutil.copyfile(cached, copy)
        pipe = Pipeline(SQLiteStore(copy), MiniLMEmbedder(), workspace="scifact",
                        retrieval=RetrievalConfig(candidates=100, top_k=depth))
        name = "hybrid (MiniLM + FTS5 BM25, RRF; the cached eval store)"

        def first_stage(claim: str) -> list[str]:
            return list(dict.fromkeys(e.source for e in pipe.search(claim).evidence))
    else:
        from abstain.train.scifact import BM25

        ids = list(text_of)
        index = BM25([text_of[i] for i in ids])
        name = "BM25 (title + text)"

        def first_stage(claim: str) -> list[str]:
            return [ids[i] for i in index.top(claim, depth)]
    reader = OnnxReader(model, max_windows=12)
    first, second, fused = [], [], []
    for q in questions:
        top = first_stage(q.question)[:depth]
        first.append(ndcg_at_k(top, q.gold_sources))
        scores = reader.score(q.question, [text_of[d] for d in top])
        order = sorted(range(len(top)), key=lambda j: (-scores[j], j))
        second.append(ndcg_at_k([top[j] for j in order], q.gold_sources))
        rank = {j: r for r, j in enumerate(order)}
        rrf = sorted(range(len(top)), key=lambda j: -(1 / (61 + j) + 1 / (61 + rank[j])))
        fused.append(ndcg_at_k([top[j] for j in rrf], q.gold_sources))
    return {"queries": len(questions), "first_stage": name, "depth": depth,
            "ndcg10_first_stage": round(statistics.fmean(first), 4),
            "ndcg10_reranked": round(statistics.fmean(second), 4),
            "ndcg10_rrf_first_stage_and_reader": round(statistics.fmean(fused), 4)}


def model_metrics(model: str | None) -> dict[str, Any]:
    from abstain.rerank.reader import model_file
    from abstain.train.report import measure

    return measure(data_dir(), Path(model) if model else model_file())


def write() -> None:
    r = {p.stem: json.loads(p.read_text()) for p in sorted(OUT.glob("*.json"))}
    lines = ["The shipped `reader-minilm-int8.onnx` (docs/MODEL_CARD.md), measured by "
             "`python bench/bench_reader.py model|speed|squad|scifact` on data it never saw "
             f"({machine()}, shared with other jobs, so times are pessimistic).", ""]
    notes: list[str] = []
    if "model" in r:
        m = r["model"]
        lines += ["| measure | value | goal / anchor |", "|---|---|---|",
                  f"| SQuAD 2.0 near-miss AUROC (held-out articles, own paragraph, "
                  f"{m['n']} questions) | {m['near_miss_auroc']} | ≥ 0.85; MiniLM cosine(question, "
                  "own paragraph) on the same questions 0.596; issue's anchors: top cosine "
                  "0.649, first attempt 0.64 |",
                  f"| QAGS sentence support AUROC (CNN/DM + XSum) | {m['qags_auroc']} | — |",
                  f"| QAGS CNN/DM AUROC / XSum AUROC | {m['qags_cnndm_auroc']} / "
                  f"{m['qags_xsum_auroc']} | lexical verifier 0.668 / 0.648 (section above) |",
                  f"| QAGS balanced accuracy at p = 0.5 (CNN/DM / XSum) | {m['qags_bacc']} "
                  f"({m['qags_cnndm_bacc']} / {m['qags_xsum_bacc']}) | — |"]
    if "speed" in r:
        sp = r["speed"]
        par, sen = sp["latency_10_paragraphs_ms"], sp["latency_10_sentences_ms"]
        lines += [f"| throughput, (question, sentence) pairs, 2 threads, wall clock | "
                  f"{sp['pairs_per_s']} pairs/s (load {sp['load_average_1min']}) | ≥ 100 |",
                  f"| … one thread, per CPU-second (load-independent) | "
                  f"{sp['pairs_per_cpu_s_one_thread']} pairs/s | — |",
                  f"| latency, 10 SQuAD paragraphs ({par['windows']} windows) | p50 "
                  f"{par['p50']} ms, p95 {par['p95']} ms | ≤ 60 ms |",
                  f"| latency, 10 single sentences | p50 {sen['p50']} ms, p95 {sen['p95']} ms "
                  "| ≤ 60 ms |"]
    if "scifact" in r:
        sf = r["scifact"]
        lines += [f"| BEIR SciFact nDCG@10, first stage ({sf['queries']} claims) | "
                  f"{sf['ndcg10_first_stage']} | BM25 0.665–0.679; hybrid 0.714 (300) |",
                  f"| … reranked top {sf['depth']} by the reader | {sf['ndcg10_reranked']} | "
                  "≥ 0.74 (bge-base 0.741) |",
                  f"| … RRF of BM25 rank and reader rank | "
                  f"{sf['ndcg10_rrf_first_stage_and_reader']} | — |"]
        notes.append(f"SciFact: first stage {sf['first_stage']}, on a seeded sample of "
                     f"{sf['queries']} of the 300 test claims (each claim costs 30 abstracts × up "
                     "to 12 windows). The earlier run with a BM25 first stage computed here "
                     "gave 0.708 → 0.458 (reranked) / 0.647 (RRF) on the same sample.")
    if "squad" in r:
        sq = r["squad"]
        lines += ["", f"End to end through `Pipeline.ask` (balanced preset, extractive "
                  f"answerer), {sq['questions_per_category']} answerable and "
                  f"{sq['questions_per_category']} near-miss questions of the held-out "
                  "articles against their collection; `reader` = rerank top 10 + "
                  "answerability check at the threshold:", "",
                  "| configuration | answerable answered | near-miss answered |", "|---|---|---|",
                  f"| reader off | {sq['off']['answerable_answered']:.1%} | "
                  f"{sq['off']['near_miss_answered']:.1%} |"]
        for t, rates in sq["reader"].items():
            lines.append(f"| reader, threshold {t} | {rates['answerable_answered']:.1%} | "
                         f"{rates['near_miss_answered']:.1%} |")
        lines += ["", f"Answerability AUROC on retrieved evidence: "
                  f"{sq['answerability_auroc_retrieved']} (best cosine of the same retrievals: "
                  f"{sq['best_cosine_auroc_retrieved']}); rerank + answerability time per "
                  f"question p50 {sq['rerank_ms']['p50']} ms, p95 {sq['rerank_ms']['p95']} ms. "
                  "Goal: near-miss ≤ 15 % answered at ≥ 85 % answerable; the seeds' best gate: "
                  "72 % at 86 %."]
    if "speed" in r:
        notes.append("Speed: the machine was shared; the same script gave 42–119 pairs/s and "
                     "p50 106–317 ms for 10 sentences across five runs within minutes. The "
                     "per-CPU-second figure does not depend on the load. Latency grows with the "
                     "number of sentence windows (a 600-character chunk is 4–6 windows).")
    for note in notes:
        lines += ["", note]
    write_section("Reading-level model", "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["model", "speed", "squad", "scifact", "write"])
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=None, help="an .onnx file (default: the shipped one)")
    parser.add_argument("--tag", default="", help="saved as WHAT-TAG.json (a model compared, "
                        "not the shipped one; `write` reads only the untagged files)")
    args = parser.parse_args()
    if args.what == "write":
        write()
        return
    OUT.mkdir(parents=True, exist_ok=True)
    if args.what == "model":
        result = model_metrics(args.model)
    elif args.what == "speed":
        result = speed(args.model)
    elif args.what == "squad":
        result = squad(args.limit, args.seed, args.model)
    else:
        result = scifact(args.limit, args.seed, args.model)
    (OUT / f"{args.what}{'-' + args.tag if args.tag else ''}.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
