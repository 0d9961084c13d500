"""Read a file into the document model (:mod:`abstain.ingest.blocks`), by its suffix.

Every format is parsed by a well-kept library (docs/INGEST.md has the table):
markdown-it-py (Markdown), BeautifulSoup (HTML), pypdf (PDF), PyYAML (front matter),
docutils (reStructuredText) and python-docx (Word) from the ``formats`` extra, the
standard library for notebooks, e-mail and CSV. Text must be UTF-8: anything else is an
:class:`~abstain.errors.IngestError` that says how to convert it, for files given to the
CLI and for HTTP uploads alike (:func:`decode_text`). A file whose parser is not
installed is skipped with the ``pip install`` that brings it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from abstain.errors import IngestError, MissingDependency
from abstain.ingest.blocks import (
    Block,
    ParsedDocument,
    SectionBuilder,
    list_item,
    one_line,
    paragraph,
)
from abstain.ingest.blocks import (
    Section as Section,
)
from abstain.ingest.markup import parse_html, parse_markdown

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Files read whole are refused past this; streamed formats (CSV, mbox) are not."""


@dataclass(frozen=True, slots=True)
class Format:
    name: str
    suffixes: tuple[str, ...]
    read: Callable[[Path], ParsedDocument]
    library: str
    extra: str | None = None
    """The extra that installs ``library``, when it is not a core dependency."""
    streamed: bool = False
    """Read piece by piece, so no size limit applies."""


def _text_reader(parse: Callable[..., ParsedDocument]) -> Callable[[Path], ParsedDocument]:
    def read(path: Path) -> ParsedDocument:
        return parse(decode_text(path.read_bytes(), str(path)), fallback_title=path.stem)
    return read


def _read_markdown(path: Path) -> ParsedDocument:
    text = decode_text(path.read_bytes(), str(path))
    return parse_markdown(text, fallback_title=path.stem, source=str(path))


def _read_pdf(path: Path) -> ParsedDocument:
    return parse_pdf(path.read_bytes(), fallback_title=path.stem)


def _read_rst(path: Path) -> ParsedDocument:
    from abstain.ingest.rst import parse_rst

    return parse_rst(decode_text(path.read_bytes(), str(path)), fallback_title=path.stem)


def _read_docx(path: Path) -> ParsedDocument:
    from abstain.ingest.office import read_docx

    return read_docx(path)


def _read_notebook(path: Path) -> ParsedDocument:
    from abstain.ingest.notebook import read_notebook

    return read_notebook(path)


def _read_mail(path: Path) -> ParsedDocument:
    from abstain.ingest.mail import read_mail

    return read_mail(path)


def _read_csv(path: Path) -> ParsedDocument:
    from abstain.ingest.tabular import read_csv

    return read_csv(path)


FORMATS = (
    Format("Markdown", (".md", ".markdown"), _read_markdown, "markdown-it-py"),
    Format("plain text", (".txt",), _text_reader(lambda t, **kw: parse_text(t, **kw)),
           "abstain (setext headings, lists, paragraphs)"),
    Format("HTML", (".html", ".htm"), _text_reader(parse_html), "BeautifulSoup"),
    Format("PDF", (".pdf",), _read_pdf, "pypdf"),
    Format("reStructuredText", (".rst", ".rest"), _read_rst, "docutils", "formats"),
    Format("Word", (".docx",), _read_docx, "python-docx", "formats"),
    Format("Jupyter notebook", (".ipynb",), _read_notebook, "json (standard library)"),
    Format("e-mail", (".eml", ".mbox"), _read_mail, "email, mailbox (standard library)"),
    Format("CSV", (".csv", ".tsv"), _read_csv, "csv (standard library)", streamed=True),
)
_BY_SUFFIX = {suffix: f for f in FORMATS for suffix in f.suffixes}
SUPPORTED_SUFFIXES = tuple(_BY_SUFFIX)


def parse_file(path: Path) -> ParsedDocument:
    suffix = path.suffix.lower()
    fmt = _BY_SUFFIX.get(suffix)
    if fmt is None:
        raise IngestError(str(path), f"unsupported file type {suffix or '(none)'}; "
                          f"supported: {', '.join(SUPPORTED_SUFFIXES)}")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES and not fmt.streamed:
            raise IngestError(str(path), f"file is {size // 2**20} MiB; the limit is 50 MiB")
        return fmt.read(path)
    except ImportError as exc:
        hint = MissingDependency(exc.name or fmt.library, fmt.extra or "formats")
        raise IngestError(str(path), f"reading {fmt.name} needs {hint}") from exc
    except OSError as exc:
        raise IngestError(str(path), f"cannot read: {exc.strerror or exc}") from exc


def parse_string(text: str, *, name: str = "text", fmt: str = "md") -> ParsedDocument:
    if fmt in ("md", "markdown"):
        return parse_markdown(text, fallback_title=name, source=name)
    if fmt == "rst":
        from abstain.ingest.rst import parse_rst

        return parse_rst(text, fallback_title=name)
    parser = {"html": parse_html, "txt": parse_text, "text": parse_text}.get(fmt)
    if parser is None:
        raise IngestError(name, f"unknown format {fmt!r}")
    return parser(text, fallback_title=name)


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text (a BOM is dropped); anything else is an error saying how to convert it."""
    if b"\x00" in data[:4096]:
        raise IngestError(source, "looks like a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(source, f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at "
                                  f"offset {exc.start}); convert it first, e.g. "
                                  "iconv -f latin1 -t utf-8 FILE > FILE.utf8") from exc


_UNDERLINE = re.compile(r"(=+|-+)\s*")
_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s+(?P<text>.*)")


def parse_text(text: str, *, fallback_title: str) -> ParsedDocument:
    """Paragraphs split at blank lines, wrapped lines joined; a line underlined with
    ``===`` or ``---`` is a heading (level 1, 2); ``- `` / ``1. `` lines are list items."""
    builder = SectionBuilder()
    for chunk in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        lines = [line for line in chunk.split("\n") if line.strip()]
        if len(lines) >= 2 and _UNDERLINE.fullmatch(lines[1].strip()) and len(lines[0]) < 120:
            builder.heading(1 if lines[1].strip()[0] == "=" else 2, lines[0])
            lines = lines[2:]
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


def parse_pdf(data: bytes, *, fallback_title: str) -> ParsedDocument:
    import io
    import logging

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
        info_title = (reader.metadata.title if reader.metadata else None) or ""
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise IngestError(fallback_title, f"not a readable PDF ({exc})") from exc
    builder = SectionBuilder()
    for page in pages:
        for block in _pdf_blocks(page):
            if _looks_like_heading(block):
                builder.heading(2, block)
            elif block.startswith(("- ", "• ")):
                builder.add(list_item(block[2:]))
            else:
                builder.add(paragraph(block))
    sections = builder.build()
    if not sections:
        raise IngestError(fallback_title, "the PDF has no extractable text (scanned image?)")
    title = str(info_title).strip() or fallback_title
    return ParsedDocument(title=title, sections=sections)


def _pdf_blocks(page: str) -> list[str]:
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
        if _looks_like_heading(line) or line.startswith(("- ", "• ")):
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
