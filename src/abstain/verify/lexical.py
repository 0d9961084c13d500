"""A lexical stand-in for a trained support scorer.

A generated sentence is supported only when its cited source holds what it
says: every number, identifier and name of the sentence, and its content words
(Snowball stem-equal, the stemmer used everywhere in abstain)::

    coverage = ½ · local + ½ · global
        local  = share of the sentence's content words found in the best window of
                 two consecutive evidence sentences
        global = share found anywhere in the evidence
    support  = coverage · MISSING_WORD_FACTOR^(content words absent from the evidence)
                        · 0 if a number, identifier or name is absent from the evidence
                        · 0.7 if exactly one of sentence and best window is negated

With the default threshold 0.5 one absent content word already fails a sentence
("Members may visit on Sundays" against a source that says Saturdays), and an
absent name or number always does ("France won the 2018 World Cup" against a
source that names no winner). Numbers match after normalising ``1,000`` to
``1000`` and number words (``two``, ``fifteen``, ``seventy``; not ``one``) to digits; identifiers
(ADR-0050, ``storage.wal_segment_mb``) must occur whole. Words that only frame
a sentence ("may", "also", "according", "documents") are not content words. A
sentence without content words gets 1.0 (nothing to check).

It cannot see meaning: a paraphrase with other words scores low, and a
sentence that recombines the evidence's own words into a false statement
scores high. Answers it verified carry the note :data:`NOTE`.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from abstain.text import (
    FRAMING_WORDS,
    content_words,
    find_identifiers,
    find_names,
    holds_word,
    joined,
    number_words,
    occurs_in,
    stem,
    stems,
    tokens,
)
from abstain.verify.base import DEFAULT_SUPPORT_THRESHOLD

NOTE = ("lexical verifier: support is content-word, number and identifier overlap with the "
        "cited text, a stand-in until a trained support scorer is configured")

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|none|neither|nor|without)\b|n['’]t\b",
                       re.IGNORECASE)
_WINDOW_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_PLAIN_NUMBER = re.compile(r"v?\d+(?:\.\d+)*")


MISSING_WORD_FACTOR = 0.45
"""Each content word absent from the cited text multiplies support by this (one fails 0.5)."""


def content_stems(text: str) -> list[str]:
    """Stems of the content words of ``text`` (:func:`abstain.text.content_words`) less the
    words that frame an answer (:data:`abstain.text.FRAMING_WORDS`) and numbers, which
    :func:`numbers` checks."""
    spelled = number_words(text)
    return [stem(t) for t in content_words(text)
            if t not in FRAMING_WORDS and not t.isdigit() and t not in spelled]


def numbers(text: str) -> set[str]:
    found = {_norm_number(m.group(0)) for m in _NUMBER.finditer(text)}
    found.update(str(n) for n in number_words(text).values())
    return found


def _norm_number(raw: str) -> str:
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", raw):
        raw = raw.replace(",", "")
    raw = raw.rstrip(".,")
    return raw[:-2] if raw.endswith(".0") else raw


@dataclass(frozen=True, slots=True)
class Analysis:
    support: float
    coverage: float
    missing_numbers: tuple[str, ...]
    missing_identifiers: tuple[str, ...]
    missing_names: tuple[str, ...]
    negation_mismatch: bool
    best_window: str
    missing_words: tuple[str, ...] = ()
    """Stems of content words absent from the evidence."""

    def detail(self) -> str:
        parts = [f"coverage {self.coverage:.2f}"]
        missing = (*self.missing_numbers, *self.missing_identifiers, *self.missing_names,
                   *self.missing_words)
        if missing:
            parts.append("not in the evidence: " + ", ".join(missing))
        if self.negation_mismatch:
            parts.append("negation differs")
        return "; ".join(parts)


class LexicalVerifier:
    name = "lexical"
    threshold = DEFAULT_SUPPORT_THRESHOLD
    note = NOTE

    def check(self, sentence: str, evidence_texts: Sequence[str]) -> float:
        return self.analyse(sentence, evidence_texts).support

    def analyse(self, sentence: str, evidence_texts: Sequence[str]) -> Analysis:
        claim = list(dict.fromkeys(content_stems(sentence)))
        source = "\n".join(evidence_texts)
        windows = _windows(evidence_texts)
        window_stems = [set(content_stems(w)) for w in windows]
        all_stems = set().union(*window_stems) if window_stems else set()
        source_apart = functools.cache(lambda: joined(stems(source)))
        if any(s not in all_stems for s in claim):  # "WiFi" of a source's "Wi-Fi" is held
            for held, text in zip(window_stems, windows, strict=True):
                apart = functools.cache(lambda text=text: joined(stems(text)))
                held.update(s for s in claim if holds_word(s, (), held, apart))
            all_stems.update(s for s in claim if holds_word(s, (), all_stems, source_apart))
        if claim:
            global_cov = sum(s in all_stems for s in claim) / len(claim)
            scores = [sum(s in ws for s in claim) / len(claim) for ws in window_stems]
            best = max(range(len(scores)), key=scores.__getitem__) if scores else -1
            local_cov = scores[best] if scores else 0.0
            coverage = 0.5 * local_cov + 0.5 * global_cov
        else:
            best, coverage = -1, 1.0
        missing_words = tuple(s for s in claim if s not in all_stems)
        best_window = windows[best] if best >= 0 else ""
        source_numbers = numbers(source)
        missing_numbers = tuple(sorted(numbers(sentence) - source_numbers))
        missing_ids = tuple(
            i for i in find_identifiers(sentence)
            if not _PLAIN_NUMBER.fullmatch(i) and not occurs_in(i, source))
        source_tokens = set(tokens(source))
        missing_names = tuple(
            n for n in find_names(sentence)
            if not find_identifiers(n)
            and not all(t in source_tokens or holds_word(stem(t), (), frozenset(), source_apart)
                        for t in tokens(n)))
        negated = bool(_NEGATION.search(sentence))
        mismatch = bool(claim) and best_window != "" and negated != bool(
            _NEGATION.search(best_window))
        facts_missing = bool(missing_numbers or missing_ids or missing_names)
        support = 0.0 if facts_missing else (
            coverage * MISSING_WORD_FACTOR ** len(missing_words) * (0.7 if mismatch else 1.0))
        return Analysis(round(min(1.0, max(0.0, support)), 4), round(coverage, 4),
                        missing_numbers, missing_ids, missing_names, mismatch, best_window,
                        missing_words)


def _windows(texts: Sequence[str]) -> list[str]:
    """Runs of two consecutive sentences of each text (or the single sentence)."""
    out: list[str] = []
    for text in texts:
        parts = [p for p in _WINDOW_SPLIT.split(text) if p.strip()]
        if len(parts) <= 1:
            out.extend(parts)
        else:
            out.extend(f"{a} {b}" for a, b in itertools.pairwise(parts))
    return out


def best_sentence(claim: str, text: str) -> str:
    """The sentence of ``text`` that shares the most content words with ``claim``."""
    wanted = set(content_stems(claim)) | numbers(claim)
    parts = [p.strip() for p in _WINDOW_SPLIT.split(text) if p.strip()]
    if not parts:
        return ""

    def score(part: str) -> tuple[float, int]:
        have = set(content_stems(part)) | numbers(part)
        return (len(wanted & have) / (len(wanted) or 1), -len(part))

    return max(parts, key=score)
