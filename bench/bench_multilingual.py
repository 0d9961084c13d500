"""The multilingual set (bench/data/multilingual): retrieval recall@5 and refusal rates with
MiniLM and with multilingual-e5-small, and each one's query-embedding latency.

    python bench/bench_multilingual.py [--embedders minilm e5] [--write]

Each embedder gets its own SQLite store holding the 24 documents (one workspace, all four
languages together). Per question: the fused top 5 (`Pipeline.search`, both arms) and the
vector arm's top 5 hold the gold document or not; `Pipeline.ask` (balanced preset, no LLM)
answers or refuses. `--write` replaces the section in docs/EVALUATION.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, machine, percentiles, timed, write_section

from abstain.embed import load_embedder
from abstain.pipeline import Pipeline
from abstain.retrieve import Retrieval
from abstain.stores.sqlite import SQLiteStore

DATA = ROOT / "bench" / "data" / "multilingual"
EVALUATION_MD = ROOT / "docs" / "EVALUATION.md"
SECTION = "Benchmark: multilingual retrieval and refusal (issue 25)"
CATEGORIES = ("in_language", "cross_language", "out_of_collection")


@dataclass
class Tally:
    n: int = 0
    fused_hit: int = 0
    vector_hit: int = 0
    answered: int = 0
    answered_from_gold: int = 0
    by_language: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))


def run(spec: str, questions: list[dict[str, object]], repeat: int) -> dict[str, object]:
    embedder = load_embedder(spec)
    tallies = {c: Tally() for c in CATEGORIES}
    with tempfile.TemporaryDirectory() as tmp, \
            Pipeline(SQLiteStore(Path(tmp) / "kb.db"), embedder, workspace="town") as pipe:
        report = pipe.ingest([DATA / lang for lang in ("de", "fr", "es", "ru")])
        assert not report.skipped, report.skipped
        for q in questions:
            text, gold = str(q["question"]), list(q["gold_sources"])  # type: ignore[call-overload]
            tally = tallies[str(q["category"])]
            tally.n += 1
            found = pipe.search(text, top_k=5)
            answer = pipe.ask(text)
            tally.answered += answer.answered
            if gold:
                fused = {e.source for e in found.evidence}
                vector = _vector_sources(pipe, found)
                hit_f = any(s.endswith(gold[0]) for s in fused)
                tally.fused_hit += hit_f
                tally.vector_hit += any(s.endswith(gold[0]) for s in vector)
                cited = {c.source for c in answer.citations}
                tally.answered_from_gold += answer.answered and any(
                    s.endswith(gold[0]) for s in cited)
                tally.by_language[str(q["group"])][0] += hit_f
                tally.by_language[str(q["group"])][1] += 1
        texts = [str(q["question"]) for q in questions]
        embedder.embed_batch(texts[:2])  # warm
        it = iter(texts * (repeat // len(texts) + 1))
        e50, e95 = percentiles(timed(lambda: embedder.embed_batch([next(it)]), repeat))
    return {"spec": spec, "name": embedder.name, "tallies": tallies, "embed_p50": e50,
            "embed_p95": e95}


def _vector_sources(pipe: Pipeline, found: Retrieval) -> set[str]:
    """The documents of the vector arm's top 5."""
    chunks = pipe.store.get_chunks([h.chunk_id for h in found.vector_hits[:5]])
    return {c.document.source for c in chunks.values()}


def pct(a: int, b: int) -> str:
    return "–" if b == 0 else f"{100 * a / b:.0f} % ({a}/{b})"


def table(results: list[dict[str, object]]) -> str:
    lines = ["| embedder | category | n | recall@5 fused | recall@5 vector arm | answered "
             "| answered citing the gold document | refused |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        tallies: dict[str, Tally] = r["tallies"]  # type: ignore[assignment]
        for c in CATEGORIES:
            t = tallies[c]
            if c == "out_of_collection":
                lines.append(f"| {r['name']} | {c} | {t.n} | – | – | {pct(t.answered, t.n)} "
                             f"| – | **{pct(t.n - t.answered, t.n)}** |")
            else:
                lines.append(f"| {r['name']} | {c} | {t.n} | **{pct(t.fused_hit, t.n)}** | "
                             f"{pct(t.vector_hit, t.n)} | {pct(t.answered, t.n)} | "
                             f"{pct(t.answered_from_gold, t.n)} | "
                             f"{pct(t.n - t.answered, t.n)} |")
    lines += ["", "| embedder | recall@5 fused, by question language | query embedding "
              "p50 / p95 (ms) |", "|---|---|---|"]
    for r in results:
        tallies = r["tallies"]  # type: ignore[assignment]
        langs: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for c in ("in_language", "cross_language"):
            for lang, (hit, n) in tallies[c].by_language.items():
                langs[lang][0] += hit
                langs[lang][1] += n
        per = ", ".join(f"{lang} {pct(h, n)}" for lang, (h, n) in sorted(langs.items()))
        lines.append(f"| {r['name']} | {per} | {r['embed_p50']:.1f} / {r['embed_p95']:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedders", nargs="+", default=["minilm", "e5"])
    parser.add_argument("--repeat", type=int, default=200,
                        help="query embeddings timed per embedder")
    parser.add_argument("--write", action="store_true", help="update docs/EVALUATION.md")
    args = parser.parse_args()
    questions = [json.loads(line) for line in
                 (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
    results = [run(spec, questions, args.repeat) for spec in args.embedders]
    body = table(results)
    print(body)
    if args.write:
        write_section(SECTION, f"""
Machine: {machine()}; a shared machine, so the latencies are noisy.
`python bench/bench_multilingual.py --embedders {' '.join(args.embedders)} --write`.
The set (`bench/data/multilingual/`, written for abstain): 24 short documents on a
fictional town's services, six each in German, French, Spanish and Russian, all in one
workspace; 28 questions in the document's language, 12 across languages (8 English, 4
between two of the four), 15 that the documents do not answer (three per language and
three in English). Recall@5: the answering document is among the fused top 5
(`Pipeline.search`, keyword and vector arms) or the vector arm's top 5. Answers and
refusals: `Pipeline.ask`, balanced preset, extractive answerer (no LLM).

{body}
""", path=EVALUATION_MD)


if __name__ == "__main__":
    main()
