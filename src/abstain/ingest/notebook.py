"""Jupyter notebooks (``.ipynb``, read as JSON with the standard library).

Markdown cells are parsed as Markdown (their headings open sections); code cells become
code blocks; outputs are skipped, so a notebook with huge outputs is read for its cells.
A file that is not a notebook (bad JSON, no ``cells``) is skipped with the reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from abstain.errors import IngestError
from abstain.ingest.blocks import ParsedDocument
from abstain.ingest.markup import parse_markdown

_BACKTICKS = re.compile(r"`{3,}")


def read_notebook(path: Path) -> ParsedDocument:
    try:
        with path.open("rb") as f:
            data = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise IngestError(str(path), f"not a readable notebook (invalid JSON: {exc})") from exc
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise IngestError(str(path), "not a Jupyter notebook (no list of cells; nbformat 4 "
                                     "is read)")
    return parse_cells(cells, fallback_title=path.stem, source=str(path))


def parse_cells(cells: list[Any], *, fallback_title: str, source: str) -> ParsedDocument:
    """The cells as one Markdown text (code cells fenced), so headings keep their levels
    across cells."""
    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        text = _source(cell.get("source"))
        if cell.get("cell_type") == "markdown":
            parts.append(text)
        elif cell.get("cell_type") == "code" and text.strip():
            fence = "`" * max(3, 1 + max((len(r) for r in _BACKTICKS.findall(text)), default=0))
            parts.append(f"{fence}\n{text}\n{fence}")
    return parse_markdown("\n\n".join(parts), fallback_title=fallback_title, source=source)


def _source(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return value if isinstance(value, str) else ""
