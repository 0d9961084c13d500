"""AsciiDoc (``.adoc``, ``.asciidoc``) into typed blocks: Git's, Spring's or Quarkus' docs.

Written here, the one format without a well-kept library: asciidoctrine (Apache-2.0) reads
about 1.3 KB a second (104 s for Git LFS's 133 KB of man pages) and asciidoc-py is
GPL and runs shell filters. It reads what documentation uses of Asciidoctor's syntax:

    = Title, == Section … (#, and two-line titles    headings
      underlined with = - ~ ^ +)
    :name: value, {name}                             attributes, substituted in text
    ifdef:: / ifndef:: / ifeval:: … endif::         kept when the page's attributes (and
                                                     Asciidoctor's own) say so
    * / ** / - items, . / 1. ordered, <1> callouts,  list items, definitions (several terms
      term:: text                                    over one text: "-I, --include")
    ----, ...., ```, [source] / [literal] / indented  code
      paragraphs
    ====, ****, ____, --                             example, sidebar, quote, open blocks:
                                                     their text read as the page's
    [NOTE] ====, NOTE: text, .Title                  admonitions, block titles ("Title:")
    |===, ,===, :===                                tables (cols, %header / %noheader or an
                                                     implicit header row, column and row
                                                     spans, csv / dsv formats)
    ////, //, ++++, include::, image::, ''', <<<     left out (comments, raw HTML kept as its
                                                     text, includes, images, breaks)

Inline: *bold*, _emphasis_, `code`, +passthrough+ and #marks# lose their marks, "`curved
quotes`" their backticks, a backslash escape its backslash, a character reference is its
character; ``link:url[text]``, ``https://…[text]``, ``xref:…[text]`` and ``<<id,text>>``
read as their text (a bare ``<<_default_remote>>`` as "default remote"); ``kbd:[…]``,
``btn:[…]``, ``menu:File[Save]`` as what they name; a footnote in parentheses; images,
anchors and hidden index terms leave nothing.
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Sequence

from abstain.ingest.blocks import (
    Block,
    BlockKind,
    ParsedDocument,
    SectionBuilder,
    code,
    definition,
    list_item,
    one_line,
    paragraph,
    table_row,
)
from abstain.ingest.markup import item_block, parse_html

NESTING = 8
"""Compound blocks (example, sidebar, quote, open) nested deeper than this are read as one
paragraph (a bound on hostile input)."""
MAX_VALUE = 4000
"""An attribute's value is cut to this many characters: values built from values
(``:a2: {a1}{a1}``) would otherwise double with each line."""

_HEADING = re.compile(r"(={1,6}|#{1,6})[ \t]+(\S.*)")
_UNDERLINE = re.compile(r"(={2,}|-{2,}|~{2,}|\^{2,}|\+{2,})[ \t]*")
_UNDERLINE_LEVELS = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_DELIMITER = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--)[ \t]*")
_BACKTICK_FENCE = re.compile(r"(`{3,})[\w+#.-]*[ \t]*")
_VERBATIM = re.compile(r"-{4,}|\.{4,}|\+{4,}|(`{3,})[\w+#.-]*")
_ATTRIBUTE_ENTRY = re.compile(r":(!?)([\w][\w-]*)(!?):(?:[ \t]+(.*))?")
_CONDITIONAL = re.compile(r"(ifdef|ifndef|ifeval|endif)::([^\[\s]*)\[(.*)\][ \t]*")
_INCLUDE = re.compile(r"\\?include::\S*\[.*\][ \t]*")
_BLOCK_MACRO = re.compile(r"(?:image|video|audio|toc)::\S*\[.*\][ \t]*|'{3,}|<{3}|-{3}")
_ANCHOR_LINE = re.compile(r"\[\[[^\]]*\]\][ \t]*")
_BLOCK_ATTRIBUTES = re.compile(r"\[([^\[\]]*)\][ \t]*")
_BLOCK_TITLE = re.compile(r"\.([^.\s\d].*)")
_ADMONITION = re.compile(r"(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(.*)")
_ITEM = re.compile(r"[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,3}\.|<\d{1,3}>|<\.>)[ \t]+"
                   r"(?:\[[ xX*]\][ \t]+)?(\S.*)")
_TERM = re.compile(r"[ \t]*(?P<term>\S.*?)(?P<sep>:{2,4}|;;)(?:[ \t]+(?P<text>.*))?")
_TABLE = re.compile(r"([|,:!])===[ \t]*")
_CONTINUATION = "+"
_CODE_STYLES = frozenset({"source", "listing", "literal"})
_BUILT_IN = {"empty": "", "blank": "", "sp": " ", "nbsp": " ", "zwsp": "", "plus": "+",
             "startsb": "[", "endsb": "]", "vbar": "|", "caret": "^", "asterisk": "*",
             "tilde": "~", "apos": "'", "backslash": "\\", "backtick": "`", "amp": "&",
             "lt": "<", "gt": ">", "deg": "°", "two-colons": "::", "two-semicolons": ";;",
             "cpp": "C++", "pp": "++", "quot": '"'}
_ASCIIDOCTOR_SETS = frozenset({"asciidoctor", "asciidoctor-version", "backend", "backend-html5",
                               "basebackend", "basebackend-html", "doctype", "doctype-article",
                               "filetype", "filetype-html", "htmlsyntax", "outfilesuffix"})
"""Attributes Asciidoctor sets for an HTML page, as ``ifdef::`` sees them."""


def parse_asciidoc(text: str, *, fallback_title: str) -> ParsedDocument:
    """The document's sections; its title is the ``= Title`` line, else the ``:doctitle:``
    attribute, else the first heading, else ``fallback_title``."""
    attributes: dict[str, str] = dict(_BUILT_IN)
    lines = _preprocessed(text.replace("\r\n", "\n").replace("\t", "    ").split("\n"))
    builder = SectionBuilder()
    title = _Reader(attributes, builder).read(lines, 0)
    return ParsedDocument(title=title or attributes.get("doctitle") or builder.first_heading
                          or fallback_title, sections=builder.build())


def _underlines(title: str, line: str) -> bool:
    """Whether ``line`` underlines ``title`` (a two-line section title: as long as the
    title, give or take a character)."""
    title = title.rstrip()
    return (bool(_UNDERLINE.fullmatch(line)) and bool(title) and not title.startswith(
        (" ", ".", "[", "/", "*", "-", "|", "=", "+", "<", "'", "`", ":"))
        and abs(len(line.rstrip()) - len(title)) <= 1 and not _TERM.fullmatch(title))


def _preprocessed(lines: list[str]) -> list[str]:
    """``lines`` as Asciidoctor's preprocessor leaves them: conditionals decided by the
    page's attributes (any defined anywhere on it) and Asciidoctor's own (``ifeval::`` is
    kept), ``include::`` lines gone (an escaped ``\\include::`` is text); comment blocks
    (``////``) and lines (``// …``) gone outside verbatim blocks."""
    defined = _ASCIIDOCTOR_SETS | {m[2].lower() for line in lines
                                   if (m := _ATTRIBUTE_ENTRY.fullmatch(line.strip()))
                                   and not (m[1] or m[3])}
    out: list[str] = []
    skipping: list[bool] = []  # one entry per open conditional: whether it hides its lines
    fence: str | None = None  # the open comment or verbatim block's delimiter
    previous = ""
    for line in lines:
        stripped = line.strip()
        conditional = _CONDITIONAL.fullmatch(stripped)
        if conditional is not None:
            kind, names, inline = conditional[1], conditional[2], conditional[3]
            if kind == "endif":
                if skipping:
                    skipping.pop()
                continue
            keep = kind == "ifeval" or _holds(names, defined) == (kind == "ifdef")
            if inline and kind != "ifeval":  # "ifdef::env-site[Read it online.]"
                if keep and not any(skipping):
                    out.append(inline)
                continue
            skipping.append(not keep)
            continue
        if any(skipping):
            continue
        if _INCLUDE.fullmatch(stripped):
            if stripped.startswith("\\"):
                out.append(line.replace("\\include::", "include::", 1))
            continue
        if fence is not None:
            if not fence.startswith("/"):  # a comment block's lines are left out
                out.append(line)
            if stripped == fence:
                fence = None
            continue
        verbatim = _VERBATIM.fullmatch(stripped)
        if re.fullmatch(r"/{4,}", stripped) or (verbatim and not _underlines(previous,
                                                                              stripped)):
            fence = (verbatim[1] if verbatim else None) or stripped  # "```yaml" closes on "```"
            if verbatim:
                out.append(line)
            previous = ""
            continue
        if stripped.startswith("//") and not stripped.startswith("///"):
            continue
        out.append(line)
        previous = line
    return out


def _holds(names: str, defined: frozenset[str] | set[str]) -> bool:
    """Whether ``names`` of an ``ifdef::`` are set: ``a,b`` any of them, ``a+b`` all."""
    if "+" in names:
        return all(n.lower() in defined for n in names.split("+") if n)
    return any(n.lower() in defined for n in names.split(",") if n)


class _Reader:
    """Reads lines into a :class:`SectionBuilder`, compound blocks recursively."""

    def __init__(self, attributes: dict[str, str], builder: SectionBuilder) -> None:
        self.attributes = attributes
        self.builder = builder

    def inline(self, text: str) -> str:
        return inline_text(text, self.attributes)

    def read(self, lines: Sequence[str], depth: int) -> str | None:
        """Read ``lines``; the document title (``= Title``) when they hold one."""
        title: str | None = None
        style = ""  # the pending block style ("source", "note", "quote", "verse"), lowercase
        options = ""  # the pending block attributes, whole
        caption = ""  # the pending block title (".Title")
        lead = ""  # the paragraph before a list, its lead-in
        i = 0
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if (not stripped or stripped == _CONTINUATION or _BLOCK_MACRO.fullmatch(stripped)
                    or _ANCHOR_LINE.fullmatch(stripped)):  # (a "+" whose block was included)
                i += 1
                continue
            entry = _ATTRIBUTE_ENTRY.fullmatch(stripped)
            if entry is not None:
                i = self._attribute(lines, i, entry)
                continue
            attributes = _BLOCK_ATTRIBUTES.fullmatch(stripped)
            if attributes is not None and not stripped.startswith("[["):
                options = attributes[1]
                first = options.split(",")[0].strip()
                style = first.lower() if re.fullmatch(r"[A-Za-z][\w-]*", first) else ""
                i += 1
                continue
            block_title = _BLOCK_TITLE.fullmatch(stripped)
            if block_title is not None and not line.startswith((" ", "\t")):
                caption = self.inline(block_title[1])
                i += 1
                continue
            heading = _HEADING.fullmatch(line)
            underlined = (heading is None and i + 1 < len(lines)
                          and _underlines(line, lines[i + 1].strip()))
            if heading is not None or underlined:
                if heading is not None:
                    level, raw = len(heading[1]), _closing_marks(heading[2], heading[1][0])
                    i += 1
                else:
                    level, raw = _UNDERLINE_LEVELS[lines[i + 1].strip()[0]], stripped
                    i += 2
                if level == 1 and title is None and depth == 0 and not self.builder.first_heading:
                    while i < len(lines) and lines[i].strip():  # the header: author, revision
                        entry = _ATTRIBUTE_ENTRY.fullmatch(lines[i].strip())
                        i = self._attribute(lines, i, entry) if entry else i + 1
                    title = self.inline(raw)
                if style == "discrete" or style == "float":
                    self.builder.add(paragraph(self.inline(raw)))  # a heading outside the outline
                else:
                    self.builder.heading(level, self.inline(raw))
                style = options = caption = lead = ""
                continue
            fence = _fence(stripped)
            if fence is not None:
                end = _closing(lines, i, fence)
                body = lines[i + 1:end]
                table = _TABLE.fullmatch(stripped)
                if caption:
                    self.builder.add(paragraph(f"{caption}:"))
                if table is not None:
                    self.builder.extend(_table(body, table[1], options, self.attributes))
                else:
                    self._delimited(fence, body, style, depth)
                style = options = caption = lead = ""
                i = end + 1
                continue
            if _ITEM.fullmatch(line) or _TERM.fullmatch(line):
                if caption:
                    lead = f"{caption}:"
                    self.builder.add(paragraph(lead))
                i = self._list(lines, i, lead, _start(options), depth)
                style = options = caption = ""
                continue
            end = _paragraph_end(lines, i, in_list=False)
            said = lines[i:end]
            if caption:
                self.builder.add(paragraph(f"{caption}:"))
            if style in _CODE_STYLES or (style not in ("verse", "quote") and line.startswith(" ")):
                self.builder.add(code("\n".join(_dedent(said))))
            else:
                text = self.inline(_joined(said))
                admonition = _ADMONITION.fullmatch(text)
                if admonition is not None:  # "NOTE: …": the label says nothing
                    text = admonition[2]
                block = paragraph(text)
                self.builder.add(block)
                lead = block.text if block is not None else ""
            style = options = caption = ""
            i = end
        return title

    def _attribute(self, lines: Sequence[str], i: int, entry: re.Match[str]) -> int:
        """Set or unset an attribute entry (``:name: value``, ``:name!:``; a value may go on
        over lines ending in `` \\``); the index after it."""
        name = entry[2].lower()
        value = (entry[4] or "").rstrip()
        while value.endswith(" \\") and i + 1 < len(lines):
            i += 1
            value = value[:-2] + " " + lines[i].strip()
        if entry[1] or entry[3]:
            self.attributes.pop(name, None)
        else:
            self.attributes[name] = self.inline(value[:MAX_VALUE])[:MAX_VALUE]
        return i + 1

    def _delimited(self, fence: str, body: Sequence[str], style: str, depth: int) -> None:
        """A delimited block: code for ``----``, ``....`` and ```` ``` ```` (and a
        ``[source]`` open block); raw HTML (``++++``) as its text; an example, sidebar, quote
        or open block (``====``, ``****``, ``____``, ``--``) read as the page, an
        admonition's (``[NOTE]``) too; a verse as one paragraph."""
        if (fence[0] in "-.`" and fence != "--") or style in _CODE_STYLES:
            self.builder.add(code("\n".join(body)))
        elif fence[0] == "+":
            parsed = parse_html("\n".join(body), fallback_title="")
            self.builder.extend(b for s in parsed.sections for b in s.blocks)
        elif style == "verse" or depth >= NESTING:
            self.builder.add(paragraph(self.inline(_joined(body))))
        else:
            _Reader(self.attributes, _Nested(self.builder)).read(body, depth + 1)

    def _list(self, lines: Sequence[str], i: int, lead: str, start: int, depth: int) -> int:
        """The list items and definitions from line ``i`` (numbered from ``start``): an
        item's text goes on to a blank line or the next item; a term without text
        (``-I <paths>::``) joins the next one ("-I <paths>, --include=<paths>"), unless a
        list or a block follows it; a definition's text may start on its next line. A ``+``
        line attaches what follows to the item: a paragraph goes on its text, a block is
        read after it."""
        terms: list[str] = []
        ordered: dict[int, int] = {1: start}  # the next number of each ordered level
        while i < len(lines):
            line = lines[i]
            item = _ITEM.fullmatch(line)
            term = _TERM.fullmatch(line) if item is None else None
            if item is None and term is None:
                if not line.strip() and i + 1 < len(lines) and _continues_list(lines[i + 1]):
                    i += 1
                    continue
                break
            end = _paragraph_end(lines, i)
            said = _joined([(item[2] if item else term["text"] if term else "") or "",
                            *lines[i + 1:end]]).strip()
            if term is not None and not said:  # a description may start after blank lines
                text_at = next((j for j in range(end, len(lines)) if lines[j].strip()), end)
                if text_at > end and _attached_paragraph(lines, text_at, indented=True):
                    end = _paragraph_end(lines, text_at)
                    said = _joined(lines[text_at:end]).strip()
            own = said
            i = end
            while i < len(lines) and lines[i].strip() == _CONTINUATION:  # "+" and a paragraph:
                after = _attached_paragraph(lines, i + 1)  # the item's text goes on
                if after is None:
                    break
                joiner = " " if not said or said.endswith((".", ":", ";", "!", "?")) else (
                    ": " if item is not None else ". ")
                said = f"{said}{joiner}{_joined(lines[i + 1:after])}".strip()
                i = after
            if item is not None:
                if terms:  # a term that held only this list
                    self.builder.add(definition(", ".join(terms), ""))
                    terms = []
                self.builder.add(self._item(item[1], own, said, lead, ordered))
            elif term is not None:
                terms.append(self.inline(term["term"]))
                follows = i < len(lines) and (lines[i].strip() == _CONTINUATION or bool(
                    _ITEM.fullmatch(lines[i])))
                if said or follows:
                    self.builder.add(definition(", ".join(terms), self.inline(said)))
                    terms = []
            while i < len(lines) and lines[i].strip() == _CONTINUATION:
                i = self._attached(lines, i + 1, depth)
        if terms:
            self.builder.add(definition(", ".join(terms), ""))
        return i

    def _item(self, marker: str, own: str, said: str, lead: str, ordered: dict[int, int]
              ) -> Block | None:
        """A list item: numbered when ordered (``.``, ``..``, ``1.``), a definition when its
        own text reads ``term: text``."""
        if marker[0] == "." or marker[0].isdigit():
            level = len(marker) if marker[0] == "." else 1
            number = ordered.get(level, 1)
            ordered[level] = number + 1
            for deeper in [k for k in ordered if k > level]:
                del ordered[deeper]
            marker = f"{number}."
        else:
            marker = "-"
        block = item_block(self.inline(own), lead, marker)  # "term: text" or not
        if said == own:
            return block
        if block is not None and block.kind is BlockKind.DEFINITION:
            return item_block(self.inline(said), lead, marker)
        return list_item(self.inline(said), lead, marker)

    def _attached(self, lines: Sequence[str], i: int, depth: int) -> int:
        """What a list continuation (``+``) attaches that is not a plain paragraph — a
        delimited block with its title and attributes, a literal paragraph, an admonition —
        read after its item; the index after it."""
        start = i
        while i < len(lines) and (_BLOCK_ATTRIBUTES.fullmatch(lines[i].strip())
                                  or _BLOCK_TITLE.fullmatch(lines[i].strip())):
            i += 1
        if i >= len(lines):
            return i
        fence = _fence(lines[i].strip())
        if fence is not None:
            end = _closing(lines, i, fence)
            self.read(lines[start:end + 1], depth)
            return end + 1
        end = _paragraph_end(lines, i)
        self.read(lines[start:end], depth)
        return end


class _Nested(SectionBuilder):
    """A compound block's builder: its blocks go to the page's section; a heading inside it
    is a paragraph (it does not open a section of the page)."""

    def __init__(self, outer: SectionBuilder) -> None:
        super().__init__()
        self.outer = outer

    def heading(self, level: int, title: str) -> None:
        self.outer.add(paragraph(title))

    def add(self, block: Block | None) -> None:
        self.outer.add(block)


def _closing_marks(text: str, mark: str) -> str:
    """A heading's text without the closing marks some write (``== Title ==``)."""
    text = text.rstrip()
    stripped = text.rstrip(mark)
    return stripped.rstrip() if stripped != text and stripped.endswith((" ", "\t")) else text


def _start(options: str) -> int:
    match = re.search(r"\bstart\s*=\s*\"?(\d{1,6})", options)
    return int(match[1]) if match else 1


def _fence(stripped: str) -> str | None:
    """The line that closes the delimited block or table ``stripped`` opens (```` ```yaml ````
    closes on ```` ``` ````); None when it opens none."""
    backticks = _BACKTICK_FENCE.fullmatch(stripped)
    if backticks is not None:
        return backticks[1]
    return stripped if _DELIMITER.fullmatch(stripped) or _TABLE.fullmatch(stripped) else None


def _closing(lines: Sequence[str], i: int, fence: str) -> int:
    """The index of the line after ``i`` that is ``fence``; the end when none is."""
    return next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), len(lines))


