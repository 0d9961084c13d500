"""Replay the extractive quote offline, judged as ``abstain eval`` judges it.

Each question is asked once through the real gate (the default pipeline: the reader reads and
vetoes); for those it lets through, the parsed question and the kept evidence (with the
reader's windows) are saved. Quoting them again takes seconds, so a variant of the extractive
answerer can be compared with the shipped one on thousands of questions without asking them
again. The gate's decisions are fixed by the dump: this measures the quote alone::

    python bench/replay_quotes.py dump kept.pkl click=/tmp/click.db:questions-click.jsonl …
    python bench/replay_quotes.py score kept.pkl [--choice FILE] [--group unseen=ripgrep,…]

``score`` prints right answers / answers given per domain (and per ``--group``) for the
shipped quote (word overlap's, re-quoted within its pages by the reader's answering windows,
with the unit the quote choice scores best added: :mod:`abstain.generate.choice`), for the
same without the choice, and, with ``--choice FILE``, with another choice
(``bench/fit_quote_choice.py``). An experiment imports :func:`load` and :func:`score` and passes
its own generator. The dump is a pickle of this checkout's objects: make it again after the
code changes.

docs/EVALUATION.md, "Where the quote goes wrong", has what it measured.
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from abstain.config import Settings
from abstain.evaluate.data import LabelledQuestion, parse_record
from abstain.evaluate.records import QuestionRecord
from abstain.evidence import Evidence
from abstain.generate import Generator
from abstain.generate.choice import QuoteChoice
from abstain.generate.extractive import ExtractiveGenerator
from abstain.pipeline import Pipeline
from abstain.question import Question
from abstain.records import Generation
from abstain.rerank.reader import LazyReader


@dataclass(frozen=True, slots=True)
class Kept:
    """One question the gate let through, with what the answerer quotes from."""

    domain: str
    item: dict[str, object]
    question: Question
    evidence: tuple[Evidence, ...]

    @property
    def labelled(self) -> LabelledQuestion:
        return parse_record(self.item)


def dump(out: Path, specs: Sequence[str]) -> int:
    kept: list[Kept] = []
    for spec in specs:
        domain, _, rest = spec.partition("=")
        db, _, questions = rest.partition(":")
        with Pipeline.from_settings(Settings(store=db), create_store=False) as pipe:
            for line in Path(questions).read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                item = json.loads(line)
                trace = pipe.gate_question(item["question"], pipe.workspace)
                if not trace.ended and trace.parsed is not None:
                    kept.append(Kept(domain, item, trace.parsed, trace.evidence))
        print(f"{domain}: {sum(k.domain == domain for k in kept)} questions kept", flush=True)
    out.write_bytes(pickle.dumps(kept))
    return len(kept)


class _Unpickler(pickle.Unpickler):
    """Finds :class:`Kept` here, whichever script the dump was made by (run as a script, this
    module pickles it as ``__main__.Kept``)."""

    def find_class(self, module: str, name: str) -> type:
        if name == "Kept":
            return Kept
        return super().find_class(module, name)  # type: ignore[no-any-return]


def load(path: Path) -> list[Kept]:
    with path.open("rb") as f:
        return list(_Unpickler(f).load())


def judged(kept: Kept, generation: Generation) -> bool | None:
    """Whether the quote answers (None: nothing quoted, so no answer given)."""
    if not generation.sentences:
        return None
    cited = tuple(dict.fromkeys(kept.evidence[n - 1].document.source
                                for s in generation.sentences for n in s.cites))
    record = QuestionRecord(item=kept.labelled, answered=True, reason=None, confidence=0.0,
                            features={}, checks=(), chunks=(), cited_sources=cited,
                            answer_text=" ".join(s.text for s in generation.sentences))
    return record.right


def score(kept: Sequence[Kept], generator: Generator) -> dict[str, tuple[int, int]]:
    """Per domain: right answers and answers given when ``generator`` quotes."""
    out: dict[str, tuple[int, int]] = {}
    for k in kept:
        verdict = judged(k, generator.generate(k.question, k.evidence))
        right, given = out.get(k.domain, (0, 0))
        if verdict is not None:
            out[k.domain] = (right + verdict, given + 1)
    return out


def show(name: str, scores: dict[str, tuple[int, int]], groups: dict[str, list[str]]) -> None:
    rows = {d: scores[d] for d in sorted(scores)}
    for group, members in groups.items():
        rows[group] = (sum(scores.get(d, (0, 0))[0] for d in members),
                       sum(scores.get(d, (0, 0))[1] for d in members))
    right, given = sum(r for r, _ in scores.values()), sum(g for _, g in scores.values())
    rows["all"] = (right, given)
    print(f"## {name}")
    for domain, (r, g) in rows.items():
        print(f"  {domain:40s} {r:4d} / {g:4d}  {r / g if g else 0:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="ask the questions through the gate and keep what passes")
    d.add_argument("out", type=Path)
    d.add_argument("specs", nargs="+", metavar="DOMAIN=DB:QUESTIONS")
    s = sub.add_parser("score", help="quote the kept questions again and judge the quotes")
    s.add_argument("dump", type=Path)
    s.add_argument("--choice", type=Path, help="also quote with this quote choice file "
                   "(bench/fit_quote_choice.py)")
    s.add_argument("--group", action="append", default=[], metavar="NAME=D1,D2",
                   help="also print the sum over these domains")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.out, args.specs)
        return 0
    kept = load(args.dump)
    groups = {g.partition("=")[0]: g.partition("=")[2].split(",") for g in args.group}
    show("shipped quote (the reader vetoing, the quote choice adding its best unit)",
         score(kept, ExtractiveGenerator(judge=LazyReader(), same_pages=True)), groups)
    show("without the quote choice",
         score(kept, ExtractiveGenerator(judge=LazyReader(), same_pages=True,
                                         add_chosen=False)), groups)
    if args.choice is not None:
        choice = QuoteChoice.from_json(json.loads(args.choice.read_text()))
        show(f"with the quote choice of {args.choice}",
             score(kept, ExtractiveGenerator(judge=LazyReader(), same_pages=True,
                                             choice=choice)), groups)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
