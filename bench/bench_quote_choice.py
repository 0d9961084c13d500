"""What the quote choice costs: for each question the default gate lets through, the
default extractive answer timed with and without the quote choice's unit
(:mod:`abstain.generate.choice`: every unit of the kept evidence described and scored, no model
call; ``add_chosen=False``) in one process, and how often a unit was added.

    abstain ingest ../shared/data/realdocs-dev/kb/click --db click.db
    python bench/bench_quote_choice.py click.db=../shared/data/realdocs-dev/questions-click.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from abstain import Pipeline, Settings
from abstain.generate.choice import candidates
from abstain.generate.extractive import ExtractiveGenerator

RUNS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", help="DB=QUESTIONS.jsonl: a store and its questions")
    args = parser.parse_args()
    took: dict[bool, list[float]] = {True: [], False: []}
    added = described = 0
    for pair in args.sets:
        db, questions = pair.split("=", 1)
        texts = [json.loads(line)["question"] for line in Path(questions).read_text().splitlines()
                 if line.strip()]
        with Pipeline.from_settings(Settings(store=db), create_store=False) as pipe:
            shipped = pipe.generator
            assert isinstance(shipped, ExtractiveGenerator)
            variants = {True: shipped, False: replace_generator(shipped)}
            for text in texts:
                trace = pipe.gate_question(text, pipe.workspace)
                if trace.ended or trace.parsed is None:
                    continue
                question, evidence = trace.parsed, trace.evidence
                for chosen, generator in variants.items():
                    generation = generator.generate(question, evidence)  # warm-up
                    runs = []
                    for _ in range(RUNS):
                        start = time.perf_counter()
                        generator.generate(question, evidence)
                        runs.append((time.perf_counter() - start) * 1000)
                    took[chosen].append(statistics.median(runs))
                    if chosen:
                        added += any("quote choice" in note for note in generation.notes)
                described += len(candidates(question, evidence[: shipped.max_evidence]))
    n = len(took[True])
    for chosen in (False, True):
        t = sorted(took[chosen])
        print(f"{'with' if chosen else 'without'} the quote choice: p50 {statistics.median(t):.1f} "
              f"ms, p95 {t[int(0.95 * (n - 1))]:.1f} ms")
    print(f"{n} questions let through; {described / n:.0f} units described per question; a unit "
          f"added to {added}")


def replace_generator(generator: ExtractiveGenerator) -> ExtractiveGenerator:
    """The same generator without the quote choice."""
    return ExtractiveGenerator(max_sentences=generator.max_sentences,
                               max_evidence=generator.max_evidence,
                               min_overlap=generator.min_overlap, judge=generator.judge,
                               same_pages=generator.same_pages, add_chosen=False)


if __name__ == "__main__":
    main()