def _starts_block(line: str) -> bool:
    stripped = line.strip()
    return bool(_fence(stripped) is not None or _HEADING.fullmatch(line)
                or _ANCHOR_LINE.fullmatch(stripped) or _BLOCK_MACRO.fullmatch(stripped)
                or (_BLOCK_ATTRIBUTES.fullmatch(stripped) and not stripped.startswith("[[")))


def _paragraph_end(lines: Sequence[str], i: int, *, in_list: bool = True) -> int:
    """Where the paragraph (or list item's text) at ``i`` ends: a blank line, a block's
    start, a block title; in a list also a ``+`` or the next item."""
    end = i + 1
    while end < len(lines) and lines[end].strip() and not _starts_block(lines[end]):
        stripped = lines[end].strip()
        if in_list and (stripped == _CONTINUATION or _continues_list(lines[end])):
            break
        if _BLOCK_TITLE.fullmatch(stripped) and not lines[end].startswith(" "):
            break
        end += 1
    return end


def _attached_paragraph(lines: Sequence[str], i: int, *, indented: bool = False
                        ) -> int | None:
    """Where a plain paragraph a list continuation attaches at ``i`` ends; None when a
    block, a titled block, a literal paragraph (unless ``indented`` text is a paragraph
    too), an admonition or nothing is attached."""
    if i >= len(lines):
        return None
    line = lines[i]
    stripped = line.strip()
    if (not stripped or (line.startswith(" ") and not indented) or _starts_block(line)
            or _continues_list(line) or stripped == _CONTINUATION
            or _BLOCK_TITLE.fullmatch(stripped) or _ADMONITION.fullmatch(stripped)):
        return None
    return _paragraph_end(lines, i)


