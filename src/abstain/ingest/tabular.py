"""CSV and TSV files (the standard library's ``csv``), read as a stream.

The first row is the header; every other row is one table-row block carrying it
("column: value; column: value"). Rows are read from disk each time the sections are
walked, :data:`ROWS_PER_SECTION` at a time, so a file of any size is ingested with
flat memory. The dialect (comma, semicolon, tab …) is sniffed from the first 64 KiB.
"""

from __future__ import annotations

import contextlib
import csv
import sys
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import overload

from abstain.errors import IngestError
from abstain.ingest.blocks import Block, ParsedDocument, Section, table_row
from abstain.ingest.parse import convert_hint, signed_as

ROWS_PER_SECTION = 200
"""Rows per section: a section is a parent chunk's worth of rows, never the whole file."""
_SNIFF_BYTES = 65536


def read_csv(path: Path) -> ParsedDocument:
    sections = CsvSections(path)
    if not sections:
        raise IngestError(str(path), "no rows below the header" if path.stat().st_size
                          else "the file is empty")
    return ParsedDocument(title=path.stem, sections=sections)


class CsvSections(Sequence[Section]):
    """The rows of a CSV file as sections, re-read from disk on each pass."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.dialect: type[csv.Dialect] | csv.Dialect = csv.excel_tab if (
            path.suffix.lower() == ".tsv") else csv.excel
        with path.open("rb") as raw:
            kind = signed_as(raw.read(8))
        if kind is not None:
            raise IngestError(str(path), f"is {kind} named as CSV: rename it to its type and "
                                         "ingest it again")
        try:
            with path.open(encoding="utf-8-sig", newline="") as f:
                sample = f.read(_SNIFF_BYTES)
        except UnicodeDecodeError as exc:
            raise IngestError(str(path), f"not UTF-8 text; {convert_hint(str(path))}") from exc
        if "\x00" in sample:
            raise IngestError(str(path), "looks like a binary file, not CSV text")
        if path.suffix.lower() != ".tsv":
            with contextlib.suppress(csv.Error):  # one column, or no delimiter: plain CSV
                self.dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
        self._count: int | None = None

    def __iter__(self) -> Iterator[Section]:
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
        try:
            with self.path.open(encoding="utf-8-sig", newline="") as f:
                reader = csv.reader(f, self.dialect)
                header = next(reader, [])
                first = 2
                while True:
                    rows = list(islice(reader, ROWS_PER_SECTION))
                    if not rows:
                        return
                    blocks = tuple(b for b in (table_row(header, r) for r in rows)
                                   if isinstance(b, Block))
                    last = first + len(rows) - 1
                    if blocks:
                        yield Section((f"rows {first}–{last}",), blocks)
                    first = last + 1
        except (csv.Error, UnicodeDecodeError) as exc:
            raise IngestError(str(self.path), f"not readable CSV ({exc})") from exc

    def __len__(self) -> int:
        if self._count is None:
            self._count = sum(1 for _ in self)
        return self._count

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    @overload
    def __getitem__(self, index: int) -> Section: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Section]: ...

    def __getitem__(self, index: int | slice) -> Section | Sequence[Section]:
        return list(self)[index]
