"""What reading on past the gate costs: for each question the default gate lets through, the
default extractive answer timed as shipped (``read_more``: six windows of the kept chunks read
beyond the gate's, :meth:`abstain.generate.extractive.ExtractiveGenerator.read_on`), without
it (``read_more=0``) and with twelve, in one process, and how often reading on added a window.

    abstain ingest ../shared/data/realdocs-dev/kb/click --db click.db
    python bench/bench_read_on.py click.db=../shared/data/realdocs-dev/questions-click.jsonl
"""

from __future__ import annotations

from _common import answer_ms, let_through, p50_p95, store_sets, variant

COUNTS = (0, 6, 12)


def main() -> None:
    took: dict[int, list[float]] = {n: [] for n in COUNTS}
    added = 0
    for shipped, question, evidence in let_through(store_sets(__doc__)):
        for n in COUNTS:
            ms, generation = answer_ms(variant(shipped, read_more=n), question, evidence)
            took[n].append(ms)
            if n == shipped.read_more:
                added += any("reading on" in note for note in generation.notes)
    for n in COUNTS:
        print(p50_p95(f"reading {n} more windows", took[n]))
    print(f"{added} of {len(took[0])} answers got a window by reading on")


if __name__ == "__main__":
    main()
