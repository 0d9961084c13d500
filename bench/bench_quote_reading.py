"""What the quote check costs: for each question the default gate lets through, the default
extractive answer timed with and without its ``quote_reading`` check (the reader reads each
quoted sentence, and the quote of each page quoting several, in one batched call:
:meth:`abstain.generate.extractive.ExtractiveGenerator.read_back`) in one process, and how many
answers the check refused; and, beside them, without the reader's window added after the check
(:meth:`~abstain.generate.extractive.ExtractiveGenerator.with_the_best_window`, no model call).

    abstain ingest ../shared/data/realdocs-dev/kb/click --db click.db
    python bench/bench_quote_reading.py click.db=../shared/data/realdocs-dev/questions-click.jsonl
"""

from __future__ import annotations

from _common import answer_ms, let_through, p50_p95, store_sets, variant


def main() -> None:
    labels = ("without the quote check", "with the quote check (shipped)",
              "with the quote check, without the reader's window added")
    took: dict[str, list[float]] = {label: [] for label in labels}
    refused = added = 0
    for shipped, question, evidence in let_through(store_sets(__doc__)):
        assert shipped.min_quote_reading and shipped.add_best_window
        variants = (variant(shipped, min_quote_reading=None), shipped,
                    variant(shipped, add_best_window=False))
        for label, generator in zip(labels, variants, strict=True):
            ms, generation = answer_ms(generator, question, evidence)
            took[label].append(ms)
            if generator is shipped:
                refused += generation.refusal is not None
                added += any(n.startswith("added the reader's answering window")
                             for n in generation.notes)
    for label in labels:
        print(p50_p95(label, took[label]))
    print(f"{len(took[labels[0]])} questions let through; the check refused {refused}; "
          f"the reader's window was added to {added}")


if __name__ == "__main__":
    main()
