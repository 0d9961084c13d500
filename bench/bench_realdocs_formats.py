"""realdocs-dev sqlite-utils: the original reStructuredText + notebook against the Markdown copy.

The data set's Markdown copy (``kb/sqlite-utils``) was converted from ``docs/*.rst`` and
``docs/tutorial.ipynb`` of simonw/sqlite-utils at the commit its README names. This script
exports those original files from a local git mirror of the repository (``--git-dir``;
``git archive``, nothing converted by hand), ingests each collection into its own SQLite
store, and runs ``abstain eval`` on the same 100 questions against both. The questions'
``gold_sources`` name the Markdown files; for the original store they are mapped to the
original names (``cli.md`` -> ``cli.rst``, ``tutorial.md`` -> ``tutorial.ipynb``) in a
temporary copy, the data set is not edited.

    python bench/bench_realdocs_formats.py --git-dir /path/to/sqlite-utils.git [--out DIR]

Prints, per collection, the share answered per category and the answerable questions
citing a gold source; ``docs/EVALUATION.md`` ("Documents as people keep them") has the
figures. Needs the ``formats`` extra (docutils).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from _common import data_dir

COMMIT = "56dd09702fdb9e899f577ffd51693c1f2176cb08"
CATEGORIES = ("answerable", "near_miss", "unknown_entity", "off_topic")


def export_originals(git_dir: Path, dest: Path) -> list[Path]:
    """``docs/*.rst`` and ``docs/tutorial.ipynb`` at COMMIT, as the data set took them."""
    archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", COMMIT, "docs"],
                             check=True, capture_output=True).stdout
    files: list[Path] = []
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            name = Path(member.name)
            if member.isfile() and name.parent == Path("docs") and (
                    name.suffix == ".rst" or name.name == "tutorial.ipynb"):
                extracted = tar.extractfile(member)
                assert extracted is not None
                (dest / name.name).write_bytes(extracted.read())
                files.append(dest / name.name)
    return sorted(files)


def map_questions(src: Path, dest: Path, originals: dict[str, str]) -> None:
    with src.open() as f, dest.open("w") as out:
        for line in f:
            if not line.strip():
                continue
            item = json.loads(line)
            if "gold_sources" in item:
                item["gold_sources"] = [originals.get(s, s) for s in item["gold_sources"]]
            out.write(json.dumps(item) + "\n")


def run(abstain: Path, folder: Path, questions: Path, db: Path, records: Path) -> dict[str, object]:
    subprocess.run([str(abstain), "ingest", str(folder), "--db", str(db), "-w", "sqlite-utils",
                    "--quiet"], check=True, stdout=subprocess.DEVNULL)
    done = subprocess.run([str(abstain), "eval", str(questions), "--db", str(db), "-w",
                           "sqlite-utils", "--quiet", "--json", "--save-records", str(records)],
                          check=True, capture_output=True, text=True)
    summary: dict[str, object] = json.loads(done.stdout)
    cited = 0
    for line in records.read_text().splitlines():
        rec = json.loads(line)
        if rec["category"] == "answerable" and rec["answered"] and any(
                s.endswith("/" + g) for s in rec.get("cited_sources") or ()
                for g in rec["gold_sources"]):
            cited += 1
    summary["answerable_citing_gold"] = cited
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--git-dir", type=Path, required=True,
                        help="a git mirror of simonw/sqlite-utils that holds COMMIT")
    parser.add_argument("--out", type=Path, help="keep stores and records here")
    args = parser.parse_args()
    abstain = Path(sys.executable).with_name("abstain")
    realdocs = data_dir() / "realdocs-dev"
    work = args.out or Path(tempfile.mkdtemp(prefix="realdocs-formats-"))
    originals_dir = work / "sqlite-utils-original"
    originals_dir.mkdir(parents=True, exist_ok=True)
    files = export_originals(args.git_dir, originals_dir)
    names = {f.stem + ".md": f.name for f in files}
    questions = realdocs / "questions-sqlite-utils.jsonl"
    mapped = work / "questions-sqlite-utils-original.jsonl"
    map_questions(questions, mapped, names)
    results = {
        "Markdown copy (kb/sqlite-utils)": run(abstain, realdocs / "kb" / "sqlite-utils",
                                               questions, work / "md.db",
                                               work / "records-md.jsonl"),
        "original .rst + .ipynb": run(abstain, originals_dir, mapped, work / "original.db",
                                      work / "records-original.jsonl"),
    }
    print(f"| collection | {' | '.join(CATEGORIES)} | answerable citing a gold source "
          "| AUROC |")
    print("|---|" + "---|" * (len(CATEGORIES) + 2))
    for name, summary in results.items():
        answered = summary["answered_by_category"]
        counts = summary["counts_by_category"]
        assert isinstance(answered, dict) and isinstance(counts, dict)
        cells = [f"{round(answered[c] * counts[c])} / {counts[c]}" for c in CATEGORIES]
        print(f"| {name} | {' | '.join(cells)} | {summary['answerable_citing_gold']} / "
              f"{counts['answerable']} | {summary['auroc']:.3f} |")
    print(f"(stores and records in {work})")


if __name__ == "__main__":
    main()
