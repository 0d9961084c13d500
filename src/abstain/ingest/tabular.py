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
import zlib
from collections.abc import Iterator, Sequence
from itertools import islice, pairwise
from pathlib import Path
from typing import Any, overload

from abstain.errors import IngestError
from abstain.ingest.blocks import Block, ParsedDocument, Section, paragraph, table_row
from abstain.ingest.parse import convert_hint, signed_as
from abstain.ingest.visibility import DropKind, Dropped, dropped

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
    hidden = tuple(dropped(DropKind.HIDDEN, "very hidden sheet" if state == "veryHidden"
                           else "hidden sheet", name)
                   for name, state in names if state != "visible")
    visible = [name for name, state in names if state == "visible"]
    sections = SheetSections(path, visible)
    if not sections:
        raise IngestError(str(path), "no filled cells in its visible sheets" if hidden
                          else "no filled cells")
    return ParsedDocument(title=title or path.stem, sections=sections,
                          dropped=hidden + _uncalculated(path, visible))


def _uncalculated(path: Path, sheets: Sequence[str]) -> tuple[Dropped, ...]:
    """The visible sheets' formula cells saved without a value, counted per sheet: the
    workbook read a second time, its formulas this time, beside the values."""
    found: list[Dropped] = []
    with _workbook(path) as values, _workbook(path, formulas=True) as formulas:
        for name in sheets:
            with _sheet_of(path, name):
                count = sum(  # "" saved by a formula (=IF(…, "")) reads None too, typed str
                    1 for saved, written in zip(values[name].iter_rows(),
                                                formulas[name].iter_rows(values_only=True),
                                                strict=False)
                    for cell, formula in zip(saved, written, strict=False)
                    if getattr(cell, "value", None) is None
                    and getattr(cell, "data_type", "n") == "n"
                    and isinstance(formula, str) and formula.startswith("="))
            if count:
                found.append(dropped(DropKind.UNCALCULATED, f"{count} formula cell"
                                     f"{'s' if count != 1 else ''} without a saved value, read "
                                     "as empty: open and save the workbook in a spreadsheet "
                                     "program", name))
    return tuple(found)


_UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, KeyError, IndexError, ValueError,
               TypeError, SyntaxError)
"""What reading a damaged workbook raises: its ZIP container, its compressed streams, its
XML (whose parsers' errors derive from SyntaxError) or the values in it."""


@contextlib.contextmanager
def _workbook(path: Path, *, formulas: bool = False) -> Iterator[Any]:
    """The workbook opened to read its cells' saved values (``formulas``: their formulas)."""
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=not formulas)
    except (InvalidFileException, *_UNREADABLE) as exc:
        raise IngestError(str(path), f"not a readable Excel workbook ({exc})") from exc
    try:
        yield book
    finally:
        book.close()


@contextlib.contextmanager
def _sheet_of(path: Path, name: str) -> Iterator[None]:
    """Reading sheet ``name`` of the workbook at ``path``: a damaged one is an IngestError."""
    try:
        yield
    except _UNREADABLE as exc:
        raise IngestError(str(path), f"sheet {name!r} is not readable ({exc})") from exc


_DEFAULT_SHEET_NAME = re.compile(
    r"sheet\s*\d*|(?:tabelle|feuil|hoja|foglio|planilha|blad|arkusz|list|лист|工作表)\s*\d+",
    re.IGNORECASE)
"""The name a spreadsheet program gives a new sheet ("Sheet1", openpyxl's "Sheet",
"Tabelle1", "Feuil1"), which says nothing: every other sheet name ("FY2026", "Prices", a
"List") heads its sheet's chunks."""


class SheetSections(_Streamed):
    """The visible sheets of a workbook as sections, re-read from disk on each pass: each
    sheet's rows :data:`ROWS_PER_SECTION` at a time, headed by the sheet's name (unless a
    default one, :data:`_DEFAULT_SHEET_NAME`) and the rows' numbers as Excel shows them."""

    def __init__(self, path: Path, sheets: Sequence[str]) -> None:
        self.path = path
        self.sheets = tuple(sheets)

    def __iter__(self) -> Iterator[Section]:
        with _workbook(self.path) as book:
            for name in self.sheets:
                above = () if _DEFAULT_SHEET_NAME.fullmatch(name.strip()) else (name,)
                with _sheet_of(self.path, name):
                    yield from _sheet_sections(book[name], above)


def _sheet_sections(sheet: Any, above: tuple[str, ...]) -> Iterator[Section]:
    """A sheet's tables as sections (:class:`_SheetReader`), its rows numbered as Excel
    numbers them; the size a sheet states of itself is not trusted (some programs write a
    wrong one, and read-only reading would stop there)."""
    sheet.reset_dimensions()
    reader = _SheetReader(above)
    for row in sheet.iter_rows():
        number = next((c.row for c in row if getattr(c, "row", None)), None)
        cells = _trimmed([_cell_text(c) for c in row])
        if number is None or not cells:
            reader.blank()
            continue
        yield from reader.row(number, cells, all(
            isinstance(c.value, str) for c in row if getattr(c, "value", None) is not None))
    yield from reader.end()


SPLIT_AFTER = 20
"""Rows a header of tables side by side waits for before they are read apart: none of them
may hold a value in a column between the tables (else it is one table whose header has a
merged or empty cell)."""


