"""Training pairs for the two heads, built from a recipe with a fixed seed.

Head 0, *answers*: does this window answer / address the question (or claim)?
Head 1, *supports*: does this window state what the sentence claims?
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from abstain.rerank.windows import sentence_windows
from abstain.train import perturb, scifact, squad

ANSWERS, SUPPORTS = 0, 1


@dataclass(frozen=True, slots=True)
class Pair:
    """Two texts and a label per head (None: that head learns nothing from this pair)."""

    a: str
    b: str
    answers: float | None
    supports: float | None
    kind: str
    span: tuple[int, int] | None = None
    """The answer's character span in ``b``; ``NO_SPAN`` for a SQuAD negative; None: no span
    supervision (used only by recipes with ``span_loss``)."""

    @property
    def labels(self) -> tuple[float | None, float | None]:
        return self.answers, self.supports


NO_SPAN = (-1, -1)


def _answers(a: str, b: str, label: float, kind: str,
             span: tuple[int, int] | None = NO_SPAN) -> Pair:
    return Pair(a, b, label, None, kind, span)


def _find_span(window: str, q: squad.Question) -> tuple[int, int] | None:
    for text in q.spans:
        at = window.find(text) if text.strip() else -1
        if at >= 0:
            return at, at + len(text)
    return None


def _supports(a: str, b: str, label: float, kind: str) -> Pair:
    return Pair(a, b, None, label, kind)


@dataclass(frozen=True, slots=True)
class Recipe:
    name: str
    own_negatives: float = 0.7
    """Expected number of other windows of the question's own paragraph, as negatives."""
    mined_negatives: float = 0.6
    """Expected number of BM25-mined windows of other paragraphs of the article, as negatives."""
    question_perturbations: bool = True
    scifact: bool = True
    support_synthetic: int = 1200
    """Synthetic support pairs (FactCC style) from training paragraphs."""
    epochs: int = 1
    batch_size: int = 32
    lr: float = 8e-5
    max_length: int = 96
    pos_weight: float = 2.0
    freeze_layers: int = 3
    span_loss: float = 0.0
    """Weight of an auxiliary SQuAD span-extraction loss (start/end over the window's tokens,
    [CLS] for "no answer"), as SQuAD 2.0 readers are trained; 0 disables it."""
    """Bottom encoder layers kept frozen (with the word embeddings): fewer backward FLOPs."""
    notes: str = ""
    extra: dict[str, float] = field(default_factory=dict)


RECIPES = {
    "squad-sent": Recipe("squad-sent", own_negatives=1, mined_negatives=0,
                         question_perturbations=False, scifact=False, support_synthetic=0,
                         notes="SQuAD sentence pairs only: answer sentence vs plausible-answer "
                               "and other own-paragraph sentences"),
    "full": Recipe("full", notes="squad-sent + BM25-mined negatives + question perturbations "
                                 "+ SciFact (both heads) + synthetic support pairs"),
    "full-span": Recipe("full-span", span_loss=0.5,
                        notes="full + auxiliary span-extraction loss on the SQuAD pairs"),
}


def build(data: Path, recipe: Recipe, seed: int) -> list[Pair]:
    rng = random.Random(seed)
    articles = squad.split(squad.load_articles(data), "train")
    pairs: list[Pair] = []
    for article in articles:
        pairs += _squad_article(article, recipe, rng)
        if recipe.support_synthetic:
            share = recipe.support_synthetic // len(articles)
            pairs += _support_synthetic(article, share, rng)
    if recipe.scifact:
        pairs += _scifact(data, rng)
    rng.shuffle(pairs)
    return pairs


def summary(pairs: list[Pair]) -> dict[str, int]:
    counts = Counter(f"{p.kind}:{_fmt(p.answers)}/{_fmt(p.supports)}" for p in pairs)
    return dict(sorted(counts.items()))


def _count(expected: float, rng: random.Random) -> int:
    """``expected`` rounded down, plus one with probability of its fractional part."""
    whole = int(expected)
    return whole + (1 if rng.random() < expected - whole else 0)


def _fmt(label: float | None) -> str:
    return "-" if label is None else str(int(label))


