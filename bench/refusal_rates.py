"""Count, per check, how many of the questions it refused answering would have got right.

A refusal states the confidence P(answering would have been right)
(:mod:`abstain.stated_confidence`); for a refusal by a check other than the calibrated
confidence that is read from these counts. Record each domain once with ``--answer-all`` (each
refused question then carries the answer the pipeline would have given), then::

    abstain eval tests/data/sample_questions.jsonl --db kb.db --answer-all \\
        --save-records sample.jsonl
    python bench/refusal_rates.py sample=sample.jsonl click=click.jsonl \\
        sqlite-utils=sqlite-utils.jsonl --write src/abstain/data/refusal_rates.json

In such a record the deciding check is the first failing check of the gate (or the extractive
answer's ``quote_reading``), the confidence's own aside, and "right" is the judged answer: the
record is right. A record saved without ``--answer-all`` has no answer for a refused question;
there the deciding check is the first failing check whose reason is the refusal's, and the
label (``expected: answer``, "the documents could answer") stands in, an upper bound.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from abstain.evaluate.answer_all import first_failing
from abstain.evaluate.records import QuestionRecord, load_records


def deciding_check(record: QuestionRecord) -> str:
    failing = [c for c in record.checks if not c.passed]
    chosen = next((c for c in failing if record.reason in (c.reason, c.name)), None)
    return (chosen or failing[0]).name if failing else str(record.reason)


def counts(records: list[QuestionRecord]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        if r.error is not None:
            continue
        failing = first_failing(r.checks, confidence=False)
        if failing is not None and (r.answered or r.reason not in (failing.reason, failing.name)):
            # an --answer-all record went on past the check: judged as the answer it gave
            name, right = failing.name, r.right
        elif not r.answered:
            name, right = deciding_check(r), r.should_answer
        else:
            continue
        out[name][0] += int(right)
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
    payload = {"description": "Per domain and deciding check: [refused questions answering would "
                              "have got right (the documents could answer, for a record without "
                              "--answer-all), questions refused]; written by "
                              "bench/refusal_rates.py.",
               "domains": domains}
    if args.write:
        Path(args.write).write_text(json.dumps(payload, indent=1) + "\n")
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