class _SheetReader:
    """The tables of one sheet as its rows come. The first row of two or more filled cells is
    a header (a row whose filled cells all stand apart, "Sites … Carriers", is titles);
    a header whose filled cells fall in runs of two or more with an empty column between
    heads tables side by side, each read under its own run, when no row of the first
    :data:`SPLIT_AFTER` holds a value between them. After an empty row, a row of one filled
    cell followed by a row of text in two or more cells is the title and header of a table
    below; followed by anything else it is a label within the table ("Europe" above its
    countries). Rows before a header are paragraphs."""

    def __init__(self, above: tuple[str, ...]) -> None:
        self.above = above
        self.header: list[str] | None = None
        self.spans: list[tuple[int, int]] = []
        self.tables = [_Rows(above)]
        self.after_blank = False
        self.title: tuple[int, str] | None = None
        self.waiting: list[tuple[int, list[str]]] = []
        """Data rows held while a side-by-side header waits to be confirmed."""

    def blank(self) -> None:
        self.after_blank = True

    def row(self, number: int, cells: list[str], all_text: bool) -> Iterator[Section]:
        filled = sum(1 for c in cells if c)
        after_blank, self.after_blank = self.after_blank, False
        if self.title is not None:  # its title if a table below begins, else a label
            title, self.title = self.title, None
            if filled >= 2 and all_text and not _titles(cells):
                yield from self.end()
                self.header, self.spans, self.tables = None, [], [_Rows(self.above)]
            yield from self.tables[0].add(paragraph(title[1]), title[0])
        elif self.header is not None and after_blank and filled == 1:
            self.title = (number, next(c for c in cells if c))
            return
        if self.header is None:
            if filled >= 2 and not _titles(cells):
                self.header, self.spans = cells, _side_by_side(cells)
                return
            yield from self.tables[0].add(paragraph(" ".join(c for c in cells if c)), number)
            return
        if len(self.spans) > 1 and len(self.tables) == 1:
            self.waiting.append((number, cells))
            if any(_between(cells, self.spans)):
                self.spans = [(0, len(self.header))]  # one table after all
            if len(self.waiting) >= SPLIT_AFTER or len(self.spans) == 1:
                yield from self._flush_waiting()
            return
        yield from self._add(number, cells)

    def end(self) -> Iterator[Section]:
        if self.title is not None:
            yield from self.tables[0].add(paragraph(self.title[1]), self.title[0])
            self.title = None
        yield from self._flush_waiting()
        for table in self.tables:
            yield from table.rest()

    def _flush_waiting(self) -> Iterator[Section]:
        if not self.waiting:
            return
        if len(self.spans) > 1 and len(self.tables) == 1:
            from openpyxl.utils import get_column_letter

            lead = self.tables[0]
            self.tables = [_Rows((*self.above, f"columns {get_column_letter(start + 1)}–"
                                               f"{get_column_letter(end)}"))
                           for start, end in self.spans]
            self.tables[0].take(lead)
        waiting, self.waiting = self.waiting, []
        for number, cells in waiting:
            yield from self._add(number, cells)

    def _add(self, number: int, cells: list[str]) -> Iterator[Section]:
        assert self.header is not None
        for table, (start, end) in zip(self.tables, self.spans, strict=False):
            stop = end if end < len(self.header) else len(cells)  # the last run takes the rest
            yield from table.add(table_row(self.header[start:end], cells[start:stop]), number)


def _runs(cells: list[str]) -> list[tuple[int, int]]:
    """The spans of filled cells between empty ones."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for i, cell in enumerate([*cells, ""]):
        if cell and start is None:
            start = i
        elif not cell and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _titles(cells: list[str]) -> bool:
    """Whether a row's filled cells all stand apart ("Sites" in A1, "Carriers" in D1): the
    titles of tables side by side, not a header."""
    runs = _runs(cells)
    return len(runs) > 1 and all(end - start == 1 for start, end in runs)


def _side_by_side(header: list[str]) -> list[tuple[int, int]]:
    """The column spans of the tables a header heads: each run of filled cells between empty
    ones, when every run has two or more; else the whole header, one table."""
    runs = _runs(header)
    if len(runs) > 1 and all(end - start >= 2 for start, end in runs):
        return runs
    return [(0, len(header))]


def _between(cells: list[str], spans: list[tuple[int, int]]) -> list[str]:
    """The values of ``cells`` in the columns between ``spans``."""
    return [c for (_, end), (start, _) in pairwise(spans)
            for c in cells[end:start] if c]


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

    def take(self, other: _Rows) -> None:
        """``other``'s rows (a title above tables side by side) before this table's."""
        self.blocks[:0] = other.blocks
        self.first = other.first or self.first
        self.last = self.last or other.last


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
        total = round(value.total_seconds())
        minutes, seconds = divmod(abs(total), 60)
        hours, minutes = divmod(minutes, 60)
        sign = "-" if total < 0 else ""
        return f"{sign}{hours}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")
    if isinstance(value, int | float):
        return _formatted(value, str(getattr(cell, "number_format", "") or ""))
    return str(value)


_LITERALS = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.|_.|\*.')
"""What a number format writes around the number: quoted text, [$€-407] and [Red], escaped
and padding characters."""


def _formatted(value: float, number_format: str) -> str:
    """``value`` with the decimals, percent sign and leading zeros of its number format (the
    section for its sign: a negative number's is the second, when there is one); General as
    :func:`_number` writes it; nothing for a format that hides the cell (``;;;``)."""
    sections = number_format.split(";")
    if len(sections) >= 3 and not any(_LITERALS.sub("", s).strip() for s in sections[:3]):
        return ""  # ;;; hides the cell from a reader of the sheet
    if value < 0 and len(sections) >= 2 and sections[1].strip():
        return "-" + _formatted(-value, sections[1])
    shape = _LITERALS.sub("", sections[0])
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
