"""How often the answer-type check misfires on the sentence that does answer: for each
answerable question whose parsed answer type is a date, version, number or name, whether the
answering sentence carries that type (:meth:`abstain.align.AskedType.carried_by`), with no
retrieval and no model.

    python bench/answer_type_misfires.py [--examples 10]

Two kinds of text, neither of which the check's constants were tuned on:

* **prose**: SQuAD 2.0 *train* (``../shared/data/squad2-train-rebuilt``), the sentence of the
  paragraph that holds the first answer span;
* **documentation**: the users' questions of every ``train`` set of ``data/userdocs``, the
  sentences of their ``gold_answer`` (any one carrying the type counts).

A sentence that answers but does not carry the type is a misfire: the gate refuses such a
question ``answer_type_missing`` whatever the reader reads. The rate says nothing of near
misses (which have no answering sentence); ``bench/eval_typed_questions.py`` measures those
through the pipeline. docs/EVALUATION.md, "A year is a date in history too", has figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from collections import Counter, defaultdict
from pathlib import Path

from abstain.align import AskedType
from abstain.question import Question
from abstain.text import split_sentences
from abstain.train import userpairs

ROOT = Path(__file__).resolve().parents[1]
SQUAD_TRAIN = (ROOT.parent / "shared" / "data" / "squad2-train-rebuilt"
               / "train-v2.0.rebuilt.json.gz")


def answering_sentence(context: str, start: int) -> str:
    """The sentence of ``context`` (as :func:`abstain.text.split_sentences` cuts it) that holds
    character ``start``."""
    found, at = "", 0
    for sentence in split_sentences(context):
        where = context.find(sentence[:40], at)
        if where < 0:
            continue
        if where > start:
            break
        found, at = sentence, where + 1
    return found


def prose() -> list[tuple[str, str]]:
    """(question, answering sentence) of every answerable SQuAD 2.0 train question."""
    with gzip.open(SQUAD_TRAIN, "rt", encoding="utf-8") as fh:
        articles = json.load(fh)["data"]
    pairs = []
    for article in articles:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if qa.get("is_impossible") or not qa.get("answers"):
                    continue
                sentence = answering_sentence(paragraph["context"],
                                              int(qa["answers"][0]["answer_start"]))
                pairs.append((qa["question"], sentence))
    return pairs


def documentation() -> list[tuple[str, str]]:
    """(question, gold answer) of every answerable users' question of the train sets."""
    pairs = []
    for folder in userpairs.sets(ROOT / "data" / "userdocs"):
        if userpairs.source(folder).get("role") != "train":
            continue
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("category") == "answerable" and row.get("gold_answer"):
                pairs.append((row["question"], row["gold_answer"]))
    return pairs


def misfires(pairs: list[tuple[str, str]], examples: int, name: str) -> None:
    counts: Counter[tuple[str, bool]] = Counter()
    missed: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for question, text in pairs:
        asked = AskedType.of(Question.parse(question))
        if asked is None:
            continue
        carried = any(asked.carried_by(s) for s in split_sentences(text))
        counts[(asked.expected.value, carried)] += 1
        if not carried:
            missed[asked.expected.value].append((question, text))
    print(f"## {name} ({len(pairs):,} answerable questions)")
    print("| asked type | questions | answering text carries it | misfires |")
    print("|---|---|---|---|")
    for kind in sorted({k for k, _ in counts}):
        right, wrong = counts[(kind, True)], counts[(kind, False)]
        print(f"| {kind} | {right + wrong:,} | {right:,} | {wrong:,} "
              f"({wrong / (right + wrong):.1%}) |")
    draw = random.Random(0)
    for kind, rows in sorted(missed.items()):
        for question, text in draw.sample(rows, min(examples, len(rows))):
            print(f"  {kind}: {question!r} -> {text[:160]!r}")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=0,
                        help="print this many misfires of each type")
    args = parser.parse_args()
    if SQUAD_TRAIN.exists():
        misfires(prose(), args.examples, "prose: SQuAD 2.0 train")
    else:
        print(f"(no {SQUAD_TRAIN}: prose skipped)")
    misfires(documentation(), args.examples, "documentation: data/userdocs train sets")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
