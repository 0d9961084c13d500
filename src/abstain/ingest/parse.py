"""Read .md, .txt, .html and .pdf files into titled sections of text blocks.

Parsing is done by well-kept libraries: markdown-it-py (Markdown),
BeautifulSoup (HTML), pypdf (PDF) and PyYAML (Markdown front matter, see
:mod:`abstain.ingest.frontmatter`). Text must be UTF-8: anything else is an
:class:`~abstain.errors.IngestError` that says how to convert it, for files given
to the CLI and for HTTP uploads alike (:func:`decode_text`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from abstain.errors import IngestError
from abstain.ingest.frontmatter import split_front_matter
from abstain.ingest.visibility import DropKind, Dropped, dropped, hidden_reason, invisible
from abstain.text import clean

SUPPORTED_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
MAX_FILE_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Section:
    heading_path: tuple[str, ...]
    blocks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    title: str
    sections: tuple[Section, ...]
    metadata: dict[str, Any] = field(default_factory=dict)
    dropped: tuple[Dropped, ...] = ()
    """What a reader does not see, or what addresses a model, left out (ingest/screen.py)."""

    @property
    def text(self) -> str:
        return "\n\n".join(b for s in self.sections for b in s.blocks)


def parse_file(path: Path) -> ParsedDocument:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise IngestError(str(path), f"unsupported file type {suffix or '(none)'}; "
                          f"supported: {', '.join(SUPPORTED_SUFFIXES)}")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise IngestError(str(path), f"file is {size // 2**20} MiB; the limit is 50 MiB")
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    if suffix == ".pdf":
        return parse_pdf(data, fallback_title=path.stem)
    text = decode_text(data, str(path))
    fmt = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}.get(suffix, "txt")
    return parse_string(text, name=path.stem, fmt=fmt, source=str(path))


def parse_string(text: str, *, name: str = "text", fmt: str = "md",
                 source: str | None = None) -> ParsedDocument:
    if fmt in ("md", "markdown"):
        parsed = parse_markdown(text, fallback_title=name, source=source or name)
    else:
        parser = {"html": parse_html, "txt": parse_text, "text": parse_text}.get(fmt)
        if parser is None:
            raise IngestError(name, f"unknown format {fmt!r}")
        parsed = parser(text, fallback_title=name)
    chars = invisible(text)
    return parsed if chars is None else replace(parsed, dropped=(*parsed.dropped, chars))


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


class _SectionBuilder:
    def __init__(self) -> None:
        self.path: list[tuple[int, str]] = []
        self.sections: list[Section] = []
        self.blocks: list[str] = []

    def heading(self, level: int, title: str) -> None:
        self.flush()
        self.path = [(lvl, t) for lvl, t in self.path if lvl < level] + [(level, title)]

    def block(self, text: str) -> None:
        text = clean(text)
        if text:
            self.blocks.append(text)

    def flush(self) -> None:
        if self.blocks:
            self.sections.append(Section(tuple(t for _, t in self.path), tuple(self.blocks)))
        self.blocks = []

    def build(self) -> tuple[Section, ...]:
        self.flush()
        return tuple(self.sections)


def parse_markdown(text: str, *, fallback_title: str, source: str | None = None) -> ParsedDocument:
    from markdown_it import MarkdownIt

    meta, body = split_front_matter(text, source=source or fallback_title)
    tokens = MarkdownIt("commonmark").enable("table").parse(body)
    builder = _SectionBuilder()
    first_heading: str | None = None
    i = 0
    list_depth = 0
    row: list[str] = []
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            title = clean(tokens[i + 1].content)
            first_heading = first_heading or title
            builder.heading(int(tok.tag[1:]), title)
            i += 3
            continue
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif tok.type == "inline" and tokens[i - 1].type == "paragraph_open":
            content = _inline_text(tok)
            builder.block(f"- {content}" if list_depth else content)
        elif tok.type in ("fence", "code_block"):
            builder.block(tok.content)
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(_inline_text(tok))
        elif tok.type == "tr_close":
            builder.block(" | ".join(row))
        i += 1
    title = str(meta.get("title") or first_heading or fallback_title)
    return ParsedDocument(title=title, sections=builder.build(), metadata=meta)


def _inline_text(token: Any) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


_HTML_BLOCKS = ("p", "li", "pre", "tr", "dt", "dd", "blockquote", "figcaption")


def parse_html(text: str, *, fallback_title: str) -> ParsedDocument:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(["script", "style", "noscript", "nav", "footer", "template"]):
        tag.decompose()
    hidden: list[Dropped] = []
    for tag in soup.find_all(True):
        why = None if tag.decomposed else hidden_reason(tag.attrs or {})
        if why is not None:
            text = clean(tag.get_text(" "))
            if text:
                hidden.append(dropped(DropKind.HIDDEN, why, text))
            tag.decompose()
    builder = _SectionBuilder()
    first_heading: str | None = None
    root = soup.body or soup
    for el in root.find_all(["h1", "h2", "h3", "h4", "h5", "h6", *_HTML_BLOCKS]):
        if el.find_parent(_HTML_BLOCKS):
            continue  # nested inside a block we already take whole
        name = el.name or ""
        if name.startswith("h") and len(name) == 2:
            heading = clean(el.get_text(" "))
            first_heading = first_heading or heading
            builder.heading(int(name[1]), heading)
        elif name == "tr":
            builder.block(" | ".join(clean(c.get_text(" ")) for c in el.find_all(["td", "th"])))
        elif name == "li":
            builder.block("- " + el.get_text(" "))
        elif name == "pre":
            builder.block(el.get_text())
        else:
            builder.block(el.get_text(" "))
    if not builder.blocks and not builder.sections:
        builder.block(root.get_text("\n"))
    title_tag = soup.title.get_text(" ").strip() if soup.title else ""
    title = title_tag or first_heading or fallback_title
    return ParsedDocument(title=clean(title), sections=builder.build(), dropped=tuple(hidden))


def parse_text(text: str, *, fallback_title: str) -> ParsedDocument:
    blocks = [b for b in (clean(p) for p in re.split(r"\n\s*\n", text)) if b]
    sections = (Section((), tuple(blocks)),) if blocks else ()
    return ParsedDocument(title=fallback_title, sections=sections)


def parse_pdf(data: bytes, *, fallback_title: str) -> ParsedDocument:
    import io
    import logging

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        hidden: list[Dropped] = []
        pages = [_visible_pdf_text(page, hidden) for page in reader.pages]
        info_title = (reader.metadata.title if reader.metadata else None) or ""
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise IngestError(fallback_title, f"not a readable PDF ({exc})") from exc
    builder = _SectionBuilder()
    for number, page in enumerate(pages, start=1):
        for block in _pdf_blocks(page):
            if _looks_like_heading(block):
                builder.heading(2, block)
            else:
                builder.block(block)
        del number
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