def _continues_list(line: str) -> bool:
    return bool(_ITEM.fullmatch(line) or _TERM.fullmatch(line))


def _joined(lines: Sequence[str]) -> str:
    """Lines of running text on one line, a hard line break (a line ending in `` +``) a
    space."""
    return " ".join(s.strip().removesuffix(" +") for s in lines)


def _dedent(lines: Sequence[str]) -> list[str]:
    indent = min((len(s) - len(s.lstrip()) for s in lines if s.strip()), default=0)
    return [s[indent:] for s in lines]


# -- tables ---------------------------------------------------------------------

_CELL = re.compile(r"(?:(?<![^\s])(?P<spec>(?P<dup>\d{1,3}\*)?(?:(?P<cols>\d{1,3})?"
                   r"(?:\.(?P<rows>\d{1,3}))?\+)?[<^>]?(?:\.[<^>])?(?P<style>[adehlmsv])?))?"
                   r"(?<!\\)\|")
"""A ``|===`` table's cell separator with its specifier (``2+|`` spans two columns, ``.3+|``
three rows, ``3*|`` repeats the cell, ``a|`` holds AsciiDoc); a specifier stands after a
space or at a line's start, so "data|" and "30|" are text before a bare ``|``."""
_IN_CELL_BLOCK = re.compile(r"[ \t]*(?:-{4,}|\.{4,}|={4,}|\*{4,}|\[[^\[\]]*\])[ \t]*")


