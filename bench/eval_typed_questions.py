"""Right and wrong answers to the questions that ask for one type of answer (a date, a
version, a number, a name) over every set of data/userdocs and the two realdocs-dev sets,
through the real pipeline, in one process.

    python bench/eval_typed_questions.py --types date,version [--dbs /tmp/userdocs]
    python bench/eval_typed_questions.py --types number --questions /tmp/typed-number

A question is chosen when its parsed answer type (:attr:`abstain.question.Question.answer_type`)
is one of ``--types``. With ``--questions DIR`` the chosen questions of each set are written
to DIR the first time and read from there after: a before / after comparison asks the same
questions of both checkouts (``PYTHONPATH=old/src python bench/eval_typed_questions.py …``),
chosen by the newer one's reading. Each set's kb/ is ingested once into DBS/<set>.db, as
``bench/eval_userdocs.py`` does (the first checkout to run ingests them; both then ask the same
stores). Prints, per role (``train``, ``eval``, ``dev``): answerable
questions answered right and wrong, answerable ones refused (of those ``answer_type_missing``)
and near misses answered. docs/EVALUATION.md, "A version asked is a version", has what it
measured.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from abstain.asked import AnswerType
from abstain.config import Settings
from abstain.evaluate.harness import RunSpec, execute
from abstain.evaluate.records import save_records
from abstain.question import Question
from abstain.train import userpairs

USERDOCS = Path(__file__).resolve().parents[1] / "data" / "userdocs"
"""This checkout's sets, also when another checkout's ``src`` is imported (``PYTHONPATH``)."""
REALDOCS = Path(__file__).resolve().parents[2] / "shared" / "data" / "realdocs-dev"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--types", required=True, help="answer types, comma-separated: date, "
                        "version, number, name")
    parser.add_argument("--dbs", default="/tmp/userdocs", help="where the stores are kept")
    parser.add_argument("--questions", type=Path, help="keep the chosen questions here")
    parser.add_argument("--records", type=Path, help="save each set's records here "
                        "(abstain eval --save-records format), to compare two runs question "
                        "by question")
    args = parser.parse_args()
    kinds = {kind.strip() for kind in args.types.split(",") if kind.strip()}
    unknown = kinds - {t.value for t in AnswerType}
    if unknown:
        parser.error(f"unknown answer types: {', '.join(sorted(unknown))} "
                     f"(known: {', '.join(t.value for t in AnswerType)})")
    dbs = Path(args.dbs)
    dbs.mkdir(parents=True, exist_ok=True)
    cli = str(Path(sys.executable).with_name("abstain"))
    sets = [(f.name, str(userpairs.source(f).get("role")), f / "questions.jsonl", f / "kb")
            for f in userpairs.sets(USERDOCS)]
    sets += [(name, "dev", REALDOCS / f"questions-{name}.jsonl", REALDOCS / "kb" / name)
             for name in ("click", "sqlite-utils") if (REALDOCS / "kb" / name).is_dir()]
    counts: Counter[tuple[str, str]] = Counter()
    for name, role, questions, kb in sets:
        chosen = _chosen(name, questions, kinds, args.questions)
        if not chosen.read_text(encoding="utf-8").strip():
            continue
        db = dbs / f"{name}.db"
        if not db.exists():
            subprocess.run([cli, "ingest", str(kb), "--db", str(db)], check=True,
                           stdout=subprocess.DEVNULL)
        run = execute(RunSpec(data=str(chosen), settings=Settings(store=str(db))),
                      progress=False)
        if args.records is not None:
            args.records.mkdir(parents=True, exist_ok=True)
            save_records(run.records, args.records / f"{name}.jsonl")
        for r in run.records:
            category = r.item.category
            if r.answered:
                counts[role, f"{category} {'right' if r.right else 'wrong'}"] += 1
            else:
                counts[role, f"{category} refused"] += 1
                if r.reason == "answer_type_missing":
                    counts[role, f"{category} refused answer_type_missing"] += 1
    for role in sorted({r for r, _ in counts}):
        print(f"## {role}")
        for (r, what), n in sorted(counts.items()):
            if r == role:
                print(f"  {what:45s} {n}")
    return 0


def _chosen(name: str, questions: Path, kinds: set[str], keep: Path | None) -> Path:
    """The set's questions of the asked types, as a JSONL file (kept under ``keep``)."""
    if keep is not None and (keep / f"{name}.jsonl").exists():
        return keep / f"{name}.jsonl"
    lines = [line for line in questions.read_text(encoding="utf-8").splitlines()
             if line.strip() and str(Question.parse(json.loads(line)["question"]).answer_type)
             in kinds]
    folder = keep or Path("/tmp/typed-questions")
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{name}.jsonl"
    out.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return out


if __name__ == "__main__":
    sys.exit(main())
