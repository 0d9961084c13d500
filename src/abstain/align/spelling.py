"""Misspellings: a question's word read as the retrieved evidence's word it misspells.

Users type "disconecting" and "pasword"; every word-level check and the reader read the
question as typed, so such a question was refused although its page was retrieved (the vector
arm reads past a typo). :func:`misspellings` finds, for each word of the question that may be
a misspelling, the one word of the retrieved evidence it misspells; the score stage reads the
question with those words put right (:func:`corrected`) and says so in its notes.

A word of an English question may be a misspelling when it is at least
:data:`MISSPELT_LETTERS` letters long, no English word (``data/english_zipf.tsv``) and in no
document of the workspace. It misspells an evidence word one edit away
(:func:`abstain.text.one_edit`) — compared as written, else as stemmed ("disconecting" /
"disconnect") — that is an English word: so a technical term is never read as another
("termux" is not "termui", nor a made-up product one of the workspace's).
When two evidence words are one edit away, nothing is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from abstain.align.question import Focus
from abstain.text import is_english, one_edit, stem, tokens

MISSPELT_LETTERS = 6
"""A word this long at least may be read as a misspelling."""


def may_be_misspelt(focus: Focus, word: str) -> bool:
    """Long enough, no English word, in no document of the workspace."""
    return (len(word) >= MISSPELT_LETTERS and word.isalpha() and not is_english(word)
            and focus.counts.count(word) == 0)


def misspellings(focus: Focus, texts: Iterable[str]) -> dict[str, str]:
    """Each word of the question that misspells a word of ``texts`` (the retrieved
    evidence), with that word as the evidence writes it."""
    if focus.question.language != "en":
        return {}  # English words are what it puts right
    wrong = [t.word for t in focus.question.terms if may_be_misspelt(focus, t.word)]
    if not wrong:
        return {}
    written = {w for text in texts for w in tokens(text) if w.isalpha() and is_english(w)}
    by_stem: dict[str, str] = {}
    for w in sorted(written):
        by_stem.setdefault(stem(w), w)
    out: dict[str, str] = {}
    for word in wrong:
        found = {w for w in written if one_edit(word, w)}
        if not found:
            word_stem = stem(word)
            found = {w for s, w in by_stem.items() if len(s) >= MISSPELT_LETTERS - 1
                     and one_edit(word_stem, s)}
        if len(found) == 1:
            out[word] = found.pop()
    return out


def corrected(text: str, fixes: Mapping[str, str]) -> str:
    """``text`` with each misspelt word (whole, any case) put right."""
    for wrong, right in fixes.items():
        text = re.sub(rf"(?<!\w){re.escape(wrong)}(?!\w)", right, text, flags=re.IGNORECASE)
    return text
