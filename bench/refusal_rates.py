"""Count, per check, how many of the questions it refused the documents could have answered.

A refusal states the confidence P(answering would have been right)
(:mod:`abstain.stated_confidence`); for a refusal by a check other than the calibrated
confidence that is read from these counts. Record each domain once, then::

    abstain eval tests/data/sample_questions.jsonl --db kb.db --save-records sample.jsonl
    python bench/refusal_rates.py sample=sample.jsonl click=click.jsonl \\
        sqlite-utils=sqlite-utils.jsonl --write src/abstain/data/refusal_rates.json

For each refused question the deciding check is the first failing check whose reason is the
refusal's; "could have answered" is the label (``expected: answer``), an upper bound on
"answering would have been right".
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from abstain.evaluate.records import QuestionRecord, load_records


def deciding_check(record: QuestionRecord) -> str:
    failing = [c for c in record.checks if not c.passed]
    chosen = next((c for c in failing if record.reason in (c.reason, c.name)), None)
    return (chosen or failing[0]).name if failing else str(record.reason)


def counts(records: list[QuestionRecord]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        if r.answered or r.error is not None:
            continue
        name = deciding_check(r)
        out[name][0] += int(r.should_answer)
        out[name][1] += 1
    return dict(sorted(out.items()))


def recorded(runs: list[str]) -> dict[str, list[QuestionRecord]]:
    """NAME=FILE arguments: each domain's recorded questions."""
    out = {}
    for run in runs:
        name, _, path = run.partition("=")
        out[name] = load_records(path)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=FILE")
    parser.add_argument("--write", metavar="FILE", help="Write the counts as JSON.")
    args = parser.parse_args()
    domains = {}
    for name, records in recorded(args.runs).items():
        domains[name] = counts(records)
        print(name, {k: f"{a}/{n}" for k, (a, n) in domains[name].items()})
    payload = {"description": "Per domain and deciding check: [questions the documents could "
                              "answer, questions refused]; written by bench/refusal_rates.py.",
               "domains": domains}
    if args.write:
        Path(args.write).write_text(json.dumps(payload, indent=1) + "\n")
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
