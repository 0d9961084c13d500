"""The question read against its workspace: what it names and how informative each of its
words is there (:class:`Focus`), what to count, and the two sides of a comparison."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from abstain.align.types import AnswerType, expected_type
from abstain.mentions import Kind, Mention, QuestionParts
from abstain.records import TermCounts
from abstain.text import (
    STOPWORDS,
    content_words,
    english_rarity,
    stem,
    tokens,
)

CONTEXT_WEIGHT = 0.3
"""Weight of a word from a context sentence or a soft mention, relative to an asked word."""


@dataclass(frozen=True, slots=True)
class Focus:
    """A question read against its workspace: what it names and how informative each word is."""

    parts: QuestionParts
    counts: TermCounts
    answer_type: AnswerType | None
    weighted: tuple[tuple[str, str, float], ...] = ()
    """(word, stem, weight) of each content word, computed once (:meth:`weight`)."""
    weighted_identifiers: tuple[tuple[Mention, float], ...] = ()
    """Each identifier with its rarity in the workspace."""

    @classmethod
    def of(cls, parts: QuestionParts, counts: TermCounts) -> Focus:
        focus = cls(parts, counts, expected_type(parts.asked))
        return replace(
            focus,
            weighted=tuple((t.word, t.stem, focus.weight(t.word, context=t.context))
                           for t in parts.terms),
            weighted_identifiers=tuple((m, focus.rarity(m)) for m in parts.identifiers))

    def weight(self, word: str, *, context: bool = False) -> float:
        """How much a word of the question counts: rare in the workspace *and* in English."""
        return (self._informativeness(word) * english_rarity(word)
                * (CONTEXT_WEIGHT if context else 1.0))

    def exists(self, mention: Mention) -> bool:
        return self.counts.count(" ".join(mention.words)) > 0

    def rarity(self, mention: Mention) -> float:
        """1 for a mention in one chunk of the workspace, towards 0 for one in most chunks."""
        return self._informativeness(" ".join(mention.words))

    def _informativeness(self, phrase: str) -> float:
        """``1 - log(df + 1) / log(N + 1)``: 1 in no chunk, about 0 in every chunk."""
        total = self.counts.total
        if total <= 0:
            return 0.0
        df = min(self.counts.count(phrase), total)
        return 1.0 - math.log(df + 1) / math.log(total + 1)


def phrases(parts: QuestionParts) -> list[str]:
    """What to count in the workspace: each content word and each mention's words."""
    out = [t.word for t in parts.terms]
    out += [" ".join(m.words) for m in parts.mentions if m.kind is not Kind.SOFT and m.words]
    return list(dict.fromkeys(out))


_COMPARE = re.compile(r"\bdifference\s+between\s+(.+?)\s+and\s+(.+?)(?=\s+(?:in|on|for|when|with"
                      r"|if)\b|[?.!]|$)", re.IGNORECASE)


_VERSUS = re.compile(r"\s(?:vs\.?|versus|compared\s+(?:to|with)|or)\s", re.IGNORECASE)
_CHOICE = re.compile(r"^\W*(?:should|shall|which|is|are|do|does|can|would|will)\b"
                     r"|\b(?:better|worse|faster|slower|safer|prefer|preferred|choose|pick"
                     r"|recommended)\b", re.IGNORECASE)
"""A question that weighs alternatives: only there does "A or B" compare two things."""
SIDE_WORDS = 3
"""A side of "A vs B" is at most this many content words next to the connective."""


def compared(asked: str) -> tuple[frozenset[str], ...]:
    """The two sides of a comparison, as content stems: "the difference between A and B",
    "A vs / versus / compared to B", and "A or B" in a question that weighs alternatives
    ("Should I use WAL or journal mode?"); () otherwise."""
    match = _COMPARE.search(asked)
    if match is not None:
        sides = tuple(frozenset(stem(w) for w in content_words(side))
                      for side in match.groups())
        return sides if all(sides) else ()
    for match in _VERSUS.finditer(asked):
        if match.group(0).strip().lower() == "or" and not _CHOICE.search(asked):
            continue
        left = _side(reversed(tokens(re.split(r"[?.!,;:]", asked[:match.start()])[-1])))
        right = _side(tokens(re.split(r"[?.!,;:]", asked[match.end():])[0]))
        if left and right:
            return left, right
    return ()


def _side(words: Iterable[str]) -> frozenset[str]:
    """The content words next to a comparison's connective, up to the first stopword."""
    side: list[str] = []
    for word in words:
        if word in STOPWORDS or len(side) == SIDE_WORDS:
            break
        side.append(stem(word))
    return frozenset(side)


