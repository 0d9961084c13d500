"""What the quote check costs: for each question the default gate lets through, the default
extractive answer timed with and without its ``quote_reading`` check (the reader reads each
quoted sentence, and the quote of each page quoting several, in one batched call:
:meth:`abstain.generate.extractive.ExtractiveGenerator.read_back`) in one process, and how many
answers the check refused.

    abstain ingest ../shared/data/realdocs-dev/kb/click --db click.db
    python bench/bench_quote_reading.py click.db=../shared/data/realdocs-dev/questions-click.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from abstain import Pipeline, Settings
from abstain.generate.extractive import ExtractiveGenerator

RUNS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", help="DB=QUESTIONS.jsonl: a store and its questions")
    args = parser.parse_args()
    took: dict[bool, list[float]] = {True: [], False: []}
    refused = 0
    for pair in args.sets:
        db, questions = pair.split("=", 1)
        texts = [json.loads(line)["question"] for line in Path(questions).read_text().splitlines()
                 if line.strip()]
        with Pipeline.from_settings(Settings(store=db), create_store=False) as pipe:
            shipped = pipe.generator
            assert isinstance(shipped, ExtractiveGenerator) and shipped.min_quote_reading
            unchecked = ExtractiveGenerator(
                max_sentences=shipped.max_sentences, max_evidence=shipped.max_evidence,
                min_overlap=shipped.min_overlap, judge=shipped.judge,
                same_pages=shipped.same_pages, choice=shipped.choice)
            for text in texts:
                trace = pipe.gate_question(text, pipe.workspace)
                if trace.ended or trace.parsed is None:
                    continue
                question, evidence = trace.parsed, trace.evidence
                for checked, generator in ((True, shipped), (False, unchecked)):
                    generation = generator.generate(question, evidence)  # warm-up
                    runs = []
                    for _ in range(RUNS):
                        start = time.perf_counter()
                        generator.generate(question, evidence)
                        runs.append((time.perf_counter() - start) * 1000)
                    took[checked].append(statistics.median(runs))
                    if checked:
                        refused += generation.refusal is not None
    n = len(took[True])
    for checked in (False, True):
        t = sorted(took[checked])
        print(f"{'with' if checked else 'without'} the quote check: p50 "
              f"{statistics.median(t):.1f} ms, p95 {t[int(0.95 * (n - 1))]:.1f} ms")
    print(f"{n} questions let through; the check refused {refused}")


if __name__ == "__main__":
    main()