def _table(body: Sequence[str], separator: str, options: str,
           attributes: dict[str, str]) -> list[Block | None]:
    """A table's rows, each with the header row's names (``%header``, ``options="header"``,
    or a first line of cells followed by a blank line, unless ``%noheader``). Columns:
    ``cols="1,2a,3"`` (``3*`` counts three), else the cells of the first line; a cell that
    spans columns or rows holds each of them."""
    listed = re.search(r"\bformat\s*=\s*\"?(csv|dsv|tsv)", options)
    kind = listed[1] if listed else {",": "csv", ":": "dsv"}.get(separator, "psv")
    if kind == "psv":
        cells, first_line, implicit = _cells(body, separator)
    else:
        rows = _delimited_rows(body, {"csv": ",", "tsv": "\t"}.get(kind, ":"))
        cells = [(c, 1, 1) for row in rows for c in row]
        first_line, implicit = (len(rows[0]) if rows else 0), False
    columns = _columns(options) or first_line
    if not columns or not cells:
        return []
    rows = _grid([(inline_text(t, attributes), c, r) for t, c, r in cells], columns)
    listed_options = re.search(r"opt(?:ion)?s\s*=\s*\"([^\"]*)\"", options)
    named = set(re.findall(r"%(\w+)", options)) | set(
        re.findall(r"\w+", listed_options[1] if listed_options else ""))
    header: list[str] = []
    if "header" in named or (implicit and "noheader" not in named):
        header, rows = rows[0], rows[1:]
    return [table_row(header, row) for row in rows]


