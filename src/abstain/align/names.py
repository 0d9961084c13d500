"""The names a question asks about as documentation writes them: its identifiers, flags,
and option names ("log-level", "audit-command") that running text does not take for
identifiers and a reference page writes as a section's whole heading. Read by the stated
defaults (:mod:`abstain.rerank.defaults`) and by the ranking of evidence, whose section
an asked name heads (:func:`abstain.align.checks.headed_first`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from abstain.mentions import LETTER_FLAG
from abstain.question import Question
from abstain.text import fold, tokens
from abstain.text.grammar import OPTION_NAME, is_abbreviation

WRITTEN_OPTION = re.compile(rf"(?<![\w.-])(?:{OPTION_NAME.pattern})(?![\w-])")
"""An option's name written in running text, whole (not part of a longer name or path)."""
_PARENTHESIS = re.compile(r"\([^)]*\)")
_ARGUMENT = re.compile(r"(?:=|\s)(?:<[^>]*>|\[[^\]]*\]|[A-Z][A-Z0-9_-]*\b)")
_FLAG_HEADING = re.compile(r"--?[\w-]+(?:\s*[,/]\s*--?[\w-]+)*")


@dataclass(frozen=True, slots=True)
class AskedName:
    """A name the question asks about, as it writes it."""

    text: str
    cased: bool = False
    """A one-letter flag: its case tells it from another (``-l`` is not ``-L``)."""
    heading_only: bool = False
    """Written as an option's name but not taken for an identifier ("log-level", or
    "read-only"): it is the asked name only as a section's whole heading."""

    @property
    def pattern(self) -> re.Pattern[str]:
        """The name whole: not inside a longer one (``trailing_comma`` is not
        ``match_block_trailing_comma``'s), qualified or not (``PngImagePlugin.MAX_TEXT_MEMORY``
        is ``MAX_TEXT_MEMORY``)."""
        return re.compile(rf"(?<![\w-]){re.escape(self.text)}(?![\w-])",
                          0 if self.cased else re.IGNORECASE)

    def ends(self, text: str) -> list[int]:
        """Where the name ends in ``text`` (character offsets)."""
        return [m.end() for m in self.pattern.finditer(text)]

    def heads(self, heading: str) -> bool:
        """Whether ``heading`` is the name's own: its words and no other, but for a
        parenthesis after them ("imports_granularity", "Line Length" for ``line_length``,
        "max_width (integer)"); a flag's, its forms and their argument ("-M,
        --max-columns=NUM", "--path-separator=SEPARATOR"), a one-letter flag as written."""
        bare = _PARENTHESIS.sub(" ", heading)
        if self.text.startswith("-"):  # a flag's heading: "-M, --max-columns=NUM"
            flags = _FLAG_HEADING.fullmatch(_ARGUMENT.sub("", bare).strip())
            return flags is not None and any(self.pattern.fullmatch(f) for f in
                                             re.split(r"[\s,/]+", flags.group(0)))
        return bool(tokens(bare)) and tokens(bare) == tokens(self.text)


def asked_names(question: Question) -> tuple[AskedName, ...]:
    """The names the question asks about: identifiers but versions, flags, and
    option names written as a reference heading writes them ("log-level", which running
    text does not take for an identifier: :data:`~abstain.text.grammar.OPTION_NAME`; read
    only as a heading, :attr:`AskedName.heading_only`)."""
    names = [AskedName(m.text, cased=LETTER_FLAG.fullmatch(m.text) is not None)
             for m in question.mentions
             if (m in question.identifiers and m.why != "version") or m.why == "flag"
             or m.letter_flag]
    written = {fold(n.text) for n in names}
    for m in WRITTEN_OPTION.finditer(question.asked):
        if fold(m.group(0)) not in written and not is_abbreviation(m.group(0)):
            names.append(AskedName(m.group(0), heading_only=True))
            written.add(fold(m.group(0)))
    return tuple(names)
