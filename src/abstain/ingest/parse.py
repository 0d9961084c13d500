"""Read a file into the document model (:mod:`abstain.ingest.blocks`), by its suffix.

Every format is parsed by a well-kept library (docs/INGEST.md has the table):
markdown-it-py (Markdown), BeautifulSoup (HTML), pypdf (PDF), PyYAML (front matter),
docutils (reStructuredText), python-docx (Word), python-pptx (PowerPoint) and openpyxl
(Excel) from the ``formats`` extra, the standard library for notebooks, e-mail and CSV. Text must be
UTF-8: anything else is an :class:`~abstain.errors.IngestError` that says how to convert
it, for files given to the CLI and for HTTP uploads alike (:func:`decode_text`). A file
whose parser is not installed is skipped with the ``pip install`` that brings it.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path, PurePath, PurePosixPath
from typing import cast

from abstain.errors import IngestError, MissingDependency
from abstain.ingest.blocks import ParsedDocument
from abstain.ingest.blocks import Section as Section
from abstain.ingest.markup import parse_html, parse_markdown
from abstain.ingest.plain import parse_pdf, parse_text
from abstain.ingest.visibility import invisible

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Files read whole are refused past this; streamed formats (CSV) are not."""


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
        text = decode_text(path.read_bytes(), str(path))
        return _with_invisible(parse(text, fallback_title=path.stem), text)
    return read


def _read_markdown(path: Path) -> ParsedDocument:
    text = decode_text(path.read_bytes(), str(path))
    return _with_invisible(parse_markdown(text, fallback_title=path.stem, source=str(path)),
                           text)


def _with_invisible(parsed: ParsedDocument, text: str) -> ParsedDocument:
    """``parsed`` with the invisible characters of ``text`` (which cleaning strips)
    recorded as left out (:mod:`abstain.ingest.visibility`)."""
    chars = invisible(text)
    return parsed if chars is None else replace(parsed, dropped=(*parsed.dropped, chars))


def _read_pdf(path: Path) -> ParsedDocument:
    return parse_pdf(path.read_bytes(), fallback_title=path.stem)


def _read_rst(path: Path) -> ParsedDocument:
    from abstain.ingest.rst import folder_labels, parse_rst

    return parse_rst(decode_text(path.read_bytes(), str(path)), fallback_title=path.stem,
                     labels=folder_labels(path.parent))


def _lazy(module: str, name: str) -> Callable[[Path], ParsedDocument]:
    """``module.name(path)``, the module imported on first use (its library with it)."""
    def read(path: Path) -> ParsedDocument:
        reader = getattr(importlib.import_module(module), name)
        return cast(ParsedDocument, reader(path))
    return read


_ASCIIDOC_TITLE = re.compile(r"\A\s*=[ \t]+\S")
"""A document title, AsciiDoc's first line: counts as two marks."""
_ASCIIDOC_MARKS = re.compile(r"^(?:==+[ \t]+\S|\[(?:source|NOTE|TIP|WARNING)\b"
                             r"|:[\w-]+:(?:[ \t]|$)|include::|ifn?def::|\S.*::\n(?=[ \t]*\S))"
                             r"|\b(?:link|xref|linkgit):\S", re.M)
_RST_MARKS = re.compile(r"^\.\. (?:[\w:-]+::|_[\w -]+:|\|)|:[a-z]+:`[^`]+`|::\n\n[ \t]+\S"
                        r"|(?<!`)``[^`\s][^`\n]*``(?!`)", re.M)
_UNDERLINED = re.compile(r"^(\S.{0,118})\n([=\-~^\"'`#*+])\2{2,}[ \t]*$", re.M)
_MARKDOWN_MARKS = re.compile(r"^```|\]\((?:https?://|\.{0,2}/)", re.M)
_MARKDOWN_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.M)
"""A Markdown heading, or a comment line of a file of them (a licence header): counted
only when fewer than a third of the lines are."""
_ASCIIDOC_HEADER = re.compile(r"^:[\w-]+:(?:[ \t]|$)", re.M)


