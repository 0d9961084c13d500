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

from _common import answer_ms, let_through, p50_p95, variant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", help="DB=QUESTIONS.jsonl: a store and its questions")
    args = parser.parse_args()
    took: dict[bool, list[float]] = {True: [], False: []}
    refused = 0
    for shipped, question, evidence in let_through(args.sets):
        assert shipped.min_quote_reading
        unchecked = variant(shipped, min_quote_reading=None)
        for checked, generator in ((True, shipped), (False, unchecked)):
            ms, generation = answer_ms(generator, question, evidence)
            took[checked].append(ms)
            if checked:
                refused += generation.refusal is not None
    for checked in (False, True):
        print(p50_p95(f"{'with' if checked else 'without'} the quote check", took[checked]))
    print(f"{len(took[True])} questions let through; the check refused {refused}")


if __name__ == "__main__":
    main()
