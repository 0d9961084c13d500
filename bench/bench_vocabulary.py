"""Vocabulary lookup latency at 50k concepts: what the terms-first stages add to a question.

A synthetic SKOS vocabulary (made-up three-word English labels and one-word Dutch labels,
an acronym alternative label each, a definition, a broader concept) is loaded into a fresh
store; then, per question:

* ``consult`` on a definition question by acronym (answered from the vocabulary),
* ``consult`` on an ordinary 20-word question that names an alternative label (rewritten),
* ``consult`` on an ordinary 20-word question naming no concept (the cost every question
  pays in a workspace with a vocabulary),
* ``near_concepts`` for an unknown term (the suggestions of ``unknown_term``).

Usage::

    python bench/bench_vocabulary.py [--concepts 50000] [--samples 300]
        [--store postgresql://… | --postgres] [--write]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from _common import machine, percentiles, write_section

from abstain.stores import open_store
from abstain.stores.vocab_base import Concept, LangText, VocabularyInfo
from abstain.terminology import Terminology, consult
from abstain.validate import validate
from abstain.vocabulary import open_vocabulary
from abstain.vocabulary.near import near_concepts

BASE = "https://vocab.example.org/bench/"
SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu",
             "be", "ri", "to", "la", "mo", "na", "se")


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def vocabulary(n: int, seed: int = 7) -> list[Concept]:
    rng = random.Random(seed)
    out: list[Concept] = []
    seen: set[str] = set()
    while len(out) < n:
        words = [word(rng) for _ in range(3)]
        pref = " ".join(words)
        acronym = "".join(w[0] for w in words).upper() + str(len(out))
        if pref in seen:
            continue
        seen.add(pref)
        uri = f"{BASE}c{len(out)}"
        broader = (f"{BASE}c{rng.randrange(len(out))}",) if out else ()
        out.append(Concept(uri, (LangText(pref, "en"), LangText(word(rng) + word(rng), "nl")),
                           (LangText(acronym, "en"),), (),
                           (LangText(f"The {pref} of the {word(rng)} grid.", "en"),), (),
                           broader))
    return out


def run(store_url: str, n: int, samples: int) -> tuple[float, dict[str, tuple[float, float]]]:
    concepts = vocabulary(n)
    store = open_store(store_url)
    try:
        vocab = open_vocabulary(store)
        t0 = time.perf_counter()
        vocab.replace_vocabulary(VocabularyInfo("bench", "bench", "file", "synthetic.ttl",
                                                concepts=n), concepts)
        load_s = time.perf_counter() - t0
        terms = Terminology(vocab, store)
        rng = random.Random(11)
        filler = ("how long does the operator keep the contracts for the zone and who pays for "
                  "the extra capacity in winter")
        picks = [rng.choice(concepts) for _ in range(samples)]
        rows: dict[str, list[float]] = {k: [] for k in (
            "consult: definition question by acronym (answered)",
            "consult: 20-word question with an alt label (rewritten)",
            "consult: 20-word question naming no concept",
            "near concepts of an unknown term (unknown_term)")}
        names = list(rows)
        for concept in picks:
            acronym = concept.alt_labels[0].text
            cases = [f"What is {acronym}?", f"{filler} of the {acronym} today?",
                     f"{filler} of the zone today?"]
            for n, (name, question) in enumerate(zip(names, cases, strict=False)):
                trace = validate(question, "bench", generator="extractive")
                t0 = time.perf_counter()
                done = consult(trace, terms)
                rows[name].append((time.perf_counter() - t0) * 1000)
                # each row measures what it says: answered / rewritten / left as asked
                assert (done.tier == "vocabulary", done.text != trace.text) == (
                    (True, False), (False, True), (False, False))[n], question
            unknown = concept.pref_label("en").replace(" ", "x", 1)
            t0 = time.perf_counter()
            near_concepts(vocab, "bench", unknown)
            rows[names[3]].append((time.perf_counter() - t0) * 1000)
        return load_s, {k: percentiles(v) for k, v in rows.items()}
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--concepts", type=int, default=50_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--store", help="a postgresql:// URL [default: a fresh SQLite file]")
    parser.add_argument("--postgres", action="store_true",
                        help="start an embedded PostgreSQL (the postgres extra) and use it")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.store or str(Path(tmp) / "vocab.db")
        if args.postgres:
            from abstain.stores import pg_embedded

            Path(tmp).chmod(0o755)
            url = pg_embedded.start(Path(tmp) / "pg").url()
        try:
            load_s, rows = run(url, args.concepts, args.samples)
        finally:
            if args.postgres:
                pg_embedded.stop(Path(tmp) / "pg")
    kind = "PostgreSQL" if args.store or args.postgres else "SQLite"
    flag = " --postgres" if kind == "PostgreSQL" else ""
    body = [f"`python bench/bench_vocabulary.py --concepts {args.concepts} --samples "
            f"{args.samples}{flag}` — {kind}, {machine()}; {args.concepts:,} synthetic concepts "
            f"(two languages, an acronym alt label each: {args.concepts * 3:,} labels), "
            f"loaded in {load_s:.1f} s; {args.samples} questions per row.", "",
            "| what | p50 ms | p95 ms |", "|---|---|---|"]
    body += [f"| {name} | {p50:.2f} | {p95:.2f} |" for name, (p50, p95) in rows.items()]
    body += ["", "`consult` runs before retrieval on every question of a workspace with a "
             "vocabulary: one indexed lookup of the question's 1- to 6-word spans (a "
             "definition answer then also retrieves the documents' passages that name the "
             "concept: one ordinary retrieval, not counted here); the near "
             "concepts run only when a refusal hinges on an unknown term (candidate labels "
             "by initials, prefix and shared words, ranked in Python). Timings on a shared "
             "machine are noisy: rerun before comparing."]
    text = "\n".join(body)
    print(text)
    if args.write:
        write_section(f"Vocabulary lookup ({kind})", text)


if __name__ == "__main__":
    main()
