"""Plain text and PDF (pypdf) into typed blocks.

Plain text: paragraphs at blank lines, wrapped lines joined; a line underlined with
``===`` or ``---`` is a heading; ``- `` / ``* `` / ``1. `` lines are list items led by
the paragraph before them; a table of aligned columns (a header line ruled by groups of
``---`` or ``===``, as changelogs, man pages and reST simple tables lay them out) becomes
rows with their header. PDF: the text layer page by page; a line that is an entry of
the PDF's outline (bookmarks) is a heading at the entry's depth, other short title-like
lines are headings too; a password-protected PDF is skipped as such.
"""

from __future__ import annotations

import re
from typing import Any

from abstain.errors import IngestError
from abstain.ingest.blocks import (
    Block,
    ParsedDocument,
    SectionBuilder,
    list_item,
    one_line,
    paragraph,
    table_row,
)
from abstain.ingest.visibility import DropKind, Dropped, dropped

_UNDERLINE = re.compile(r"(=+|-+)\s*")
_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s+(?P<text>.*)")
_RULE = re.compile(r"\s*(?:-{2,}|={2,})(?:\s+(?:-{2,}|={2,}))+\s*")
"""The rule under a table's header: two or more groups of dashes or equals signs."""


def parse_text(text: str, *, fallback_title: str) -> ParsedDocument:
    """Paragraphs split at blank lines, wrapped lines joined; a line underlined with
    ``===`` or ``---`` is a heading (level 1, 2); ``- `` / ``1. `` lines are list items."""
    builder = SectionBuilder()
    for chunk in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        lines = [line for line in chunk.split("\n") if line.strip()]
        if len(lines) >= 2 and _UNDERLINE.fullmatch(lines[1].strip()) and len(lines[0]) < 120:
            builder.heading(1 if lines[1].strip()[0] == "=" else 2, lines[0])
            lines = lines[2:]
        if lines and _RULE.fullmatch(lines[0]):
            lines = lines[1:]  # a reST simple table's top frame
        rule = next((i for i, line in enumerate(lines[:3]) if _RULE.fullmatch(line)), None)
        if rule is not None and rule >= 1:
            builder.extend(_text_blocks(lines[:rule - 1]))
            builder.extend(_table_rows(lines[rule - 1:]))
        else:
            builder.extend(_text_blocks(lines))
    return ParsedDocument(title=builder.first_heading or fallback_title,
                          sections=builder.build())


def _text_blocks(lines: list[str]) -> list[Block | None]:
    groups: list[tuple[bool, list[str]]] = []  # (is an item, its lines)
    for line in lines:
        item = _ITEM.fullmatch(line)
        if item is not None:
            groups.append((True, [item["text"]]))
        elif groups and (not groups[-1][0] or line.startswith((" ", "\t"))):
            groups[-1][1].append(line)  # a wrapped line
        else:
            groups.append((False, [line]))
    blocks: list[Block | None] = []
    lead = ""
    for is_item, group in groups:
        if is_item:
            blocks.append(list_item(" ".join(group), lead))
        else:
            lead = one_line(" ".join(group))
            blocks.append(paragraph(lead))
    return blocks


def _table_rows(lines: list[str]) -> list[Block | None]:
    """``lines`` = a header, its rule and the rows, cut at the columns the rule's groups
    start (the last column runs to the end of the line); a line whose first column is
    blank continues the row before it, and rule lines (a reST table's frame) are skipped."""
    starts = [m.start() for m in re.finditer(r"[-=]+", lines[1])]

    def cells(line: str) -> list[str]:
        bounds = [*starts[1:], max(len(line), starts[-1])]
        return [line[a:b].strip() for a, b in zip([0, *starts[1:]], bounds, strict=True)]

    header = cells(lines[0])
    rows: list[list[str]] = []
    for line in lines[2:]:
        if _RULE.fullmatch(line):
            continue
        row = cells(line)
        if rows and not row[0]:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], row, strict=True)]
        else:
            rows.append(row)
    return [table_row(header, row) for row in rows]


