"""What the query log costs per question: Pipeline.observe with the log on vs off, and whole
asks (off and on interleaved, so machine noise hits both alike). The 60 labelled sample
questions over the sample corpus, MiniLM int8, SQLite. Usage:

    python bench/bench_query_log.py [--db sample.db] [--rounds 3] [--write]

Without --db the sample corpus is ingested into a temporary database first (~1 min).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from _common import ROOT, machine, percentiles, write_section

from abstain.embed import load_embedder
from abstain.pipeline import Pipeline
from abstain.querylog import LogSettings, open_log
from abstain.stores.sqlite import SQLiteStore

QUESTIONS = ROOT / "tests" / "data" / "sample_questions.jsonl"
CORPUS = ROOT / "src" / "abstain" / "sample_corpus"


def run(db: str, rounds: int) -> dict[str, tuple[float, float]]:
    import time

    questions = [json.loads(line)["question"] for line in QUESTIONS.open()]
    out: dict[str, tuple[float, float]] = {}
    with Pipeline(SQLiteStore(db), load_embedder()) as pipe:
        qlog = open_log(pipe.store)
        qlog.configure(LogSettings(enabled=False))
        answers = [pipe.ask(q) for q in questions]
        for on in (False, True):
            qlog.configure(LogSettings(enabled=on, retention_days=90))
            samples = []
            for _ in range(rounds):
                for answer in answers:
                    t0 = time.perf_counter()
                    pipe.observe(answer)
                    samples.append((time.perf_counter() - t0) * 1000)
            out[f"observe, log {'on' if on else 'off'}"] = percentiles(samples)
        asks: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(rounds):
            for q in questions:
                for on in (True, False):
                    qlog.configure(LogSettings(enabled=on, retention_days=90))
                    t0 = time.perf_counter()
                    pipe.ask(q)
                    asks[on].append((time.perf_counter() - t0) * 1000)
        for on in (False, True):
            out[f"whole ask, log {'on' if on else 'off'}"] = percentiles(asks[on])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", help="a copy of a sample-corpus database (it gets log entries)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            db = str(Path(tmp) / "sample.db")
            with Pipeline(SQLiteStore(db), load_embedder()) as pipe:
                pipe.ingest([CORPUS])
        rows = run(db, args.rounds)
    n = 60 * args.rounds
    body = [f"`python bench/bench_query_log.py --rounds {args.rounds}` — {machine()}; "
            f"{n} samples per row (the 60 sample questions × {args.rounds}).", "",
            "| what | p50 ms | p95 ms |", "|---|---|---|"]
    body += [f"| {name} | {p50:.2f} | {p95:.2f} |" for name, (p50, p95) in rows.items()]
    body += ["", "`observe` is the log's own cost (settings read, entry built, one INSERT in WAL "
             "mode). Whole asks carry the noise of a shared "
             "machine: run it more than once before reading the on–off difference."]
    text = "\n".join(body)
    print(text)
    if args.write:
        write_section("Query log overhead", text)


if __name__ == "__main__":
    main()
