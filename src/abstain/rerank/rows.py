"""Reading a table row by its columns, where the reader reads a row as prose.

Ingest writes a table row (CSV, spreadsheet, Markdown/HTML/reST/Word tables) as one line of
"column: value" pairs (:func:`abstain.ingest.blocks.table_row`). The reader was trained on
sentences; it scores such a line by its words and cannot tell a row that holds the asked
column from one that does not ("Which carrier shipped ORD-00411?" reads as answered by a row
with no carrier). A row is a record, so it can be read as one: when it holds everything the
question names (its identifiers and names, among the row's values), then

* it **answers** when every asked word is in the row and one of them names a column other
  than the one the asked identifier sits in ("Which *city* was ORD-00411 shipped to?" of
  ``order_id: ORD-00411; city: Tartu; status: shipped``);
* it **does not answer** when the question names what it asks for ("which *carrier*", "what
  is the *discount* on", :func:`asked_property`), that word is nowhere in the row, no asked
  word names a column, and the question does not ask for a place, a date, a person, an
  amount or a name that a column may hold under another name ("where", "when", "who",
  "how", "what is X called") — "Which *carrier* shipped ORD-00411?";
* else the reader's score stands ("How much did ORD-00411 cost?" of a ``total_eur`` column).

Where one row read holds an asked identifier, the other rows read that hold none are other
records and do not answer: the reader scores every row of a table alike.

:func:`abstain.rerank.reading.read_evidence` applies the verdict to that window's probability;
the audit trail's reading names the rule (``Reading.rows``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from abstain.question import Question
from abstain.text import content_words, stem, tokens

ANSWERS = 0.9
"""A row's probability when its columns answer: above the reading's veto and the bar at
which the word-level checks are waived (``GateThresholds.waive_lexical_at``)."""
DOES_NOT_ANSWER = 0.05
"""A row's probability when it names the asked thing but holds no column for what is
asked: below every preset's veto."""

_PAIR = re.compile(r"^([^:;]{1,60}):\s(.*)$")
_MAX_COLUMN_WORDS = 6
_PROPERTY = re.compile(r"^\W*(?:what|which)(?:'s|\s+(?:is|are|was|were))?\s+(?:the\s+|an?\s+)?"
                       r"((?:[\w-]+\s+)?[\w-]+)", re.IGNORECASE)
"""The words a what / which question asks for: "which *carrier shipped*", "what is the
*discount on*" (the words after them are the row's key or context)."""
_POSSESSED = re.compile(r"\w['’]s\s+((?:[\w-]+\s+)?[\w-]+)\s*[?.!]*\s*$")
""""What is E-10423's *home address*?": what a possessive at the end asks for."""
_ASKS_OTHERWISE = re.compile(r"\b(?:where|when|who|whom|whose|how|called|named)\b",
                             re.IGNORECASE)
"""A place, date, person, amount, manner or name: a column may hold it under another name."""


class Verdict(StrEnum):
    ANSWERS = "answers"
    DOES_NOT_ANSWER = "does_not_answer"
    ANOTHER_RECORD = "another_record"


@dataclass(frozen=True, slots=True)
class Row:
    """A table row as ingest writes it: its (column, value) pairs."""

    cells: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, window: str) -> Row | None:
        """The row ``window`` is, when it is exactly one row of at least two named cells (its
        list marker, which the reader's windows drop, or not)."""
        text = window.strip().removeprefix("- ")
        cells: list[tuple[str, str]] = []
        for part in text.split("; "):
            match = _PAIR.match(part)
            if match is None or len(match.group(1).split()) > _MAX_COLUMN_WORDS:
                return None
            cells.append((match.group(1).strip(), match.group(2).strip()))
        return cls(tuple(cells)) if len(cells) >= 2 else None


def verdict(question: Question, row: Row) -> Verdict | None:
    """Whether ``row`` answers ``question`` by its columns; None where it cannot tell, or
    where the row is not the record asked about."""
    named = question.identifiers + question.names
    if not named:
        return None
    column_stems = [{stem(t) for t in tokens(column)} for column, _ in row.cells]
    value_words = [set(tokens(value)) for _, value in row.cells]
    everything = set().union(*value_words, *(set(tokens(c)) for c, _ in row.cells))
    keyed = {i for i, words in enumerate(value_words)
             for m in named if m.words and set(m.words) <= words}
    if not keyed or not all(set(m.words) <= everything for m in named):
        return None
    value_stems = {stem(t) for words in value_words for t in words}
    naming: set[int] = set()
    missing = False
    for term in question.terms:
        if term.context or term.compound:
            continue
        columns = {i for i, stems in enumerate(column_stems) if term.stem in stems}
        if columns - keyed:
            naming |= columns - keyed
        elif term.stem not in value_stems and not columns:
            missing = True
    if naming and not missing:
        return Verdict.ANSWERS
    held = value_stems.union(*column_stems)
    if not naming and any(stem(w) not in held for w in asked_property(question.asked)) \
            and not _ASKS_OTHERWISE.search(question.asked):
        return Verdict.DOES_NOT_ANSWER
    return None


def asked_property(asked: str) -> list[str]:
    """The content words of what a "what / which" question asks for: "carrier" of "Which
    carrier shipped ORD-00411?", "discount" of "What is the discount on …", "home address" of
    "What is X's home address?"; [] for a question that asks otherwise ("What does
    `pdm install --prod` do if …?")."""
    match = _POSSESSED.search(asked) or _PROPERTY.search(asked)
    return [] if match is None else content_words(match.group(1))


def holds_an_identifier(question: Question, row: Row) -> bool:
    """Whether one of the question's identifiers is among ``row``'s values."""
    values = set().union(*(set(tokens(value)) for _, value in row.cells))
    return any(m.words and set(m.words) <= values for m in question.identifiers)


def read(question: Question, windows: Sequence[str], probabilities: Sequence[float]
         ) -> list[tuple[float, Verdict | None]]:
    """Each window's probability with its row's verdict applied, and the verdict. Where one
    row read holds an asked identifier, the rows that hold none are other records: they do
    not answer (the reader scores every row of a table alike)."""
    parsed = [Row.parse(w) for w in windows]
    verdicts = [None if row is None else verdict(question, row) for row in parsed]
    asked_row = any(row is not None and holds_an_identifier(question, row) for row in parsed)
    out: list[tuple[float, Verdict | None]] = []
    for row, found, p in zip(parsed, verdicts, probabilities, strict=True):
        if found is None and asked_row and row is not None \
                and not holds_an_identifier(question, row):
            found = Verdict.ANOTHER_RECORD
        if found is Verdict.ANSWERS:
            p = max(p, ANSWERS)
        elif found is not None:
            p = min(p, DOES_NOT_ANSWER)
        out.append((p, found))
    return out
