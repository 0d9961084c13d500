"""The question read against its workspace: what it names and how informative each of its
words is there (:class:`Focus`), and what to count."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from abstain.mentions import Kind, Mention
from abstain.question import Question
from abstain.records import TermCounts
from abstain.text import compound, english_rarity

CONTEXT_WEIGHT = 0.3
"""Weight of a word from a context sentence or a soft mention, relative to an asked word."""


@dataclass(frozen=True, slots=True)
class Focus:
    """A question read against its workspace: what it names and how informative each word is."""

    question: Question
    counts: TermCounts
    weighted: tuple[tuple[str, str, float, tuple[str, ...]], ...] = ()
    """(word, stem, weight, joins) of each content word, the weight computed once
    (:meth:`weight`; joins: :attr:`abstain.mentions.Term.joins`)."""
    weighted_identifiers: tuple[tuple[Mention, float], ...] = ()
    """Each identifier with its rarity in the workspace."""

    @classmethod
    def of(cls, question: Question, counts: TermCounts) -> Focus:
        focus = cls(question, counts)
        return replace(
            focus,
            weighted=tuple((t.word, t.stem, focus.weight(t.word, context=t.context), t.joins)
                           for t in question.terms),
            weighted_identifiers=tuple((m, focus.rarity(m)) for m in question.identifiers))

    def weight(self, word: str, *, context: bool = False) -> float:
        """How much a word of the question counts: rare in the workspace *and* in English."""
        return (self._informativeness(word) * english_rarity(word)
                * (CONTEXT_WEIGHT if context else 1.0))

    def exists(self, mention: Mention) -> bool:
        """Somewhere in the workspace; a flag of several words written as one token there
        (``--proxy-headers``: "Fixing proxy headers" is not that flag)."""
        return self.counts.count(counted(mention)) > 0

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


def phrases(question: Question) -> list[str]:
    """What to count in the workspace: each content word and each mention (:func:`counted`:
    its words, a flag of several words as one token)."""
    out = [t.word for t in question.terms]
    out += [counted(m) for m in question.mentions if m.kind is not Kind.SOFT and m.words]
    return list(dict.fromkeys(out))


def counted(mention: Mention) -> str:
    """The phrase a mention's existence is counted by: its words, or for a flag of several
    words their :func:`~abstain.text.compound`."""
    if mention.why == "flag" and len(mention.words) > 1:
        return compound(mention.words)
    return " ".join(mention.words)