def _cells(body: Sequence[str], separator: str) -> tuple[list[tuple[str, int, int]], int, bool]:
    """The cells of a ``|===`` table in order, each with the columns and rows it spans; how
    many columns the first line of cells holds; whether that line stands alone before a
    blank line (an implicit header row)."""
    pattern = _CELL if separator == "|" else re.compile(_CELL.pattern.replace(r"\|", "!"))
    text = "\n".join(body)
    cells: list[tuple[str, int, int]] = []
    first_line = 0
    implicit = False
    matches = list(pattern.finditer(text))
    for at, match in enumerate(matches):
        end = matches[at + 1].start() if at + 1 < len(matches) else len(text)
        said = text[match.end():end]
        if match["style"] == "a":  # AsciiDoc in the cell: its block lines say nothing
            said = "\n".join(s for s in said.split("\n") if not _IN_CELL_BLOCK.fullmatch(s))
        said = _joined(said.split("\n")).replace(f"\\{separator}", separator).strip()
        spans = (int(match["cols"] or 1), int(match["rows"] or 1)) if match["spec"] else (1, 1)
        copies = int(match["dup"][:-1]) if match["dup"] else 1
        cells.extend([(said, min(spans[0], 100), min(spans[1], 100))] * min(copies, 100))
        if at == 0 or "\n" not in text[matches[0].start():match.start()]:
            first_line += spans[0] * copies
            line_end = text.find("\n", match.start())
            implicit = line_end >= 0 and text[line_end + 1:line_end + 2] == "\n"
    return cells, first_line, implicit