def _squad_article(article: squad.Article, recipe: Recipe, rng: random.Random) -> list[Pair]:
    out: list[Pair] = []
    para_windows = [sentence_windows(p, max_windows=10_000) for p in article.paragraphs]
    flat = [(i, w) for i, ws in enumerate(para_windows) for w in ws]
    index = scifact.BM25([w for _, w in flat]) if recipe.mined_negatives else None
    pool = sorted({e for p in article.paragraphs for e in perturb.entities(p)})
    for q in article.questions:
        windows, hits = squad.span_windows(q.context, q.starts, q.spans)
        others = [w for i, w in enumerate(windows) if i not in hits
                  and (q.impossible or squad.answer_free(w, q))]
        if q.impossible:
            out += [_answers(q.text, windows[i], 0.0, "plausible") for i in sorted(hits)]
        else:
            if not hits:
                continue
            best = windows[min(hits)]
            out.append(_answers(q.text, best, 1.0, "answer", _find_span(best, q)))
            if recipe.question_perturbations:
                changed = perturb.perturb(q.text, best, pool, rng)
                if changed:
                    out.append(_answers(changed[0], best, 0.0, f"q-{changed[1]}"))
        for w in rng.sample(others, min(_count(recipe.own_negatives, rng), len(others))):
            out.append(_answers(q.text, w, 0.0, "own-other"))
        if index is not None:
            mined = [flat[i][1] for i in index.top(q.text, 8) if flat[i][0] != q.paragraph]
            mined = [w for w in mined if q.impossible or squad.answer_free(w, q)]
            for w in mined[:_count(recipe.mined_negatives, rng)]:
                out.append(_answers(q.text, w, 0.0, "mined"))
    return out


def _support_synthetic(article: squad.Article, n: int, rng: random.Random) -> list[Pair]:
    """Sentence vs itself shortened (supported), perturbed or vs a neighbour (unsupported)."""
    pool = sorted({e for p in article.paragraphs for e in perturb.entities(p)})
    candidates = [(ws, w) for p in article.paragraphs
                  for ws in [sentence_windows(p, max_windows=10_000)] for w in ws
                  if len(w.split()) >= 8]
    rng.shuffle(candidates)
    out: list[Pair] = []
    for windows, w in candidates:
        if len(out) >= n:
            break
        claim = perturb.shorten(w, rng) or w
        out.append(_supports(claim, w, 1.0, "syn-support"))
        changed = perturb.perturb(claim, w, pool, rng)
        if changed:
            out.append(_supports(changed[0], w, 0.0, f"syn-{changed[1]}"))
        neighbours = [x for x in windows if x != w]
        if neighbours and rng.random() < 0.5:
            out.append(_supports(claim, rng.choice(neighbours), 0.0, "syn-unrelated"))
    return out


def _scifact(data: Path, rng: random.Random) -> list[Pair]:
    claims, corpus = scifact.load(data, "train")
    doc_ids = sorted(corpus)
    sentences = [(d, s) for d in doc_ids for s in corpus[d][1]]
    index = scifact.BM25([s for _, s in sentences])
    out: list[Pair] = []
    for c in claims:
        evidence_docs = {e.doc_id for e in c.evidence}
        for e in c.evidence:
            if e.doc_id not in corpus:
                continue
            sents = corpus[e.doc_id][1]
            support = 1.0 if e.label == "SUPPORT" else 0.0
            for i in e.sentences[:2]:
                if i < len(sents):
                    out.append(Pair(c.text, sents[i], 1.0, support, f"sf-{e.label.lower()}"))
            rest = [s for i, s in enumerate(sents) if i not in e.sentences]
            if rest:
                out.append(Pair(c.text, rng.choice(rest), 0.0, 0.0, "sf-other"))
        if not c.evidence:
            cited = [s for d in c.cited if d in corpus for s in corpus[d][1]]
            if cited:
                best = scifact.BM25(cited).top(c.text, 1)
                s = cited[best[0]] if best else rng.choice(cited)
                out.append(Pair(c.text, s, 0.0, 0.0, "sf-nei"))
        mined = [sentences[i][1] for i in index.top(c.text, 6)
                 if sentences[i][0] not in evidence_docs and sentences[i][0] not in c.cited]
        if mined:
            out.append(Pair(c.text, mined[0], 0.0, 0.0, "sf-mined"))
    return out
