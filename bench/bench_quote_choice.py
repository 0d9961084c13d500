"""What the quote choice costs: for each question the default gate lets through, the
default extractive answer timed with and without the quote choice's unit
(:mod:`abstain.generate.choice`: every unit of the kept evidence described and scored, no model
call; ``add_chosen=False``, the quote check kept in both) in one process, and how often a unit
was added.

    abstain ingest ../shared/data/realdocs-dev/kb/click --db click.db
    python bench/bench_quote_choice.py click.db=../shared/data/realdocs-dev/questions-click.jsonl
"""

from __future__ import annotations

from _common import answer_ms, let_through, p50_p95, store_sets, variant

from abstain.generate.choice import candidates


def main() -> None:
    took: dict[bool, list[float]] = {True: [], False: []}
    added = described = 0
    for shipped, question, evidence in let_through(store_sets(__doc__)):
        for chosen, generator in ((True, shipped), (False, variant(shipped, add_chosen=False))):
            ms, generation = answer_ms(generator, question, evidence)
            took[chosen].append(ms)
            if chosen:
                added += any("quote choice" in note for note in generation.notes)
        described += len(candidates(question, evidence[: shipped.max_evidence]))
    n = len(took[True])
    for chosen in (False, True):
        print(p50_p95(f"{'with' if chosen else 'without'} the quote choice", took[chosen]))
    print(f"{n} questions let through; {described / n:.0f} units described per question; a unit "
          f"added to {added}")


if __name__ == "__main__":
    main()