def _grid(cells: Sequence[tuple[str, int, int]], columns: int) -> list[list[str]]:
    """``cells`` laid out in rows of ``columns``: a cell spanning columns or rows fills each
    place it covers, the places a row span covers are skipped by the cells below it."""
    rows: list[list[str]] = []
    row: dict[int, str] = {}
    above: dict[int, tuple[str, int]] = {}  # column -> (text, rows below still covered)
    below: dict[int, tuple[str, int]] = {}  # spans starting in this row
    col = 0

    def skip_covered() -> None:
        nonlocal col
        while col < columns and col in above:
            row[col] = above[col][0]
            col += 1

    def end_row() -> None:
        nonlocal col, row, above, below
        for c, (text, _) in above.items():
            row.setdefault(c, text)
        rows.append([row.get(c, "") for c in range(columns)])
        above = {c: (t, n - 1) for c, (t, n) in above.items() if n > 1} | below
        below, row, col = {}, {}, 0

    for text, spans_cols, spans_rows in cells:
        skip_covered()
        if col >= columns:
            end_row()
            skip_covered()
        for c in range(col, min(col + spans_cols, columns)):
            row[c] = text
            if spans_rows > 1:
                below[c] = (text, spans_rows - 1)
        col += spans_cols
        skip_covered()
        if col >= columns:
            end_row()
    if row:
        end_row()
    return rows