def parse_pdf(data: bytes, *, fallback_title: str) -> ParsedDocument:
    import io
    import logging

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(fallback_title, "a password-protected PDF; save an unprotected "
                                              "copy to ingest it")
        hidden: list[Dropped] = []
        pages = [_visible_pdf_text(page, hidden) for page in reader.pages]
        info_title = (reader.metadata.title if reader.metadata else None) or ""
        outline = _outline(reader.outline)
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise IngestError(fallback_title, f"not a readable PDF ({exc})") from exc
    builder = SectionBuilder()
    for page in pages:
        for block in _pdf_blocks(page, outline):
            if one_line(block) in outline:
                builder.heading(outline[one_line(block)] + 1, block)
            elif _looks_like_heading(block):
                builder.heading(2, block)
            elif block.startswith(("- ", "• ")):
                builder.add(list_item(block[2:]))
            else:
                builder.add(paragraph(block))
    sections = builder.build()
    if not sections:
        raise IngestError(fallback_title, "the PDF has no extractable text (scanned image?)")
    title = str(info_title).strip() or fallback_title
    return ParsedDocument(title=title, sections=sections, dropped=tuple(hidden))


def _visible_pdf_text(page: Any, hidden: list[Dropped]) -> str:
    """The page's text as pypdf extracts it, less what is drawn in white or in the
    invisible render mode (``3 Tr``), which is added to ``hidden``."""
    state = {"white": False, "invisible": False}
    saved: list[dict[str, bool]] = []
    shown: list[str] = []
    unseen: list[str] = []

    def operator(op: bytes, args: Any, cm: Any, tm: Any) -> None:
        if op == b"q":
            saved.append(dict(state))
        elif op == b"Q" and saved:
            state.update(saved.pop())
        elif op in (b"g", b"rg", b"k", b"sc", b"scn"):
            values = [float(a) for a in args if isinstance(a, (int, float))]
            white = (all(v == 0 for v in values) if op == b"k" or len(values) == 4
                     else all(v >= 0.95 for v in values))
            state["white"] = bool(values) and white
        elif op == b"Tr" and args:
            state["invisible"] = args[0] == 3

    def text(piece: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
        if piece.strip() and (state["white"] or state["invisible"]):
            unseen.append(piece)
        else:
            shown.append(piece)

    full = page.extract_text(visitor_operand_before=operator, visitor_text=text) or ""
    if not unseen:
        return str(full)
    hidden.append(dropped(DropKind.HIDDEN, "PDF text drawn in white or invisible",
                          " ".join(unseen)))
    return "".join(shown)


def _outline(items: Any, depth: int = 1) -> dict[str, int]:
    """The PDF's outline (bookmarks): each entry's title and depth."""
    levels: dict[str, int] = {}
    for item in items or ():
        if isinstance(item, list):
            for title, level in _outline(item, depth + 1).items():
                levels.setdefault(title, level)
        else:
            title = one_line(str(getattr(item, "title", "") or ""))
            if title:
                levels.setdefault(title, depth)
    return levels


def _pdf_blocks(page: str, outline: dict[str, int]) -> list[str]:
    """Join wrapped lines into paragraphs; short title-like lines stand alone."""
    blocks: list[str] = []
    current: list[str] = []
    for raw in page.splitlines():
        line = raw.strip()
        if not line:
            if current:
                blocks.append(" ".join(current))
                current = []
            continue
        if one_line(line) in outline or _looks_like_heading(line) or line.startswith(
                ("- ", "• ")):
            if current:
                blocks.append(" ".join(current))
            current = []
            blocks.append(line)
            continue
        current.append(line)
    if current:
        blocks.append(" ".join(current))
    return blocks


def _looks_like_heading(line: str) -> bool:
    words = line.split()
    return (
        0 < len(words) <= 8
        and len(line) <= 70
        and not line.endswith((".", ",", ";", ":", ")"))
        and line[0].isupper()
        and sum(w[0].isupper() or not w[0].isalpha() for w in words) >= max(1, len(words) // 2)
    )
