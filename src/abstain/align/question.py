"""The question read against its workspace: what it names and how informative each of its
words is there (:class:`Focus`), what to count, and the two sides of a comparison."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from abstain.align.types import AnswerType, expected_type
from abstain.mentions import Kind, Mention, QuestionParts
from abstain.records import TermCounts
from abstain.text import (
    content_words,
    english_rarity,
    stem,
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


def compared(asked: str) -> tuple[frozenset[str], ...]:
    """The two sides of "the difference between A and B", as content stems; () otherwise."""
    match = _COMPARE.search(asked)
    if match is None:
        return ()
    sides = tuple(frozenset(stem(w) for w in content_words(side)) for side in match.groups())
    return sides if all(sides) else ()


