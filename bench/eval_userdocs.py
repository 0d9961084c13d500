"""Answer precision and right-answer recall on the users' questions of real documentation
(data/userdocs), one row per set, through the real CLI.

    python bench/eval_userdocs.py [--role eval] [--dbs /tmp/userdocs] [-- extra eval flags]

Each set's kb/ is ingested once into DBS/<set>.db (kept for the next run); then
``abstain eval <set>/questions.jsonl --db … --json`` runs with the extra flags (``--reader``,
``--reader-model FILE`` …). Prints a Markdown table and writes the JSON of each run beside the
databases. ``eval`` sets are the projects no model or threshold was fitted on.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from abstain.train import userpairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", default="eval", help="eval, train or all [eval]")
    parser.add_argument("--dbs", default="/tmp/userdocs", help="where the stores are kept")
    parser.add_argument("--tag", default="default", help="name of this run's JSON files")
    parser.add_argument("extra", nargs="*", help="flags passed to abstain eval (after --)")
    args = parser.parse_args()
    dbs = Path(args.dbs)
    dbs.mkdir(parents=True, exist_ok=True)
    abstain = str(Path(sys.executable).with_name("abstain"))
    rows = []
    for folder in userpairs.sets(role=None if args.role == "all" else args.role):
        role = userpairs.source(folder).get("role")
        db = dbs / f"{folder.name}.db"
        if not db.exists():
            subprocess.run([abstain, "ingest", str(folder / "kb"), "--db", str(db)], check=True,
                           stdout=subprocess.DEVNULL)
        out = subprocess.run([abstain, "eval", str(folder / "questions.jsonl"), "--db", str(db),
                              "--json", *args.extra], check=True, capture_output=True, text=True)
        report = json.loads(out.stdout)
        (dbs / f"{folder.name}.{args.tag}.json").write_text(out.stdout)
        rows.append((folder.name, role, report))
    print("| set | role | answers given | right | answer precision | right-answer recall | "
          "near misses answered | made-up names answered | off-topic answered |")
    print("|---|---|---|---|---|---|---|---|---|")
    total = {"given": 0, "right": 0, "answerable": 0}
    for name, role, r in rows:
        by = r["answered_by_category"]
        counts = r["counts_by_category"]

        def share(cat: str, by: dict[str, float] = by, counts: dict[str, int] = counts) -> str:
            return f"{round(by.get(cat, 0.0) * counts[cat])}/{counts[cat]}" if cat in counts \
                else "–"

        print(f"| {name} | {role} | {r['answers_given']} | {r['right_answers']} | "
              f"{r['answer_precision']:.3f} | {r['right_answer_recall']:.3f} | "
              f"{share('near_miss')} | {share('unknown_entity')} | {share('off_topic')} |")
        total["given"] += r["answers_given"]
        total["right"] += r["right_answers"]
        total["answerable"] += r["answerable"]
    if rows:
        print(f"| all | | {total['given']} | {total['right']} | "
              f"{total['right'] / max(total['given'], 1):.3f} | "
              f"{total['right'] / max(total['answerable'], 1):.3f} | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
