"""Citation markers numbered 1..n in the order the answer first uses them.

Generators cite evidence by its position in the list they were given (``[1]``, ``[3]``).
A reader should see ``[1]``, ``[2]``, … in reading order instead, so the answer's markers
are renumbered by first use; each :class:`~abstain.answer.Citation` keeps the evidence
number it quotes as ``evidence_n``. A stream numbers sentence by sentence with the
same rule, so its markers match the final answer's.
"""

from __future__ import annotations

import re
from dataclasses import replace

from abstain.answer import Answer

_MARKER = re.compile(r"\[(\d+)\]")


class Numbering:
    """Evidence number -> display number, assigned in order of first use."""

    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}

    def number(self, evidence_n: int) -> int:
        return self.numbers.setdefault(evidence_n, len(self.numbers) + 1)

    def apply(self, text: str) -> str:
        """``text`` with each ``[k]`` marker replaced by its display number."""
        return _MARKER.sub(lambda m: f"[{self.number(int(m.group(1)))}]", text)

    def sources(self, text: str) -> list[dict[str, int]]:
        """The markers of an already numbered ``text``: ``[{n, evidence_n}]``."""
        back = {shown: ev for ev, shown in self.numbers.items()}
        seen = dict.fromkeys(int(m.group(1)) for m in _MARKER.finditer(text))
        return [{"n": n, "evidence_n": back[n]} for n in seen if n in back]


def number_by_first_use(answer: Answer) -> Answer:
    """The answer with markers and citations numbered 1..n by first use."""
    if not answer.answered or not answer.citations:
        return answer
    numbering = Numbering()
    text = numbering.apply(answer.text)
    for citation in answer.citations:  # cited but without a marker in the text: after
        numbering.number(citation.evidence_n or citation.n)
    citations = sorted(  # stable: two quotes of one source keep their order
        (replace(c, n=numbering.number(c.evidence_n or c.n), evidence_n=c.evidence_n or c.n)
         for c in answer.citations), key=lambda c: c.n)
    return replace(answer, text=text, citations=tuple(citations))
