"""The v2 training set: SQuAD 2.0 train (rebuilt) and SNLI, three heads, tokenized once.

* answers (question × sentence window): the window holding the answer is 1; 0 are an
  impossible question's closest window of its own paragraph, other windows of the paragraph,
  BM25-mined windows of other paragraphs of the article, and perturbed questions (entity,
  number, antonym swap, negation: SQuAD 2.0's own kinds of unanswerability) against the
  answer window.
* relevance (question × passage): the question's own paragraph is 1, answerable or not; 0 are
  the BM25-closest other paragraph of the same article and the BM25-closest paragraph of
  another article (the "topical but not relevant" case).
* supports (claim × evidence): SNLI hypothesis × premise (entailment 1, neutral and
  contradiction 0) and synthetic sentence pairs from the training paragraphs.

Articles are split by a seeded hash of their titles: a held-out share of the train articles is
kept out of training (for fitting calibration later). Validation is the 19 dev articles outside
the gate benchmark (``squad2-dev-half`` is never read) and BEGIN's dev split for support.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from abstain.rerank.windows import in_context, sentence_windows
from abstain.train import cache, pairs, perturb, scifact, squad
from abstain.train.cache import ANSWERS, RELEVANCE, SUPPORTS
from abstain.train.recipes import Recipe

SNLI_FILE = Path("support-nli") / "snli-dev-test.jsonl.gz"
BEGIN_DEV = tuple(Path("support-nli") / "begin" / f"begin_dev_{n}.tsv.gz"
                  for n in ("wow", "cmu", "tc"))


def held_out(title: str, share: float, seed: int) -> bool:
    digest = hashlib.sha256(f"{seed}:{title}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


class ParagraphIndex:
    """BM25 (k1 0.9, b 0.4) over paragraphs with numpy postings: fast enough to mine a
    negative for every question of SQuAD train."""

    def __init__(self, texts: list[str], k1: float = 0.9, b: float = 0.4) -> None:
        docs = [Counter(scifact.terms(t)) for t in texts]
        lengths = np.array([sum(d.values()) for d in docs], dtype=np.float64)
        avg = lengths.mean() if len(lengths) else 1.0
        postings: dict[str, list[tuple[int, int]]] = {}
        for i, d in enumerate(docs):
            for t, tf in d.items():
                postings.setdefault(t, []).append((i, tf))
        self.n = len(texts)
        self.docs: dict[str, np.ndarray] = {}
        self.weights: dict[str, np.ndarray] = {}
        for t, rows in postings.items():
            ids = np.array([r[0] for r in rows])
            freq = np.array([r[1] for r in rows], dtype=np.float64)
            idf = np.log(1 + (self.n - len(rows) + 0.5) / (len(rows) + 0.5))
            norm = freq + k1 * (1 - b + b * lengths[ids] / avg)
            self.docs[t], self.weights[t] = ids, idf * freq * (k1 + 1) / norm

    def top(self, query: str, k: int) -> list[int]:
        scores = np.zeros(self.n)
        for t in set(scifact.terms(query)):
            if t in self.docs:
                scores[self.docs[t]] += self.weights[t]
        k = min(k, self.n)
        best = np.argpartition(-scores, k - 1)[:k] if k < self.n else np.arange(self.n)
        return [int(i) for i in best[np.argsort(-scores[best])] if scores[i] > 0]


Row = tuple[str, str, int, int, str]
"""a, b, head, label, kind."""


def build(data: Path, recipe: Recipe, seed: int) -> tuple[list[Row], list[Row], dict[str, Any]]:
    """Training rows, validation rows (kind = group name) and a summary."""
    rng = random.Random(seed)
    articles = [a for a in squad.load_file(data / squad.TRAIN_FILE)
                if not held_out(a.title, recipe.holdout, seed)]
    if recipe.max_articles is not None:
        articles = rng.sample(articles, min(recipe.max_articles, len(articles)))
    paragraphs = [(a.index, p) for a in articles for p in a.paragraphs]
    index = ParagraphIndex([p for _, p in paragraphs])
    rows: list[Row] = []
    for article in articles:
        rows += _article(article, recipe, rng, index, paragraphs)
        for p in pairs._support_synthetic(article, recipe.support_synthetic, rng):
            rows.append((p.a, p.b, SUPPORTS, int(p.supports or 0), p.kind))
    rows += _snli(data, recipe.snli, rng)
    rng.shuffle(rows)
    val = _validation(data, recipe, seed)
    summary = {"train_articles": len(articles), "pairs": len(rows), "val_pairs": len(val),
               "kinds": dict(sorted(Counter(f"{r[4]}:{r[3]}" for r in rows).items()))}
    return rows, val, summary


def _article(article: squad.Article, recipe: Recipe, rng: random.Random,
             index: ParagraphIndex, paragraphs: list[tuple[int, str]]) -> list[Row]:
    out: list[Row] = []
    windows = [sentence_windows(p, max_windows=10_000) for p in article.paragraphs]
    flat = [(i, w) for i, ws in enumerate(windows) for w in ws]
    local = ParagraphIndex([w for _, w in flat])
    own_paragraphs = ParagraphIndex(list(article.paragraphs))
    pool = sorted({e for p in article.paragraphs for e in perturb.entities(p)})
    few = min(len(pool), 40)
    for q in article.questions:
        ws = windows[q.paragraph]
        hits: set[int] = set()
        if q.spans:
            ws, hits = squad.span_windows(q.context, q.starts, q.spans, ws)
        if q.impossible:
            ranked = [flat[i][1] for i in local.top(q.text, 40) if flat[i][0] == q.paragraph]
            near = [ws[i] for i in sorted(hits)] or ranked[:1] or [rng.choice(ws)]
            out += [(q.text, w, ANSWERS, 0, "impossible") for w in near]
        elif hits:
            best = ws[min(hits)]
            out.append((q.text, best, ANSWERS, 1, "answer"))
            if recipe.perturbations:
                changed = perturb.perturb(q.text, best, rng.sample(pool, few), rng)
                if changed:
                    out.append((changed[0], best, ANSWERS, 0, f"q-{changed[1]}"))
        else:
            continue
        others = [w for i, w in enumerate(ws) if i not in hits and w not in
                  {r[1] for r in out[-2:]} and (q.impossible or squad.answer_free(w, q))]
        for w in rng.sample(others, min(pairs._count(recipe.own_negatives, rng), len(others))):
            out.append((q.text, w, ANSWERS, 0, "own-other"))
        mined = [flat[i][1] for i in local.top(q.text, 8) if flat[i][0] != q.paragraph]
        mined = [w for w in mined if q.impossible or squad.answer_free(w, q)]
        for w in mined[:pairs._count(recipe.mined_negatives, rng)]:
            out.append((q.text, w, ANSWERS, 0, "mined"))
        if rng.random() < recipe.relevance_rate:
            out += _relevance(q, own_paragraphs, article.paragraphs, index, paragraphs)
    return [_read(r, article.title, recipe) for r in out]


def _read(row: Row, title: str, recipe: Recipe) -> Row:
    """An answers-head row as the recipe's reader reads it (after the article's title, as
    abstain titles a SQuAD document, when it reads in context)."""
    if not recipe.in_context or row[2] != ANSWERS:
        return row
    return row[0], in_context(row[1], title.replace("_", " ")), *row[2:]


def _relevance(q: squad.Question, own: ParagraphIndex, own_texts: tuple[str, ...],
               index: ParagraphIndex, paragraphs: list[tuple[int, str]]) -> list[Row]:
    out: list[Row] = [(q.text, q.context, RELEVANCE, 1, "rel-own")]

    def fine(text: str) -> bool:
        return text != q.context and (q.impossible or squad.answer_free(text, q))

    for p in own.top(q.text, 4):
        if p != q.paragraph and fine(own_texts[p]):
            out.append((q.text, own_texts[p], RELEVANCE, 0, "rel-article"))
            break
    for i in index.top(q.text, 12):
        article, text = paragraphs[i]
        if article != q.article and fine(text):
            out.append((q.text, text, RELEVANCE, 0, "rel-mined"))
            break
    return out


def _snli(data: Path, limit: int | None, rng: random.Random) -> list[Row]:
    with gzip.open(data / SNLI_FILE, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    if limit is not None:
        rows = rng.sample(rows, min(limit, len(rows)))
    return [(" ".join(r["hypothesis"].split()), " ".join(r["premise"].split()), SUPPORTS,
             int(r["label"] == "entailment"), f"snli-{r['label']}") for r in rows]


def _validation(data: Path, recipe: Recipe, seed: int) -> list[Row]:
    """Dev (19 articles): every question × every window of its own paragraph (group = the
    question; AUROC of the best window, answerable vs impossible); question × own vs the
    BM25-closest other paragraph (relevance); BEGIN dev (supports)."""
    rng = random.Random(seed)
    articles = squad.load_file(data / squad.DEV19_FILE)[:recipe.val_articles]
    questions = [q for a in articles for q in a.questions]
    if recipe.val_questions is not None and recipe.val_questions < len(questions):
        questions = rng.sample(questions, recipe.val_questions)
    out: list[Row] = []
    per_article = {a.index: scifact.BM25(list(a.paragraphs)) for a in articles}
    texts = {a.index: a.paragraphs for a in articles}
    for n, q in enumerate(questions):
        for w in sentence_windows(q.context):
            out.append(_read((q.text, w, ANSWERS, 0 if q.impossible else 1, f"q{n}"), q.title,
                             recipe))
        out.append((q.text, q.context, RELEVANCE, 1, ""))
        other = [i for i in per_article[q.article].top(q.text, 3) if i != q.paragraph]
        if other:
            out.append((q.text, texts[q.article][other[0]], RELEVANCE, 0, ""))
    begin = list(_begin(data))
    if recipe.val_questions is not None:
        begin = rng.sample(begin, min(len(begin), recipe.val_questions))
    return out + begin


def _begin(data: Path) -> Iterable[Row]:
    for path in BEGIN_DEV:
        if not (data / path).exists():
            continue
        with gzip.open(data / path, "rt", encoding="utf-8") as fh:
            header = fh.readline().rstrip("\n").split("\t")
            for line in fh:
                row = dict(zip(header, line.rstrip("\n").split("\t"), strict=False))
                if row.get("response") and row.get("knowledge"):
                    yield (row["response"], row["knowledge"], SUPPORTS,
                           int(row.get("begin_label") == "Fully attributable"), "")


def write(data: Path, recipe: Recipe, seed: int, out: Path) -> dict[str, Any]:
    """Build, tokenize once and save ``out/trainset.npz.xz``; the summary."""
    rows, val, summary = build(data, recipe, seed)
    return write_rows(rows, val, summary, recipe, seed, out)


def write_rows(rows: list[Row], val: list[Row], summary: dict[str, Any], recipe: Recipe,
               seed: int, out: Path) -> dict[str, Any]:
    """Tokenize ``rows`` and ``val`` once and save them as ``out/trainset.npz.xz``."""
    tok = _tokenizer()
    texts: dict[str, int] = {}
    for r in (*rows, *val):
        texts.setdefault(r[0], len(texts))
        texts.setdefault(r[1], len(texts))
    ordered = list(texts)
    encoded = [e.ids[:recipe.passage_length] for e in
               tok.encode_batch(ordered, add_special_tokens=False)]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(e) for e in encoded])
    tokens = np.fromiter((t for e in encoded for t in e), dtype=np.uint16, count=int(offsets[-1]))
    kinds = sorted({r[4] for r in rows})
    groups: dict[str, int] = {}

    def table(rs: list[Row], tag: list[int]) -> cache.PairTable:
        return cache.PairTable(np.array([texts[r[0]] for r in rs], dtype=np.int32),
                               np.array([texts[r[1]] for r in rs], dtype=np.int32),
                               np.array([r[2] for r in rs], dtype=np.int8),
                               np.array([r[3] for r in rs], dtype=np.int8),
                               np.array(tag, dtype=np.int32))

    train = table(rows, [kinds.index(r[4]) for r in rows])
    val_tags = [groups.setdefault(r[4], len(groups)) if r[4] else -1 for r in val]
    meta = {"recipe": asdict(recipe), "seed": seed, "kinds": kinds, **summary,
            "texts": len(ordered), "tokens": int(offsets[-1])}
    path = cache.save(out / cache.FILE, tokens, offsets, train, table(val, val_tags), meta)
    meta["bytes"] = path.stat().st_size
    return meta


def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    from abstain.embed.minilm import tokenizer_file

    tok = Tokenizer.from_file(str(tokenizer_file()))
    tok.no_truncation()
    tok.no_padding()
    return tok
