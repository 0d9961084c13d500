"""SciFact (claims + rationale sentences + abstracts) from the CSV export in ``scifact.zip``.

Train claims only (``claims_train.csv``); the validation claims are BEIR SciFact's test
queries and stay held out.
"""

from __future__ import annotations

import ast
import csv
import heapq
import io
import math
import re
import tokenize
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

ZIP = Path("scifact-claims") / "scifact.zip"


@dataclass(frozen=True, slots=True)
class Evidence:
    doc_id: str
    label: str
    """``SUPPORT`` or ``CONTRADICT``."""
    sentences: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    text: str
    evidence: tuple[Evidence, ...]
    cited: tuple[str, ...]


def _sentences(raw: str) -> list[str]:
    """``['s1'\\n 's2']`` (a numpy array repr) -> its string literals."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(raw).readline):
        if tok.type == tokenize.STRING:
            out.append(" ".join(str(ast.literal_eval(tok.string)).split()))
    return out


def _ints(raw: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\d+", raw))


def load(data: Path, split: str = "train") -> tuple[list[Claim], dict[str, tuple[str, list[str]]]]:
    """Claims of ``split`` (train / validation) and the corpus ``{doc_id: (title, sentences)}``."""
    with zipfile.ZipFile(data / ZIP) as z:
        def rows(name: str) -> list[dict[str, str]]:
            with z.open(name) as fh:
                return list(csv.DictReader(io.TextIOWrapper(fh, encoding="utf-8")))
        corpus = {r["doc_id"]: (r["title"].strip(), _sentences(r["abstract"]))
                  for r in rows("corpus_train.csv")}
        grouped: dict[str, list[dict[str, str]]] = defaultdict(list)
        for r in rows(f"claims_{split}.csv"):
            grouped[r["id"]].append(r)
    claims = []
    for cid, rs in grouped.items():
        ev = tuple(Evidence(r["evidence_doc_id"], r["evidence_label"],
                            tuple(int(i) for i in _ints(r["evidence_sentences"])))
                   for r in rs if r["evidence_doc_id"])
        claims.append(Claim(cid, rs[0]["claim"].strip(), ev, _ints(rs[0]["cited_doc_ids"])))
    return claims, corpus


_TOKEN = re.compile(r"\w+")
_STOP = frozenset(re.findall(r"\w+", "a an and are as at be by for from has have in is it its "
                             "of on or that the this to was were what when where which who "
                             "why with how did does do"))


def terms(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


class BM25:
    """A tiny in-memory BM25 (k1 0.9, b 0.4) for mining negatives."""

    def __init__(self, texts: list[str], k1: float = 0.9, b: float = 0.4) -> None:
        self.docs = [Counter(terms(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(1, len(self.lengths))
        self.k1, self.b = k1, b
        df: Counter[str] = Counter()
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, d in enumerate(self.docs):
            for t in d:
                df[t] += 1
                self.postings[t].append(i)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def top(self, query: str, k: int = 10) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for t in set(terms(query)):
            for i in self.postings.get(t, ()):
                tf = self.docs[i][t]
                norm = tf + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                scores[i] += self.idf[t] * tf * (self.k1 + 1) / norm
        return heapq.nlargest(k, scores, key=scores.__getitem__)
