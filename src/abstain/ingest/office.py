"""Word documents (``.docx``, python-docx from the ``formats`` extra).

Paragraphs in their order with the tables between them: the ``Title`` and
``Heading 1``–``Heading 9`` styles open sections, list styles and numbered paragraphs
are list items (led by the paragraph before the list), each table row after the first
is a row carrying the first row as its header. An encrypted (password-protected) or
corrupt file is skipped with the reason.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from abstain.errors import IngestError
from abstain.ingest.blocks import ParsedDocument, SectionBuilder, paragraph, table_row
from abstain.ingest.markup import item_block

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""How an encrypted Office file (or an old binary .doc) begins."""
_HEADING = re.compile(r"heading (\d)", re.IGNORECASE)


def read_docx(path: Path) -> ParsedDocument:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    with path.open("rb") as f:
        magic = f.read(len(OLE_MAGIC))
    if magic == OLE_MAGIC:
        raise IngestError(str(path), "a password-protected (encrypted) or old binary Word "
                                     "file; save an unprotected .docx copy to ingest it")
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
