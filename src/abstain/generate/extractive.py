"""The built-in answerer: the best-supported sentences of the top evidence, cited.

No model is called. Sentences are scored by how many of the question's content
terms they contain (prefix-matched, so "replicas" finds "replica"), weighted
down by the rank of their evidence; sentences with no overlap are never used.
"""

from __future__ import annotations

from collections.abc import Sequence

from abstain.evidence import Evidence
from abstain.generate import Generation, Sentence
from abstain.query import query_terms, tokens
from abstain.text import split_sentences


class ExtractiveGenerator:
    name = "extractive"
    uses_llm = False

    def __init__(self, *, max_sentences: int = 3, max_evidence: int = 3,
                 min_overlap: float = 0.2) -> None:
        self.max_sentences = max_sentences
        self.max_evidence = max_evidence
        self.min_overlap = min_overlap

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Generation:
        terms = query_terms(question)
        scored: list[tuple[float, int, int, str]] = []
        for n, ev in enumerate(evidence[: self.max_evidence], start=1):
            for position, sentence in enumerate(split_sentences(ev.text)):
                overlap = _overlap(terms, sentence)
                if overlap >= self.min_overlap:
                    scored.append((overlap / (1 + 0.15 * (n - 1)), n, position, sentence))
        best: list[tuple[float, int, int, str]] = []
        for candidate in sorted(scored, key=lambda s: -s[0]):
            if len(best) == self.max_sentences or (best and candidate[0] < 0.5 * best[0][0]):
                break
            if not any(_redundant(candidate[3], kept[3]) for kept in best):
                best.append(candidate)
        chosen = sorted(best, key=lambda s: (s[1], s[2]))
        return Generation(
            sentences=tuple(Sentence(text, (n,)) for _, n, _, text in chosen),
            model=self.name,
        )


def _overlap(terms: list[str], sentence: str) -> float:
    if not terms:
        return 0.0
    words = set(tokens(sentence))
    hits = sum(1 for t in terms if t in words or (len(t) >= 5 and any(
        w.startswith(t[: len(t) - 2]) for w in words)))
    return hits / len(terms)


def _redundant(a: str, b: str, threshold: float = 0.6) -> bool:
    """Near-duplicate sentences (Jaccard over folded words): say it once."""
    wa, wb = set(tokens(a)), set(tokens(b))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= threshold
