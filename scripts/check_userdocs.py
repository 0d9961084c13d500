"""Check one set of data/userdocs against its documentation, as abstain reads it.

    python scripts/check_userdocs.py data/userdocs/<owner+name> [...]

For each set: every line is JSON with a known category; an answerable question names gold
sources that exist in kb/ and answer keys each found (as ``abstain eval`` judges a key:
folded, whitespace collapsed) in the *parsed* text of one of its gold sources, so markup in a
key is caught; a made-up name (in backticks, or the ``name`` field) of an unknown_entity
question occurs nowhere in the kb; no question twice. Exits 1 when any set has an error.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from abstain.evaluate.records import contains_key
from abstain.ingest.parse import parse_file
from abstain.train.userpairs import pages

CATEGORIES = ("answerable", "near_miss", "unknown_entity", "off_topic")


def parsed_texts(kb: Path) -> dict[str, str]:
    """Each kb file's title, headings and text as abstain parses them."""
    out = {}
    for path in pages(kb):
        doc = parse_file(path)
        headings = "\n".join(" ".join(s.heading_path) for s in doc.sections)
        out[str(path.relative_to(kb))] = f"{doc.title}\n{headings}\n{doc.text}"
    return out


def problems(folder: Path) -> tuple[list[str], Counter[str]]:
    texts = parsed_texts(folder / "kb")
    everything = "\n".join(texts.values()).lower()
    errors: list[str] = []
    counts: Counter[str] = Counter()
    seen: set[str] = set()
    with open(folder / "questions.jsonl", encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            q = json.loads(line)
            category = q.get("category")
            counts[category] += 1
            where = f"line {n} [{category}] {q.get('question', '')[:60]!r}"
            if q["question"] in seen:
                errors.append(f"{where}: asked twice")
            seen.add(q["question"])
            if category not in CATEGORIES:
                errors.append(f"{where}: unknown category")
            elif category == "answerable":
                gold = q.get("gold_sources") or []
                errors += [f"{where}: gold source {g} not in kb/" for g in gold if g not in texts]
                keys = q.get("answer_keys") or []
                if not gold or not keys or q.get("expected") != "answer":
                    errors.append(f"{where}: needs expected 'answer', gold_sources, answer_keys")
                errors += [f"{where}: key {k!r} not in its gold sources' parsed text"
                           for k in keys
                           if not any(contains_key(texts.get(g, ""), k) for g in gold)]
            else:
                if q.get("expected") != "refuse":
                    errors.append(f"{where}: expected must be 'refuse'")
                if category == "unknown_entity":
                    names = re.findall(r"`([^`]+)`", q["question"]) + (
                        [q["name"]] if q.get("name") else [])
                    if not names:
                        errors.append(f"{where}: the made-up name must be in `backticks`")
                    errors += [f"{where}: made-up name {m!r} occurs in the kb" for m in names
                               if m.lower() in everything]
    return errors, counts


def main(argv: list[str]) -> int:
    failed = False
    for arg in argv:
        if not (Path(arg) / "questions.jsonl").is_file():
            print(f"{arg}: not a set (no questions.jsonl)")
            failed = True
            continue
        errors, counts = problems(Path(arg))
        for e in errors:
            print(f"{arg}: {e}")
        print(f"{arg}: {dict(counts)}, {len(errors)} errors")
        failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
