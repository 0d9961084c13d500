"""What the reader's choice between quotes costs: for each question the reader-on gate lets
through, the extractive answer with and without the judge (the reader reading both quotes as
answers), timed in one process; and how often each quote was kept.

    abstain ingest ../shared/data/realdocs-dev/kb/click --db click.db
    python bench/bench_quote_choice.py click.db=../shared/data/realdocs-dev/questions-click.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path

from abstain import Pipeline, Settings
from abstain.generate.extractive import ExtractiveGenerator
from abstain.presets import Preset
from abstain.rerank.reader import shared_reader

RUNS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", help="DB=QUESTIONS.jsonl: a store and its questions")
    args = parser.parse_args()
    reader = shared_reader()
    plain, judged = ExtractiveGenerator(), ExtractiveGenerator(judge=reader)
    added: list[float] = []
    kept: Counter[str] = Counter()
    for pair in args.sets:
        db, questions = pair.split("=", 1)
        texts = [json.loads(line)["question"] for line in Path(questions).read_text().splitlines()
                 if line.strip()]
        with Pipeline.from_settings(Settings(store=db), create_store=False, reader=True,
                                    thresholds=Preset.BALANCED.thresholds(
                                        reading_decides=True)) as pipe:  # the reading decides
            for text in texts:
                trace = pipe.gate_question(text, pipe.workspace)
                if trace.ended or trace.parsed is None or not any(e.read for e in trace.evidence):
                    continue
                times = []
                for generator in (plain, judged):
                    generator.generate(trace.parsed, trace.evidence)  # warm-up
                    started = time.perf_counter()
                    for _ in range(RUNS):
                        generation = generator.generate(trace.parsed, trace.evidence)
                    times.append((time.perf_counter() - started) / RUNS)
                added.append((times[1] - times[0]) * 1000)
                notes = " ".join(generation.notes)
                kept["reader's" if "quoted the reader's" in notes
                     else "word overlap's" if "quoted word overlap's" in notes else "same"] += 1
    added.sort()
    print(json.dumps({"questions": len(added),
                      "added_ms_p50": round(statistics.median(added), 1) if added else None,
                      "added_ms_p95": round(added[int(0.95 * (len(added) - 1))], 1)
                      if added else None,
                      "kept": dict(kept)}, indent=2))


if __name__ == "__main__":
    main()
