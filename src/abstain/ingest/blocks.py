"""The one document model every format is parsed into: sections of typed blocks.

A parser (Markdown, HTML, PDF, plain text, reStructuredText, Word, PowerPoint, notebooks,
e-mail, CSV, Excel) turns a file into a :class:`ParsedDocument`: sections with their heading path,
each holding typed :class:`Block` s. A block's ``text`` is the *unit* as it appears in
a chunk, one line except code::

    paragraph    its text, on one line
    heading      the heading's text, on one line (opens the section it heads)
    list item    "- text"; ``lead`` keeps the sentence that introduces the list
    definition   "- term: text"  (definition lists, reST field lists, ``term: text``)
    table row    "- column: value; column: value" (the header carried by every row)
    code         the code between ``` fences, whole

Downstream, :func:`abstain.text.split_units` reads a chunk back into these units:
a list item, definition or row is one quotable unit (never split into sentences, never
run into its neighbour), a code block is one unit, a paragraph is split into sentences.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from abstain.ingest.visibility import Dropped
from abstain.text import FENCE, clean

_SPACES = re.compile(r"\s+")


class BlockKind(StrEnum):
    PARAGRAPH = "paragraph"
    HEADING = "heading"
    LIST_ITEM = "list_item"
    DEFINITION = "definition"
    TABLE_ROW = "table_row"
    CODE = "code"


@dataclass(frozen=True, slots=True)
class Block:
    kind: BlockKind
    text: str
    """The unit as chunks hold it (see the module docstring)."""
    lead: str = ""
    """For a list item (or a definition written as one): the sentence that introduces its
    list, repeated before the first item of a chunk that does not already hold it."""


@dataclass(frozen=True, slots=True)
class Section:
    heading_path: tuple[str, ...]
    blocks: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    title: str
    sections: Sequence[Section]
    """A tuple, or a re-readable sequence for formats streamed from disk (CSV)."""
    metadata: dict[str, Any] = field(default_factory=dict)
    dropped: tuple[Dropped, ...] = ()
    """What a reader does not see, or what addresses a model, left out (ingest/screen.py)."""

    @property
    def text(self) -> str:
        return "\n\n".join(b.text for s in self.sections for b in s.blocks)


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed: what every non-code block holds."""
    return _SPACES.sub(" ", clean(text)).strip()


def paragraph(text: str) -> Block | None:
    text = one_line(text)
    return Block(BlockKind.PARAGRAPH, text) if text else None


def list_item(text: str, lead: str = "", marker: str = "-") -> Block | None:
    text = one_line(text)
    return Block(BlockKind.LIST_ITEM, f"{marker} {text}", one_line(lead)) if text else None


def definition(term: str, text: str) -> Block | None:
    term, text = one_line(term).rstrip(":"), one_line(text)
    if not term:
        return paragraph(text)
    return Block(BlockKind.DEFINITION, f"- {term}: {text}" if text else f"- {term}")


_DEFINES = re.compile(r"- (?P<term>.{1,60}?): ")


def defined_term(block: Block) -> str | None:
    """The "- term: " a definition's text opens with (as :func:`definition` writes it; the
    term may be several words, "- Retry policy: …"); None for any other block."""
    match = _DEFINES.match(block.text) if block.kind is BlockKind.DEFINITION else None
    return match[0] if match else None


def table_row(header: Sequence[str], cells: Sequence[str]) -> Block | None:
    """A row as "column: value" pairs; empty cells are left out, a cell without a header
    column stands alone; a table without a header gives "a | b"."""
    values = [one_line(c) for c in cells]
    if not any(values):
        return None
    names = [one_line(h) for h in header]
    pairs = [f"{names[i]}: {v}" if i < len(names) and names[i] else v
             for i, v in enumerate(values) if v]
    return Block(BlockKind.TABLE_ROW, "- " + ("; " if any(names) else " | ").join(pairs))