def _delimited_rows(body: Sequence[str], delimiter: str) -> list[list[str]]:
    """A CSV, TSV or DSV table's rows; a row ``csv`` cannot read is split on the delimiter."""
    lines = [s for s in body if s.strip()]
    try:
        return [list(row) for row in csv.reader(lines, delimiter=delimiter)]
    except csv.Error:  # a field past csv's size limit
        return [s.split(delimiter) for s in lines]


def _columns(options: str) -> int:
    match = re.search(r"cols\s*=\s*\"?([^\"\]]*)\"?", options)
    if match is None:
        return 0
    total = 0
    for spec in re.split(r"[,;]", match[1]):
        if spec.strip():
            times = re.match(r"\s*(\d{1,3})\*", spec)
            total += int(times[1]) if times else 1
    return min(total, 1000)


# -- inline ---------------------------------------------------------------------

_REFERENCE = re.compile(r"(?<!\\)\{([\w][\w-]*)\}")
_PASS = re.compile(r"pass:[a-z,]*\[(.{0,500}?)\]|\+\+\+(.{1,300}?)\+\+\+|\$\$(.{1,300}?)\$\$"
                   r"|(?<![\w+])\+(\S(?:.{0,300}?\S)??)\+(?![\w+])")
_MACRO = re.compile(r"\b(linkgit|link|mailto|xref|image|icon|kbd|btn|menu|footnote|footnoteref"
                    r"|indexterm2?|anchor|stem|latexmath|asciimath):{1,2}([^\[\s]{0,300})"
                    r"\[([^\[\]]{0,500})\]")
_URL = re.compile(r"\b((?:https?|ftp|irc)://[^\s\[\]<>]{1,300})\[([^\[\]]{0,300})\]")
_ATTRIBUTE_LINK = re.compile(r"\{[\w-]{1,60}\}[^\s\[\]<>]{0,300}\[([^\[\]]{0,300})\]")
"""A link whose target starts with an attribute the page does not define (Antora sets
``{url-api}`` for the whole site): its text."""
_CROSS_REFERENCE = re.compile(r"<<([^,<>\s]{1,200})(?:,\s*(.{1,200}?))?>>(?!>)")
_INLINE_ANCHOR = re.compile(r"\[\[\[?[^\[\]]{0,200}\]\]\]?|\(\(\(.{0,300}?\)\)\)")
_INDEX_TERM = re.compile(r"\(\((.{1,300}?)\)\)")
_ROLE = re.compile(r"\[[.#][\w.#-]{0,100}\](?=[#*_`])|\[[\w.-]{1,100}\](?=#)")
_CURVED = re.compile(r"(?<!\w)([\"'])`(\S(?:.{0,300}?\S)??)`\1(?!\w)")
_APOSTROPHE = re.compile(r"(?<=\w)`'")
"""A curved apostrophe after a word ("users`' needs")."""
_OLD_QUOTES = re.compile(r"``([^`'\n]{1,300}?)''|(?<![\w`])`([^`'\n]{1,300}?)'(?![\w'])")
"""AsciiDoc.py's quotes, which Git's pages still write: ````double''`` and ```single'``."""
_MARKS = tuple(re.compile(p) for p in (
    r"\*\*(.{1,300}?)\*\*", r"__(.{1,300}?)__", r"``(.{1,300}?)``", r"##(.{1,300}?)##",
    r"(?<![\w*\\])\*(\S(?:.{0,300}?\S)??)\*(?![\w*])",
    r"(?<![\w_\\])_(\S(?:.{0,300}?\S)??)_(?![\w_])",
    r"(?<![\w`\\])`(\S(?:.{0,300}?\S)??)`(?![\w`])",
    r"(?<![\w#\\])#(\S(?:.{0,300}?\S)??)#(?![\w#])",
    r"\^([^\s^]{1,100}?)\^", r"~([^\s~]{1,100}?)~"))