def text_format(text: str) -> str:
    """What a ``.txt`` file is written in, by its marks: ``"asciidoc"`` (a ``= Title``,
    ``== Section`` titles, ``:attributes:``, ``term::`` lists, ``[source]`` blocks,
    ``link:`` macros: Git's docs until 2025), ``"rst"`` (directives, roles, ````literals````
    and ``::`` literal blocks, or titles underlined with ``~`` or ``^`` as well: Django's
    docs, many changelogs; ``=`` and ``-`` underlines alone are plain text's too),
    ``"markdown"`` (``#`` headings, fences, links), else ``"text"``."""
    head = text[:200_000]
    titled = _ASCIIDOC_TITLE.match(head) is not None
    if titled and _ASCIIDOC_HEADER.search(head[:2000]):
        return "asciidoc"  # "= Title" and its header's attributes
    asciidoc = len(_ASCIIDOC_MARKS.findall(head)) + 2 * titled
    rules = {m[2] for m in _UNDERLINED.finditer(head) if len(m[0].split("\n")[1].strip())
             >= len(m[1].rstrip()) - 1}
    rst = len(_RST_MARKS.findall(head)) + (2 if rules - {"=", "-"} and not asciidoc else 0)
    headings = len(_MARKDOWN_HEADING.findall(head))
    lines = max(1, sum(1 for line in head.split("\n") if line.strip()))
    markdown = len(_MARKDOWN_MARKS.findall(head)) + (headings if headings <= max(2, lines // 3)
                                                     else 0)
    scores = {"asciidoc": asciidoc if asciidoc >= 3 else 0, "rst": rst if rst >= 2 else 0,
              "markdown": markdown if markdown >= 2 else 0}
    best = max(scores, key=lambda kind: scores[kind])
    return best if scores[best] else "text"


READ_AS = "abstain.read_as"
"""The metadata key naming what a ``.txt`` file was read as, when not as plain text, or why
it was read as plain text although written in another format (reported by the ingest)."""


def _read_text(path: Path) -> ParsedDocument:
    """A ``.txt`` file by what it is written in (:func:`text_format`): as AsciiDoc,
    reStructuredText (plain text when docutils is not installed, said in :data:`READ_AS`) or
    Markdown, else as plain text."""
    text = decode_text(path.read_bytes(), str(path))
    kind = text_format(text)
    if kind == "asciidoc":
        from abstain.ingest.asciidoc import parse_asciidoc

        parsed, read_as = parse_asciidoc(text, fallback_title=path.stem), "AsciiDoc"
    elif kind == "rst" and importlib.util.find_spec("docutils") is not None:
        from abstain.ingest.rst import folder_labels, parse_rst

        parsed = parse_rst(text, fallback_title=path.stem, labels=folder_labels(path.parent))
        read_as = "reStructuredText"
    elif kind == "markdown":
        parsed = parse_markdown(text, fallback_title=path.stem, source=str(path))
        read_as = "Markdown"
    elif kind == "rst":
        hint = MissingDependency("docutils", "formats")
        parsed = parse_text(text, fallback_title=path.stem)
        read_as = (f"plain text, though written in reStructuredText: {hint.package} is not "
                   f"installed ({hint.install})")
    else:
        return _with_invisible(parse_text(text, fallback_title=path.stem), text)
    parsed = replace(parsed, metadata={**parsed.metadata, READ_AS: read_as})
    return _with_invisible(parsed, text)


def _read_man(path: Path) -> ParsedDocument:
    """A man page; a file named like one that is not (``app.log.1``) is refused."""
    from abstain.ingest.manpage import is_man_page, parse_man

    text = decode_text(path.read_bytes(), str(path))
    if not is_man_page(text):
        raise IngestError(str(path), f"a {path.suffix} file that is no man page (no .TH or .SH "
                                     "request): not read")
    return _with_invisible(parse_man(text, fallback_title=path.stem), text)


def _lazy_text(module: str, name: str) -> Callable[[Path], ParsedDocument]:
    """:func:`_text_reader` of ``module.name``, the module imported on first use."""
    def read(path: Path) -> ParsedDocument:
        return _text_reader(getattr(importlib.import_module(module), name))(path)
    return read


_GZIPPED = ("man page", "Markdown", "plain text", "AsciiDoc", "reStructuredText", "HTML")
"""What a ``.gz`` file may hold (``/usr/share/man``'s pages are ``sed.1.gz``)."""


def _read_gzip(path: Path) -> ParsedDocument:
    """A compressed page (``sed.1.gz``) read as the file it holds, at most
    :data:`MAX_FILE_BYTES` of it."""
    import gzip
    import tempfile
    import zlib

    inner = PurePath(path.stem)
    fmt = format_of(inner.suffix)
    if fmt is None or fmt.name not in _GZIPPED:
        raise IngestError(str(path), f"a compressed {inner.suffix or 'file'}, which is not read: "
                                     f"only {', '.join(_GZIPPED)} are read from a .gz file")
    try:
        with gzip.open(path) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise IngestError(str(path), f"not a readable gzip file: {exc}") from exc
    if len(data) > MAX_FILE_BYTES:
        raise IngestError(str(path), "it holds more than 50 MiB; the limit is 50 MiB")
    with tempfile.TemporaryDirectory() as folder:
        unpacked = Path(folder) / inner.name
        unpacked.write_bytes(data)
        return fmt.read(unpacked)


_STDLIB = "(standard library)"
FORMATS = (
    Format("Markdown", (".md", ".markdown", ".mdx"), _read_markdown, "markdown-it-py"),
    Format("plain text", (".txt",), _read_text, "abstain"),
    Format("HTML", (".html", ".htm"), _text_reader(parse_html), "BeautifulSoup"),
    Format("AsciiDoc", (".adoc", ".asciidoc"), _lazy_text("abstain.ingest.asciidoc",
                                                          "parse_asciidoc"), "abstain"),
    Format("man page", (*(f".{n}" for n in range(1, 10)), ".man"), _read_man, "abstain"),
    Format("PDF", (".pdf",), _read_pdf, "pypdf"),
    Format("reStructuredText", (".rst", ".rest"), _read_rst, "docutils", "formats"),
    Format("Word", (".docx",), _lazy("abstain.ingest.office", "read_docx"), "python-docx",
           "formats"),
    Format("PowerPoint", (".pptx",), _lazy("abstain.ingest.office", "read_pptx"),
           "python-pptx", "formats"),
    Format("Jupyter notebook", (".ipynb",), _lazy("abstain.ingest.notebook", "read_notebook"),
           f"json {_STDLIB}"),
    Format("e-mail", (".eml", ".mbox"), _lazy("abstain.ingest.mail", "read_mail"),
           f"email, mailbox {_STDLIB}"),
    Format("CSV", (".csv", ".tsv"), _lazy("abstain.ingest.tabular", "read_csv"),
           f"csv {_STDLIB}", streamed=True),
    Format("Excel", (".xlsx", ".xlsm"), _lazy("abstain.ingest.tabular", "read_xlsx"),
           "openpyxl", "formats"),
    Format("gzip-compressed text", (".gz",), _read_gzip, f"gzip {_STDLIB}"),
)
_BY_SUFFIX = {suffix: f for f in FORMATS for suffix in f.suffixes}
_MAN_SECTION = re.compile(r"\.[1-9][a-z]{1,6}")
"""A man page's section with its suffix (``.1ssl``, ``.3pm``, ``.1p``)."""


def readable(suffix: str) -> bool:
    """Whether a file of ``suffix`` is read (:func:`format_of`)."""
    return format_of(suffix) is not None


def format_of(suffix: str) -> Format | None:
    """The format a file of ``suffix`` is read as; None when none reads it."""
    suffix = suffix.lower()
    return _BY_SUFFIX.get(suffix) or (_BY_SUFFIX[".1"] if _MAN_SECTION.fullmatch(suffix)
                                      else None)


_OLD_OFFICE = {".doc": ".docx", ".xls": ".xlsx", ".ppt": ".pptx"}
"""The old binary Office formats, which no parser here reads, and what to save them as."""
_OPEN_DOCUMENT = {".odt": ".docx", ".ods": ".xlsx", ".odp": ".pptx"}
"""LibreOffice's formats, which no parser here reads, and what to save them as."""
SUPPORTED_SUFFIXES = tuple(_BY_SUFFIX)


def parse_file(path: Path) -> ParsedDocument:
    suffix = path.suffix.lower()
    fmt = format_of(suffix)
    if fmt is None:
        raise unsupported(str(path), suffix, listed=True)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES and not fmt.streamed:
            raise IngestError(str(path), f"file is {size // 2**20} MiB; the limit is 50 MiB")
        return fmt.read(path)
    except ImportError as exc:
        hint = MissingDependency(exc.name or fmt.library, fmt.extra or "formats")
        raise IngestError(str(path), f"reading {fmt.name} needs {hint.package}, which is not "
                                     f"installed; install it with: {hint.install}") from exc
    except OSError as exc:
        raise IngestError(str(path), f"cannot read: {exc.strerror or exc}") from exc


def unsupported(source: str, suffix: str, *, listed: bool = False) -> IngestError:
    """The error for a file of a type no parser reads; an old binary Office file says what
    to save it as. ``listed``: the supported suffixes follow."""
    if suffix in _OLD_OFFICE:
        return IngestError(source, f"an old binary Office file ({suffix}), which is not read: "
                                   f"save it as {_OLD_OFFICE[suffix]} and ingest that")
    if suffix in _OPEN_DOCUMENT:
        return IngestError(source, f"an OpenDocument file ({suffix}), which is not read: save "
                                   f"it as {_OPEN_DOCUMENT[suffix]} and ingest that")
    return IngestError(source, f"unsupported file type {suffix or '(none)'}" + (
        f"; supported: {', '.join(SUPPORTED_SUFFIXES)}" if listed else ""))


UPLOAD_STEM_BYTES = 150
"""An upload is parsed from a temporary file named like it (its stem is a title's fallback),
cut to this many bytes: a name of 255 accented characters is longer than a file system's
255 bytes."""


def parse_bytes(data: bytes, name: str) -> ParsedDocument:
    """An uploaded file's bytes, parsed by its name's suffix as :func:`parse_file` would;
    reasons name ``name``, not the temporary file."""
    import tempfile

    suffix = PurePosixPath(name).suffix.lower()
    stem = PurePosixPath(name).stem.encode()[:UPLOAD_STEM_BYTES].decode(errors="ignore")
    with tempfile.TemporaryDirectory(prefix="abstain-upload-") as folder:
        path = Path(folder) / f"{stem or 'upload'}{suffix}"
        path.write_bytes(data)
        try:
            parsed = parse_file(path)
            return replace(parsed, sections=tuple(parsed.sections))
        except IngestError as exc:  # the temporary file's path is no business of the sender's
            raise IngestError(name, exc.reason.replace(str(path), name)
                              .replace(folder, "")) from exc


def parse_string(text: str, *, name: str = "text", fmt: str = "md") -> ParsedDocument:
    if fmt in ("md", "markdown"):
        return _with_invisible(parse_markdown(text, fallback_title=name, source=name), text)
    if fmt == "rst":
        from abstain.ingest.rst import parse_rst

        return _with_invisible(parse_rst(text, fallback_title=name), text)
    parser = {"html": parse_html, "txt": parse_text, "text": parse_text}.get(fmt)
    if parser is None:
        raise IngestError(name, f"unknown format {fmt!r}")
    return _with_invisible(parser(text, fallback_title=name), text)


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
"""What Windows tools (Notepad's "Unicode", PowerShell's redirection) start UTF-16 text with."""


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text (a BOM is dropped), or UTF-16 that says so with its BOM; anything else is an
    error saying how to convert it."""
    if data.startswith(_UTF16_BOMS):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise IngestError(source, f"starts as UTF-16 text but is not (invalid bytes at "
                                      f"offset {exc.start})") from exc
    kind = signed_as(data)
    if kind is not None:
        raise IngestError(source, f"is {kind} named as text: rename it to its type "
                                  "and ingest it again")
    if b"\x00" in data[:4096]:
        raise IngestError(source, "looks like a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(source, f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at "
                                  f"offset {exc.start}); {convert_hint(source)}") from exc


_SIGNATURES = ((b"%PDF-", "a PDF file (.pdf)"),
               (b"PK\x03\x04", "a ZIP container (.docx, .pptx, .xlsx or .zip)"),
               (b"\xd0\xcf\x11\xe0", "an old Office file ({}: save it as {})".format(
                   ", ".join(_OLD_OFFICE), ", ".join(_OLD_OFFICE.values()))))
"""How documents that are not text begin: what a text file that begins so really is."""


def signed_as(data: bytes) -> str | None:
    """What a file that begins with a known document signature is, else None."""
    return next((kind for magic, kind in _SIGNATURES if data.startswith(magic)), None)


def convert_hint(source: str) -> str:
    """How to make a UTF-8 copy that ingests: a name that keeps the file's type."""
    path = PurePath(source)
    copy = f"{path.stem}.utf8{path.suffix}"
    return (f"convert it first, e.g. iconv -f latin1 -t utf-8 {shlex.quote(path.name)} > "
            f"{shlex.quote(copy)}")
