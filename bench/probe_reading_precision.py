"""Can reading decide answer precision? For every question the default pipeline (reader off)
answers, read the kept evidence and the answer with a reader file, and replay three rules on
top of the default gate, each threshold chosen leave-one-domain-out.

For each answered question: the word-overlap answer (the default's), the reader's own quote
of its best windows (``ExtractiveGenerator`` on the read evidence), whether each is right
(cites a gold source and holds an answer key, as ``abstain eval`` judges), and the reader's
P(answers) of the best window read (``p_best``), of the default answer's text (``p_quoted``)
and of the reader's quote (``p_own``). The rules:

* ``quoted``: refuse when the default answer's quoted text reads below t;
* ``best``: refuse when no read window of the kept evidence reads at t or above;
* ``choose``: quote the reader's windows instead of word overlap's pick when the two differ
  and the reader's quote reads more than t above the default's.

A threshold is the grid point with the most right answers less ``--cost`` per wrong answer
given (per answerable question, averaged over the domains it is fitted on), as
``bench/fit_reading_gate.py`` chooses; each domain is reported at the threshold fitted on the
others. Questions the default gate refuses stay refused. A ``--judge`` domain (a benchmark)
fits nothing: it is judged at the thresholds fitted on all the others.

    abstain eval questions-click.jsonl --db c.db --save-records click.jsonl   # reader off
    python bench/probe_reading_precision.py click=click.jsonl:c.db \\
        sqlite-utils=su.jsonl:su.db squad2cal=cal.jsonl:cal.db:squad2-calibration \\
        --reader src/abstain/data/reader-minilm-int8.onnx --out rows.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from abstain import Pipeline, Settings
from abstain.evaluate.metrics import auroc
from abstain.evaluate.records import (
    QuestionRecord,
    contains_answer,
    contains_key,
    is_gold,
    load_records,
)
from abstain.evidence import Evidence
from abstain.generate.extractive import ExtractiveGenerator
from abstain.records import Generation
from abstain.rerank.reader import OnnxReader, sigmoid
from abstain.rerank.reading import read_evidence

GRIDS = {"quoted": [round(x, 3) for x in np.arange(0.0, 0.701, 0.025)],
         "best": [round(x, 3) for x in np.arange(0.0, 0.701, 0.025)],
         "choose": [round(x, 3) for x in np.arange(-0.2, 0.601, 0.05)]}


@dataclass(frozen=True)
class Row:
    category: str
    should_answer: bool
    right: bool
    own_right: bool
    same: bool
    p_best: float
    p_quoted: float
    p_own: float


def is_right(record: QuestionRecord, generation: Generation,
             evidence: Sequence[Evidence]) -> bool:
    """As ``QuestionRecord.correct``, for a generation over ``evidence``."""
    item = record.item
    if not item.should_answer:
        return False
    text = " ".join(s.text for s in generation.sentences)
    cited = {evidence[n - 1].source for s in generation.sentences for n in s.cites}
    if item.gold_sources and not any(is_gold(s, item.gold_sources) for s in cited):
        return False
    if item.answer_keys:
        return any(contains_key(text, k) for k in item.answer_keys)
    return contains_answer(text, item.gold_answer) if item.gold_answer else bool(text)


def probe(records: list[QuestionRecord], db: str, workspace: str,
          reader: OnnxReader) -> list[Row]:
    generator = ExtractiveGenerator()
    rows = []
    with Pipeline.from_settings(Settings(store=db, workspace=workspace),
                                create_store=False) as pipe:
        for record in records:
            if not record.answered:
                continue
            trace = pipe.gate_question(record.item.question, workspace)
            question, evidence = trace.parsed, trace.evidence
            assert question is not None
            default = generator.generate(question, evidence)
            reading = read_evidence(reader, question, evidence)
            if reading is None:
                continue
            read = reading.annotate(evidence)
            own = generator.generate(question, read)
            texts = [" ".join(s.text for s in g.sentences) or "." for g in (default, own)]
            logits = reader.logits([question.text] * 2, texts)[:, 0]
            rows.append(Row(record.item.category, record.should_answer,
                            is_right(record, default, evidence), is_right(record, own, read),
                            texts[0] == texts[1], reading.answerability,
                            sigmoid(float(logits[0])), sigmoid(float(logits[1]))))
    return rows


def outcome(rows: list[Row], rule: str, t: float, answerable: int,
            near_misses: int) -> dict[str, float]:
    right = given = near = 0
    for r in rows:
        ok = r.right
        if (rule == "quoted" and r.p_quoted < t) or (rule == "best" and r.p_best < t):
            continue
        if rule == "choose" and not r.same and r.p_own > r.p_quoted + t:
            ok = r.own_right
        given += 1
        right += ok
        near += r.category == "near_miss"
    return {"right": right, "given": given,
            "precision": round(right / given, 3) if given else 1.0,
            "recall": round(right / max(1, answerable), 3),
            "near_miss": round(near / near_misses, 3) if near_misses else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("domains", nargs="+",
                        help="NAME=RECORDS:DB[:WORKSPACE], RECORDS a default run's records")
    parser.add_argument("--reader", default=None, help="the int8 reader file (default: shipped)")
    parser.add_argument("--judge", action="append", default=[],
                        help="NAME=RECORDS:DB[:WORKSPACE] judged only, at the thresholds "
                             "fitted on all the domains")
    parser.add_argument("--cost", type=float, default=4.0)
    parser.add_argument("--out", default=None, help="write the per-question rows here (JSON)")
    args = parser.parse_args()
    reader = OnnxReader(args.reader, threads=2)
    data: dict[str, tuple[list[Row], int, int]] = {}
    for spec in [*args.domains, *args.judge]:
        name, _, rest = spec.partition("=")
        path, db, *ws = rest.split(":")
        records = [r for r in load_records(path) if r.error is None]
        rows = probe(records, db, ws[0] if ws else "default", reader)
        data[name] = (rows, sum(r.should_answer for r in records),
                      sum(r.item.category == "near_miss" for r in records))
    if args.out:
        Path(args.out).write_text(json.dumps(
            {n: [r.__dict__ for r in rows] for n, (rows, _, _) in data.items()}, indent=1))

    fitted_on = [s.partition("=")[0] for s in args.domains]
    judged = [s.partition("=")[0] for s in args.judge]

    def utility(name: str, rule: str, t: float) -> float:
        rows, answerable, near = data[name]
        o = outcome(rows, rule, t, answerable, near)
        return (o["right"] - args.cost * (o["given"] - o["right"])) / max(1, answerable)

    summary: dict[str, Any] = {"reader": args.reader or "shipped", "cost": args.cost,
                               "separation": {}, "rules": {}}
    for name, (rows, answerable, near) in data.items():
        summary["separation"][name] = {
            "answered": len(rows), "right": sum(r.right for r in rows),
            **{f"auroc_{s}": round(auroc([getattr(r, s) for r in rows],
                                         [r.right for r in rows]), 3)
               for s in ("p_best", "p_quoted")},
            "default": outcome(rows, "none", 0.0, answerable, near)}
    for rule, grid in GRIDS.items():
        held: dict[str, Any] = {}
        for left in [*fitted_on, *judged]:
            others = [n for n in fitted_on if n != left]
            t = max(grid, key=lambda t: float(np.mean([utility(n, rule, t) for n in others])))
            rows, answerable, near = data[left]
            held[left] = {"t": t, **outcome(rows, rule, t, answerable, near)}
        summary["rules"][rule] = held
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
