"""Which units of the kept evidence the extractive answer quotes: a learned choice.

Every quotable unit (:func:`abstain.text.split_units`: a sentence, list item, table row,
definition or code block) of the first kept chunks that can answer (:func:`answers`) is a
:class:`Candidate`, described by the numbers :data:`FEATURES` names: how much of what the
question asks about it holds (each asked word once, and weighted by how rare it is in English,
:func:`abstain.text.words.english_rarity`), what its passage's title and headings hold, its
chunk's retrieval (vector similarity, keyword rank, evidence rank), the reader's probability
for the windows that hold it when the reader read them (:mod:`abstain.rerank.reading`), its
form (heading, list item, code, its place in the chunk, a label like "Default:" or "Cause:"
naming an asked word) and its neighbours ("These are prefixed with no-" after the sentence
that names the asked flag).

A :class:`QuoteChoice` — a conditional logit: a softmax over one question's candidates — scores
them. It was fitted on the users' questions of the 152 ``train`` sets of ``data/userdocs``
(each answerable question's candidates, those holding an answer key on a gold page as the
targets: ``bench/fit_quote_choice.py``) and is measured on the 12 ``eval`` projects and
realdocs-dev, which it never saw (docs/EVALUATION.md, "A learned quote choice"). Its weights and
the fit's report are in ``abstain/data/quote_choice.json``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from abstain.align import AskedType, holds
from abstain.evidence import Evidence
from abstain.mentions import Mention
from abstain.question import Question
from abstain.text import content_words, split_units, stem, stems, tokens
from abstain.text.words import english_rarity

LABEL_CREDIT = 0.5
"""What the chunk's title or heading holds counts this much in :func:`asked_share`."""
RELATED_CREDIT = 0.5
"""A related form (same first letters, not stem-equal) counts this much of a match."""
POINTS_BACK = frozenset({"it", "its", "this", "these", "that", "those", "they", "such",
                         "then", "otherwise", "also", "however"})
"""A sentence opening on one of these needs the sentence before it to be understood."""
LEAD_CHARS = 40
"""A unit's lead label ("Default:", "Cause:", "Type:") ends on a colon within this many
characters."""

FEATURES = (
    "overlap", "overlap_of_best", "rare_held", "rare_in_label", "rare_of_best",
    "evidence_rank_inverse", "first_evidence", "typed", "identifier", "heading", "whole",
    "code", "log_length", "read", "read_of_best", "chunk_read", "first_unit", "place",
    "ends_colon", "points_back", "new_words", "vector_similarity", "keyword_rank_inverse",
    "in_both_arms", "sentence_overlap", "chunk_coverage", "previous_overlap", "next_overlap",
    "previous_rare", "next_rare", "after_colon", "before_pointer", "points_back_to_match",
    "lead_asked",
)
"""The numbers that describe a candidate, in the order the model's weights are stored."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One unit of the kept evidence that may be quoted."""

    cites: int
    """The evidence it is from, numbered from 1."""
    position: int
    """Its place among its chunk's units."""
    text: str
    whole: bool
    """A list item, definition, table row or code block (:class:`abstain.text.Unit`)."""
    typed: bool
    """It carries the type of answer the question asks for (a date, a number …)."""
    heading: bool
    """It is its passage's title or a heading."""
    overlap: float
    """:func:`asked_share`: the share of what the question asks about that it holds."""
    own_overlap: float
    """The same, of its own text alone (what only its passage's title and headings hold left
    out)."""
    features: tuple[float, ...]
    """Its :data:`FEATURES`."""


def candidates(question: Question, evidence: Sequence[Evidence]) -> list[Candidate]:
    """Every unit of ``evidence`` that can answer ``question``, described."""
    terms = asked_terms(question)
    asked = set(question.stems)
    typed_as = AskedType.of(question)
    weights = _rarities(question, terms)
    total = sum(weights.values()) or 1.0
    raw: list[tuple[int, int, str, bool, bool, bool, float, dict[str, float]]] = []
    for n, ev in enumerate(evidence, start=1):
        units = split_units(ev.text)
        label = ev.label
        label_stems = set(stems(label))
        headings = {*ev.chunk.heading_path, ev.document.title}
        best_read = max((w.probability for w in ev.read), default=0.0)
        in_chunk = set(stems(ev.text)) | label_stems
        coverage = sum(v for k, v in weights.items() if k in in_chunk) / total
        hit = ev.hit
        ours: dict[int, dict[str, float]] = {}
        for position, unit in enumerate(units):
            text = unit.text
            if not answers(text, asked):
                continue
            words = set(stems(text))
            held = asked_share(terms, question.identifiers, text, label, label_stems)
            read = max((w.probability for w in ev.read if text in w.sentences), default=0.0)
            typed = typed_as is not None and typed_as.carried_by(text)
            said = tokens(text)
            lead = text.split(":", 1)[0] if ":" in text[:LEAD_CHARS] else ""
            f = {
                "overlap": held,
                "rare_held": sum(v for k, v in weights.items() if k in words) / total,
                "rare_in_label": sum(v for k, v in weights.items()
                                     if k in label_stems and k not in words) / total,
                "evidence_rank_inverse": 1.0 / n, "first_evidence": float(n == 1),
                "typed": float(typed),
                "identifier": float(any(holds(m, text) for m in question.identifiers)),
                "heading": float(text in headings), "whole": float(unit.whole),
                "code": float("\n" in text), "log_length": math.log1p(len(said)),
                "read": read, "read_of_best": read / best_read if best_read else 0.0,
                "chunk_read": float(bool(ev.read)), "first_unit": float(position == 0),
                "place": position / max(1, len(units) - 1),
                "ends_colon": float(text.rstrip().endswith(":")),
                "points_back": float(bool(said) and said[0] in POINTS_BACK),
                "new_words": math.log1p(sum(stem(w) not in asked for w in content_words(text))),
                "vector_similarity": (1.0 - hit.vector_distance
                                      if hit.vector_distance is not None else 0.0),
                "keyword_rank_inverse": 1.0 / hit.keyword_rank if hit.keyword_rank else 0.0,
                "in_both_arms": float(hit.in_both),
                "sentence_overlap": asked_share(terms, question.identifiers, text, "", set()),
                "chunk_coverage": coverage,
                "lead_asked": float(any(stem(w) in asked for w in tokens(lead))),
            }
            ours[position] = f
            raw.append((n, position, text, unit.whole, typed, text in headings, held, f))
        texts = [u.text for u in units]
        for position, f in ours.items():
            before, after = ours.get(position - 1, {}), ours.get(position + 1, {})
            f["previous_overlap"] = before.get("overlap", 0.0)
            f["next_overlap"] = after.get("overlap", 0.0)
            f["previous_rare"] = before.get("rare_held", 0.0)
            f["next_rare"] = after.get("rare_held", 0.0)
            f["after_colon"] = float(position > 0 and texts[position - 1].rstrip().endswith(":"))
            following = tokens(texts[position + 1]) if position + 1 < len(texts) else []
            f["before_pointer"] = float(bool(following) and following[0] in POINTS_BACK)
            f["points_back_to_match"] = f["previous_overlap"] * f["points_back"]
    best_overlap = max((r[6] for r in raw), default=0.0) or 1.0
    best_rare = max((r[7]["rare_held"] + r[7]["rare_in_label"] for r in raw), default=0.0) or 1.0
    out = []
    for n, position, text, whole, typed, heading, held, f in raw:
        f["overlap_of_best"] = held / best_overlap
        f["rare_of_best"] = (f["rare_held"] + f["rare_in_label"]) / best_rare
        out.append(Candidate(n, position, text, whole, typed, heading, held,
                             f["sentence_overlap"], tuple(f[name] for name in FEATURES)))
    return out


