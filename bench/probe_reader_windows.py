"""Reading alone, without the gate: how well a reader file chooses the answering window and
tells answerable questions from near misses, on labelled questions of an ingested store.

For each answerable and near-miss question, every sentence window of the top five kept chunks
(the default pipeline's kept evidence) is read by the reader as its model reads it (plain, or
after the page title and headings for a model trained in context:
:func:`abstain.rerank.reading.as_read`). Per set it reports, for the answerable questions, how
often the best window holds an answer key (``read1``), one of the two best does (``read2``) and
any kept chunk does (``oracle``, the retrieval bound), and the AUROC of the best window's
P(answers) between answerable questions and near misses (``nm_auroc``).

    python bench/probe_reader_windows.py MODEL.onnx|shipped OUT.json DB:QUESTIONS.jsonl ...
    python bench/probe_reader_windows.py shipped /tmp/probe.json \\
        /tmp/userdocs/encode+uvicorn.db:data/userdocs/encode+uvicorn/questions.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from abstain import Pipeline, Settings
from abstain.evaluate.metrics import auroc
from abstain.evaluate.records import contains_key
from abstain.rerank.reader import OnnxReader, sigmoid
from abstain.rerank.reading import ANSWERS_HEAD, as_read
from abstain.rerank.windows import sentence_windows

KEPT = 5
"""Kept chunks whose windows are read."""


def probe(reader: OnnxReader, db: str, questions: Path) -> dict[str, Any]:
    """The counts and AUROC of one set."""
    out: dict[str, Any] = {"n": 0, "read1": 0, "read2": 0, "oracle": 0}
    scores: list[float] = []
    labels: list[bool] = []
    with Pipeline.from_settings(Settings(store=db), create_store=False) as pipe:
        for line in questions.read_text(encoding="utf-8").splitlines():
            q = json.loads(line) if line.strip() else {}
            if q.get("category") not in ("answerable", "near_miss"):
                continue
            trace = pipe.gate_question(q["question"], pipe.workspace)
            kept = list((trace.evidence or trace.retrieved)[:KEPT])
            pairs = [(w, as_read(reader, w, ev)) for ev in kept for w in sentence_windows(ev.text)]
            order: list[int] = []
            best = 0.0
            if pairs:
                logits = reader.logits([q["question"]] * len(pairs),
                                       [read for _, read in pairs])[:, ANSWERS_HEAD]
                order = [int(i) for i in np.argsort(-logits)]
                best = sigmoid(float(logits[order[0]]))
            scores.append(best)
            labels.append(q["category"] == "answerable")
            if q["category"] != "answerable":
                continue
            keys = q.get("answer_keys") or []

            def holds(text: str, keys: list[str] = keys) -> bool:
                return any(contains_key(text, k) for k in keys)

            out["n"] += 1
            out["oracle"] += any(holds(ev.text) for ev in kept)
            out["read1"] += bool(order) and holds(pairs[order[0]][0])
            out["read2"] += any(holds(pairs[i][0]) for i in order[:2])
    out["nm_auroc"] = round(float(auroc(np.array(scores), np.array(labels))), 3)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="an int8 reader file, or 'shipped'")
    parser.add_argument("out", type=Path, help="where the JSON goes")
    parser.add_argument("sets", nargs="+", help="DB:QUESTIONS.jsonl (an ingested store and its "
                        "labelled questions)")
    args = parser.parse_args()
    reader = OnnxReader() if args.model == "shipped" else OnnxReader(args.model)
    results: dict[str, Any] = {"model": args.model, "in_context": reader.in_context, "sets": {}}
    for spec in args.sets:
        db, questions = spec.split(":", 1)
        got = probe(reader, db, Path(questions))
        results["sets"][Path(db).stem] = got
        print(Path(db).stem, got, flush=True)
    answerable = [s for s in results["sets"].values() if s["n"]]
    results["all"] = {k: sum(s[k] for s in answerable) for k in ("n", "read1", "read2", "oracle")}
    results["all"]["nm_auroc_mean"] = round(
        float(np.mean([s["nm_auroc"] for s in answerable])), 3) if answerable else None
    args.out.write_text(json.dumps(results, indent=1))
    print(json.dumps(results["all"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
