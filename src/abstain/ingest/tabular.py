"""Tables kept as files, read as a stream: CSV and TSV (the standard library's ``csv``)
and Excel workbooks (``.xlsx`` / ``.xlsm``, openpyxl from the ``formats`` extra).

A table's header row is carried by every other row, each one table-row block ("column:
value; column: value"). Rows are read from disk each time the sections are walked,
:data:`ROWS_PER_SECTION` at a time, so a file of any size is ingested with flat memory.
CSV: the first row is the header; the dialect (comma, semicolon, tab …) is sniffed from
the first 64 KiB. A workbook: each visible sheet holds tables, whose header is the first row
of two or more filled cells (a title above it is a paragraph; tables side by side and one
below another are read apart, :func:`_sheet_sections`); cells read as Excel shows them
where that matters (dates, times, the decimals and zeros of a number's format, TRUE /
FALSE), formulas as the value Excel last saved; hidden sheets are left out and recorded.
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import re
import sys
import zipfile
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, overload

from abstain.errors import IngestError
from abstain.ingest.blocks import Block, ParsedDocument, Section, paragraph, table_row
from abstain.ingest.parse import convert_hint, signed_as
from abstain.ingest.visibility import DropKind, dropped

ROWS_PER_SECTION = 200
"""Rows per section: a section is a parent chunk's worth of rows, never the whole file."""
_SNIFF_BYTES = 65536


def read_csv(path: Path) -> ParsedDocument:
    sections = CsvSections(path)
    if not sections:
        raise IngestError(str(path), "no rows below the header" if path.stat().st_size
                          else "the file is empty")
    return ParsedDocument(title=path.stem, sections=sections)


class _Streamed(Sequence[Section]):
    """Sections re-read from disk on each pass (:meth:`__iter__`), never all held."""

    _count: int | None = None

    def __iter__(self) -> Iterator[Section]:
        raise NotImplementedError

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


class CsvSections(_Streamed):
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


# -- Excel workbooks -------------------------------------------------------------------------

def read_xlsx(path: Path) -> ParsedDocument:
    from abstain.ingest.office import check_not_encrypted

    check_not_encrypted(path, "Excel", ".xlsx")
    with _workbook(path) as book:
        names = [(ws.title, ws.sheet_state) for ws in book.worksheets]
        title = str(book.properties.title or "").strip()
    hidden = tuple(dropped(DropKind.HIDDEN, f"{state} sheet", name)
                   for name, state in names if state != "visible")
    sections = SheetSections(path, [name for name, state in names if state == "visible"])
    if not sections:
        raise IngestError(str(path), "no filled cells in its visible sheets" if hidden
                          else "no filled cells")
    return ParsedDocument(title=title or path.stem, sections=sections, dropped=hidden)


@contextlib.contextmanager
def _workbook(path: Path) -> Iterator[Any]:
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, TypeError,
            SyntaxError) as exc:  # SyntaxError: the XML parsers' errors derive from it
        raise IngestError(str(path), f"not a readable Excel workbook ({exc})") from exc
    try:
        yield book
    finally:
        book.close()


class SheetSections(_Streamed):
    """The visible sheets of a workbook as sections, re-read from disk on each pass: each
    sheet's rows :data:`ROWS_PER_SECTION` at a time, headed by the sheet's name (when the
    workbook has several) and the rows' numbers as Excel shows them."""

    def __init__(self, path: Path, sheets: Sequence[str]) -> None:
        self.path = path
        self.sheets = tuple(sheets)

    def __iter__(self) -> Iterator[Section]:
        with _workbook(self.path) as book:
            for name in self.sheets:
                above = (name,) if len(self.sheets) > 1 else ()
                try:
                    yield from _sheet_sections(book[name], above)
                except (zipfile.BadZipFile, KeyError, ValueError, TypeError, SyntaxError) as exc:
                    raise IngestError(str(self.path), f"sheet {name!r} is not readable "
                                                      f"({exc})") from exc


