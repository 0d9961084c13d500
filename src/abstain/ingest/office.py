"""Word (``.docx``, python-docx) and PowerPoint (``.pptx``, python-pptx) documents,
both from the ``formats`` extra.

Word: paragraphs in their order with the tables between them: the ``Title`` and
``Heading 1``–``Heading 9`` styles open sections, list styles and numbered paragraphs
are list items (led by the paragraph before the list), each table row after the first
is a row carrying the first row as its header. PowerPoint: each slide is a section
headed by its title; indented text is a list item, tables as in Word; speaker notes
are paragraphs. An encrypted (password-protected) or corrupt file is skipped with the
reason.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from abstain.errors import IngestError
from abstain.ingest.blocks import ParsedDocument, SectionBuilder, one_line, paragraph, table_row
from abstain.ingest.markup import item_block

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""How an encrypted Office file (or an old binary .doc) begins."""
_HEADING = re.compile(r"heading (\d)", re.IGNORECASE)


def check_not_encrypted(path: Path, kind: str, suffix: str) -> None:
    """An Office file that is encrypted (or in the old binary format) is an error that says
    so and how to save one that ingests."""
    with path.open("rb") as f:
        magic = f.read(len(OLE_MAGIC))
    if magic == OLE_MAGIC:
        raise IngestError(str(path), f"a password-protected (encrypted) or old binary {kind} "
                                     f"file; save an unprotected {suffix} copy to ingest it")


def read_docx(path: Path) -> ParsedDocument:
    check_not_encrypted(path, "Word", ".docx")
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(str(path))
        blocks = list(document.iter_inner_content())
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise IngestError(str(path), f"not a readable Word file ({exc})") from exc
    builder = SectionBuilder()
    lead = ""
    for item in blocks:
        if hasattr(item, "rows"):
            _table(item, builder)
            continue
        text = item.text
        style = (item.style.name if item.style is not None else "") or ""
        level = _level(style)
        if level:
            builder.heading(level, text)
        elif "list" in style.lower() or _numbered(item):
            builder.add(item_block(text, lead))
        else:
            block = paragraph(text)
            if block is not None:
                lead = block.text
            builder.add(block)
    title = str(document.core_properties.title or "").strip()
    return ParsedDocument(title=title or builder.first_heading or path.stem,
                          sections=builder.build())


def _level(style: str) -> int:
    if style.lower() == "title":
        return 1
    match = _HEADING.fullmatch(style.strip())
    return int(match.group(1)) + 1 if match else 0


def _numbered(paragraph: Any) -> bool:
    ppr = paragraph._p.pPr
    return ppr is not None and ppr.numPr is not None


def _table(table: Any, builder: SectionBuilder) -> None:
    header: list[str] = []
    for n, row in enumerate(table.rows):
        cells: list[str] = []
        last: Any = None
        for cell in row.cells:
            if cell._tc is not last:  # a merged cell is listed once per grid column
                cells.append(cell.text)
            last = cell._tc
        if n == 0:
            header = cells
        else:
            builder.add(table_row(header, cells))


def read_pptx(path: Path) -> ParsedDocument:
    check_not_encrypted(path, "PowerPoint", ".pptx")
    import pptx
    from pptx.exc import PackageNotFoundError

    try:
        deck = pptx.Presentation(str(path))
        slides = list(deck.slides)
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise IngestError(str(path), f"not a readable PowerPoint file ({exc})") from exc
    builder = SectionBuilder()
    for number, slide in enumerate(slides, start=1):
        title_shape = slide.shapes.title
        title = title_shape.text_frame.text if title_shape is not None else ""
        builder.heading(1, one_line(title) or f"Slide {number}")
        lead = ""
        for shape in slide.shapes:
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            if getattr(shape, "has_table", False):
                _table(shape.table, builder)
            elif getattr(shape, "has_text_frame", False):
                for para in shape.text_frame.paragraphs:
                    text = "".join(run.text for run in para.runs)
                    if para.level > 0:
                        builder.add(item_block(text, lead))
                    else:
                        block = paragraph(text)
                        lead = block.text if block is not None else lead
                        builder.add(block)
        if slide.has_notes_slide:
            builder.add(paragraph(slide.notes_slide.notes_text_frame.text))
    title = str(deck.core_properties.title or "").strip()
    return ParsedDocument(title=title or builder.first_heading or path.stem,
                          sections=builder.build())