"""Marked spans, unconstrained (doubled) first; each at most a few hundred characters: a
bound on the search for its closing mark."""
_ESCAPE = re.compile(r"\\([^\w\s])")
_CHARACTER_REFERENCE = re.compile(r"&(?:#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[A-Za-z]{2,8});")
_KEPT = re.compile("\ue000(\\d+)\ue001")


def inline_text(text: str, attributes: dict[str, str] | None = None) -> str:
    """``text`` as a reader sees it: attributes substituted, marks, macros and anchors
    gone, links and cross references as their text (:mod:`abstain.ingest.asciidoc`)."""
    if attributes:
        text = _REFERENCE.sub(lambda m: attributes.get(m[1].lower(), m[0]), text)
    kept: list[str] = []

    def keep(value: str) -> str:  # a passthrough's text is not marked up further
        kept.append(value)
        return f"\ue000{len(kept) - 1}\ue001"

    text = _PASS.sub(lambda m: keep(next(g for g in m.groups() if g is not None)), text)
    text = _MACRO.sub(_macro, text)
    text = _URL.sub(lambda m: _label(m[2]) or m[1], text)
    text = _ATTRIBUTE_LINK.sub(lambda m: _label(m[1]), text)
    text = _CROSS_REFERENCE.sub(lambda m: (m[2] or _humanized(m[1])).strip(), text)
    text = _INDEX_TERM.sub(lambda m: m[1], _INLINE_ANCHOR.sub("", text))
    text = _ROLE.sub("", text)
    text = _APOSTROPHE.sub("'", _CURVED.sub(lambda m: f"{m[1]}{m[2]}{m[1]}", text))
    text = _OLD_QUOTES.sub(lambda m: f'"{m[1]}"' if m[1] is not None else f"'{m[2]}'", text)
    for mark in _MARKS:
        text = mark.sub(lambda m: m[1], text)
    text = _ESCAPE.sub(lambda m: m[1], text)
    text = _CHARACTER_REFERENCE.sub(lambda m: html.unescape(m[0]), text)
    text = _KEPT.sub(lambda m: kept[int(m[1])] if int(m[1]) < len(kept) else "", text)
    return one_line(text)


def _label(said: str) -> str:
    """A link's text: the brackets' whole text, or their first attribute when they hold
    named ones (``text, window=_blank``); without the ``^`` that opens a new window."""
    if "=" in said:
        said = said.split(",")[0]
    return said.strip().strip('"').removesuffix("^")


def _macro(match: re.Match[str]) -> str:
    name, target, said = match[1], match[2], match[3]
    label = _label(said)
    if name in ("link", "mailto"):
        return label or target
    if name == "linkgit":  # Git's man page reference: git-commit(1)
        return f"{target}({said})"
    if name == "xref":
        return label or _humanized(target.split("#")[-1].rsplit(".", 1)[0])
    if name in ("kbd", "btn", "indexterm2", "stem", "latexmath", "asciimath"):
        return said
    if name == "menu":
        return " > ".join([target, *(p.strip() for p in said.split(">") if p.strip())])
    if name in ("footnote", "footnoteref"):
        return f" ({said})" if said.strip() else ""
    return ""  # an image, an icon, an anchor, an index term


def _humanized(identifier: str) -> str:
    """A bare cross reference's target as words: ``_default_remote`` is "default remote"."""
    return " ".join(identifier.replace("_", " ").replace("-", " ").split())