_LABEL = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:[ /-]+\(?[^\W\d_][^\W\d_'’-]*\)?)*")
"""A column's name as a header writes it: words of letters, no figures, code or sentence
stops ("Default value", "NIC Bandwidth (Gbps)", "Pending/Removed")."""
_LABEL_WORDS = 6


def _label(cell: str) -> bool:
    text = one_line(cell)
    return (bool(text) and text[0].isupper() and _LABEL.fullmatch(text) is not None
            and len(text.split()) <= _LABEL_WORDS)


def is_bold(strong: Sequence[str], cell: str) -> bool:
    """Whether a cell's whole text is set in bold: ``strong``, its bold runs, read together
    are its text (``**Name**``, ``<td><b>Default</b> <b>value</b></td>``)."""
    bold = one_line(" ".join(strong))
    return bool(bold) and bold == one_line(cell)


def first_row_heads(first: Sequence[str], body: Sequence[Sequence[str]], *,
                    bold: bool = False) -> bool:
    """Whether a table written without a marked header (a reST table whose header rule is
    ``---``, a ``list-table`` without ``:header-rows:``, an HTML table of ``<td>`` s) has its
    header in its first row. It has when, over two or more rows as wide as it, every cell
    of that row is filled (but for an empty corner above the rows' own names) and distinct,
    and either all are set in bold (:func:`is_bold`), or the corner is empty (a matrix: "|
    | Dramatiq | Celery |"), or every one is a label and below it the first column holds no
    label and each other column a value that is not one (hypercorn's "Attribute | Command
    line | Purpose | Default" over "backlog | --backlog | … | 100"). A key's rows stay rows:
    PostgREST's "Type | String" over "Default | n/a", "Linux | Supported" over "Windows |
    Not supported" (a label in the first column below)."""
    cells = [one_line(c) for c in first]
    rows = [[one_line(c) for c in row] for row in body]
    named = cells[1:] if cells and not cells[0] else cells
    if (len(rows) < 2 or len(cells) < 2 or any(len(row) != len(cells) for row in rows)
            or not all(named) or len(set(named)) < len(named)):
        return False
    if bold:
        return True
    if len(named) < len(cells):
        return all(row[0] for row in rows)
    if not all(_label(c) for c in cells) or any(_label(row[0]) for row in rows):
        return False
    return all(any(row[i] and not _label(row[i]) for row in rows)
               for i in range(1, len(cells)))


def code(text: str) -> Block | None:
    body = "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))
    body = body.replace(FENCE, "'''")  # a fence inside the code must not end it
    if not body.strip():
        return None
    return Block(BlockKind.CODE, f"{FENCE}\n{body}\n{FENCE}")


def heading(text: str) -> Block | None:
    text = one_line(text)
    return Block(BlockKind.HEADING, text) if text else None


_UNFINISHED = re.compile(r"(?:^|\s)[^\W\d_][\w'-]*$")
"""A paragraph that ends on a word — no stop, colon, link or version ("…/dl", "v1.2"):
before a list, the list's lead-in."""


class SectionBuilder:
    """Collects blocks under the current heading path.

    A heading opens its section as a heading block, so it is quotable with the text it
    heads; a heading followed directly by a subheading is carried into the subheading's
    section ("5.2.0 — 2025-02-11" / "Fixed" / "- the bug")."""

    def __init__(self) -> None:
        self.path: list[tuple[int, str]] = []
        self.sections: list[Section] = []
        self.blocks: list[Block] = []
        self.first_heading: str | None = None

    def heading(self, level: int, title: str) -> None:
        block = heading(title)
        if block is None:
            return
        self.first_heading = self.first_heading or block.text
        if any(b.kind is not BlockKind.HEADING for b in self.blocks):
            self.flush()
        self.path = [(lvl, t) for lvl, t in self.path if lvl < level] + [(level, block.text)]
        kept = set(t for _, t in self.path)  # a carried heading that is still above
        self.blocks = [b for b in self.blocks if b.text in kept] + [block]

    def add(self, block: Block | None) -> None:
        if block is None:
            return
        before = self.blocks[-1] if self.blocks else None
        if (block.kind is BlockKind.LIST_ITEM and before is not None and block.lead
                and before.kind is BlockKind.PARAGRAPH and before.text == block.lead
                and _UNFINISHED.search(before.text)):
            # "When running RabbitMQ with a cluster, you can pass" + a list: its lead-in
            self.blocks[-1] = Block(before.kind, before.text + ":", before.lead)
        if block.kind is BlockKind.LIST_ITEM and block.lead and _UNFINISHED.search(block.lead):
            block = Block(block.kind, block.text, block.lead + ":")
        self.blocks.append(block)

    def extend(self, blocks: Iterable[Block | None]) -> None:
        for block in blocks:
            self.add(block)

    def reopen(self, path: list[tuple[int, str]]) -> None:
        """Go on under ``path`` (levels and titles, as :attr:`path` holds them), a heading
        path open before, without writing its heading again."""
        if path != self.path:
            self.flush()
            self.path = list(path)

    def flush(self) -> None:
        if any(b.kind is not BlockKind.HEADING for b in self.blocks):
            self.sections.append(Section(tuple(t for _, t in self.path), tuple(self.blocks)))
        self.blocks = []

    def build(self) -> tuple[Section, ...]:
        self.flush()
        return tuple(self.sections)