@dataclass(frozen=True, slots=True)
class QuoteChoice:
    """A conditional logit over one question's candidates (:data:`FEATURES`)."""

    weights: tuple[float, ...]
    """One per :data:`FEATURES`, on the raw numbers (a softmax needs no intercept)."""

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURES):
            raise ValueError(f"a quote choice needs {len(FEATURES)} weights, one per feature; "
                             f"got {len(self.weights)}")
        if not all(math.isfinite(w) for w in self.weights):
            raise ValueError("a quote choice's weights must be finite numbers")

    def probabilities(self, found: Sequence[Candidate]) -> np.ndarray:
        """P(this candidate is the one that answers), over ``found`` (summing to 1)."""
        if not found:
            return np.zeros(0)
        scores = np.array([c.features for c in found]) @ np.array(self.weights)
        raised = np.exp(scores - scores.max())
        chance: np.ndarray = raised / raised.sum()
        return chance

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QuoteChoice:
        if data.get("features") != list(FEATURES):
            raise ValueError("the quote choice file was fitted on other features than "
                             "this version computes; fit it again (bench/fit_quote_choice.py)")
        return cls(tuple(float(w) for w in data["weights"]))


@functools.cache
def shipped_choice() -> QuoteChoice:
    """The choice fitted on ``data/userdocs``' train sets, shipped in ``abstain/data``."""
    raw = resources.files("abstain").joinpath("data/quote_choice.json").read_text()
    return QuoteChoice.from_json(json.loads(raw))


def answers(sentence: str, asked: set[str]) -> bool:
    """A sentence can answer when it is no question and adds a content word or a number of
    its own."""
    if sentence.rstrip().endswith("?"):
        return False
    return any(stem(w) not in asked for w in content_words(sentence)) or any(
        t.isdigit() and t not in asked for t in tokens(sentence))


def asked_terms(question: Question) -> list[str]:
    """The stems of what the question asks about beside its identifiers (all its terms when
    that leaves none)."""
    id_words = {w for m in question.identifiers for w in m.words}
    terms = [t.stem for t in question.terms if not t.context and t.word not in id_words]
    return terms or [t.stem for t in question.terms]


def asked_share(terms: list[str], identifiers: tuple[Mention, ...], sentence: str, label: str,
            label_stems: set[str]) -> float:
    """The share of ``terms`` (stems) and ``identifiers`` that ``sentence`` holds: a stem
    whole, a related form (:data:`RELATED_CREDIT`), or only in the passage's ``label``
    (:data:`LABEL_CREDIT`): how much a unit overlaps the question."""
    wanted = len(terms) + len(identifiers)
    if not wanted:
        return 0.0
    words = set(stems(sentence))
    credit = sum(_term_credit(t, words, label_stems) for t in terms)
    credit += sum(1.0 if holds(m, sentence) else LABEL_CREDIT if holds(m, label) else 0.0
                  for m in identifiers)
    return credit / wanted


def _term_credit(term: str, words: set[str], label: set[str]) -> float:
    for place, weight in ((words, 1.0), (label, LABEL_CREDIT)):
        if term in place:
            return weight
    prefix = term[:max(4, len(term) - 2)]
    for place, weight in ((words, 1.0), (label, LABEL_CREDIT)):
        if len(term) >= 5 and any(w.startswith(prefix) for w in place):
            return weight * RELATED_CREDIT
    return 0.0


def _rarities(question: Question, terms: list[str]) -> dict[str, float]:
    """Each asked stem with its weight: 1 for an identifier's word, else its rarity."""
    out = {t: english_rarity(t) for t in terms}
    out.update({stem(w): 1.0 for m in question.identifiers for w in m.words})
    return out
