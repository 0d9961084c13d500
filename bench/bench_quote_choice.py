"""What the quote choice costs: for each question the default gate lets through, the
extractive answer (:mod:`abstain.generate.choice`: every unit of the kept evidence described
and scored, no model call) timed in one process, and how many units it quotes.

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
    generator = ExtractiveGenerator()
    took: list[float] = []
    quoted: list[int] = []
    described: list[int] = []
    for pair in args.sets:
        db, questions = pair.split("=", 1)
        texts = [json.loads(line)["question"] for line in Path(questions).read_text().splitlines()
                 if line.strip()]
        with Pipeline.from_settings(Settings(store=db), create_store=False) as pipe:
            for text in texts:
                trace = pipe.gate_question(text, pipe.workspace)
                if trace.ended or trace.parsed is None:
                    continue
                question, evidence = trace.parsed, trace.evidence
                generation = generator.generate(question, evidence)  # warm-up
                runs = []
                for _ in range(RUNS):
                    start = time.perf_counter()
                    generator.generate(question, evidence)
                    runs.append((time.perf_counter() - start) * 1000)
                took.append(statistics.median(runs))
                quoted.append(len(generation.sentences))
                described.append(len(candidates(question, evidence[: generator.max_evidence])))
    took.sort()
    print(f"{len(took)} questions let through; the extractive answer with the quote choice: "
          f"p50 {statistics.median(took):.1f} ms, p95 {took[int(0.95 * (len(took) - 1))]:.1f} ms; "
          f"units described p50 {statistics.median(described):.0f}, quoted mean "
          f"{statistics.mean(quoted):.2f}")


if __name__ == "__main__":
    main()
