"""Citation markers numbered 1..n in the order the answer first uses them.

Generators cite evidence by its position in the list they were given (``[1]``, ``[3]``).
A reader should see ``[1]``, ``[2]``, … in reading order instead, so the answer's markers
are renumbered by first use; each :class:`~abstain.answer.Citation` keeps the evidence
number it quotes as ``evidence_n``. A stream numbers sentence by sentence with the
same rule, so its markers match the final answer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from abstain.records import AnswerSentence, Citation

if TYPE_CHECKING:
    from abstain.records import Sentence


class Numbering:
    """Evidence number -> display number, assigned in order of first use."""

    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}

    def number(self, evidence_n: int) -> int:
        return self.numbers.setdefault(evidence_n, len(self.numbers) + 1)

    def sentence(self, sentence: Sentence) -> AnswerSentence:
        """``sentence`` (citing evidence numbers) with its markers numbered for display."""
        return AnswerSentence(sentence.text, tuple(self.number(n) for n in sentence.cites),
                              sentence.cites)


def number_by_first_use(sentences: Sequence[Sentence], citations: Sequence[Citation]
                        ) -> tuple[tuple[AnswerSentence, ...], tuple[Citation, ...]]:
    """The sentences and citations with markers numbered 1..n by first use; with no
    citation, the markers stay as written."""
    if not citations:
        return tuple(AnswerSentence(s.text, s.cites, s.cites) for s in sentences), ()
    numbering = Numbering()
    shown = tuple(numbering.sentence(s) for s in sentences)
    for citation in citations:  # cited but without a marker in the text: after
        numbering.number(citation.evidence_n or citation.n)
    numbered = sorted(  # stable: two quotes of one source keep their order
        (replace(c, n=numbering.number(c.evidence_n or c.n), evidence_n=c.evidence_n or c.n)
         for c in citations), key=lambda c: c.n)
    return shown, tuple(numbered)