def _sheet_sections(sheet: Any, above: tuple[str, ...]) -> Iterator[Section]:
    """A sheet's tables as sections. The first row of two or more filled cells is the header;
    a header whose filled cells fall in runs of two or more apart (an empty column between)
    heads tables side by side, each read under its own run; after an empty row, a row of one
    filled cell is the title of a table below, whose header is the next row of two or more.
    Rows before a header are paragraphs."""
    from openpyxl.utils import get_column_letter

    header: list[str] | None = None
    tables = [_Rows(above)]
    spans: list[tuple[int, int]] = []
    after_blank = False
    for number, row in enumerate(sheet.iter_rows(), start=sheet.min_row or 1):
        cells = _trimmed([_cell_text(c) for c in row])
        if not cells:
            after_blank = True
            continue
        filled = sum(1 for c in cells if c)
        if header is not None and after_blank and filled == 1:
            for table in tables:  # a title below a table: the next table begins
                yield from table.rest()
            header, tables = None, [_Rows(above)]
        after_blank = False
        if header is None and filled >= 2:
            header, spans = cells, _side_by_side(cells)
            if len(spans) > 1:
                lead = tables[0].blocks
                tables = [_Rows((*above, f"columns {get_column_letter(start + 1)}–"
                                          f"{get_column_letter(end)}")) for start, end in spans]
                tables[0].blocks.extend(lead)
            continue
        if header is None:
            yield from tables[0].add(paragraph(" ".join(c for c in cells if c)), number)
            continue
        for table, (start, end) in zip(tables, spans, strict=True):
            stop = end if end < len(header) else len(cells)  # the last run takes the rest
            yield from table.add(table_row(header[start:end], cells[start:stop]), number)
    for table in tables:
        yield from table.rest()


def _side_by_side(header: list[str]) -> list[tuple[int, int]]:
    """The column spans of the tables a header heads: each run of filled cells between empty
    ones, when every run has two or more; else the whole header, one table."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for i, cell in enumerate([*header, ""]):
        if cell and start is None:
            start = i
        elif not cell and start is not None:
            runs.append((start, i))
            start = None
    if len(runs) > 1 and all(end - begin >= 2 for begin, end in runs):
        return runs
    return [(0, len(header))]


class _Rows:
    """The rows of one table of a sheet as they are read, :data:`ROWS_PER_SECTION` to a
    section headed by ``above`` and the rows' numbers."""

    def __init__(self, above: tuple[str, ...]) -> None:
        self.above = above
        self.blocks: list[Block] = []
        self.first = self.last = 0

    def add(self, block: Block | None, number: int) -> Iterator[Section]:
        if block is None:
            return
        self.first = self.first or number
        self.last = number
        self.blocks.append(block)
        if len(self.blocks) == ROWS_PER_SECTION:
            yield from self.rest()

    def rest(self) -> Iterator[Section]:
        if self.blocks:
            yield Section((*self.above, f"rows {self.first}–{self.last}"), tuple(self.blocks))
        self.blocks, self.first = [], 0


def _trimmed(cells: list[str]) -> list[str]:
    while cells and not cells[-1]:
        cells.pop()
    return cells


def _cell_text(cell: Any) -> str:
    """A cell's value as a reader of the sheet sees it: dates without a midnight time, times
    as hours and minutes, durations as Excel's ``[h]:mm`` (30:15), numbers with the decimals
    and leading zeros their format shows (``0.0%`` → 32.6%, ``00000`` → 01097, ``#,##0.00``
    → 1299.50; currency symbols and thousands separators are not written), else without
    binary noise (0.30000000000000004 → 0.3)."""
    value = getattr(cell, "value", None)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, datetime.time):
        return value.isoformat(timespec="seconds" if value.second else "minutes")
    if isinstance(value, datetime.timedelta):
        minutes, seconds = divmod(round(value.total_seconds()), 60)
        hours, minutes = divmod(minutes, 60)
        return f"{hours}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")
    if isinstance(value, int | float):
        return _formatted(value, str(getattr(cell, "number_format", "") or ""))
    return str(value)


_LITERALS = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.|_.|\*.')
"""What a number format writes around the number: quoted text, [$€-407] and [Red], escaped
and padding characters."""


def _formatted(value: float, number_format: str) -> str:
    """``value`` with the decimals, percent sign and leading zeros of its number format (its
    first section, for positive numbers); General as :func:`_number` writes it."""
    shape = _LITERALS.sub("", number_format.split(";")[0])
    if not re.search(r"[0#?]", shape) or re.search(r"[/Ee]", shape):
        return _number(value)  # General, a format of no digits, a fraction or scientific
    fraction = re.search(r"\.([0#?]+)", shape)
    decimals = len(fraction.group(1)) if fraction else 0
    if "%" in shape:
        return f"{value * 100:.{decimals}f}%"
    padded = re.fullmatch(r"0{2,}", shape.strip())
    if padded and float(value).is_integer() and value >= 0:
        return str(int(value)).zfill(len(padded.group(0)))
    return f"{value:.{decimals}f}"


def _number(value: float) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:.15g}" if isinstance(value, float) else str(value)
