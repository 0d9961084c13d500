"""AsciiDoc (``.adoc``, ``.asciidoc``) into typed blocks: Git's, Spring's or Quarkus' docs.

Written here, the one format without a well-kept library: asciidoctrine (Apache-2.0) reads
about 1.3 KB a second (104 s for Git LFS's 133 KB of man pages) and asciidoc-py is
GPL and runs shell filters. It reads what documentation uses of Asciidoctor's syntax:

    = Title, == Section … ====== (and Markdown's #)   headings
    :name: value, {name}                             attributes, substituted in text
    * / ** / - items, . / 1. ordered, term:: text     list items, definitions (several
                                                       terms over one text: "-I, --include")
    ----, ...., [source] / [literal] paragraphs      code
    ====, ****, ____, --                              example, sidebar, quote, open blocks:
                                                       their text read as the page's
    [NOTE] ====, NOTE: text, .Title                   admonitions, block titles ("Title:")
    |===, ,===, :===                                 tables (cols, %header, an implicit
                                                       header row)
    ////, //, ++++, include::, ifdef::, toc::[]      left out (comments, raw HTML kept as
                                                       its text, directives)

Inline: *bold*, _emphasis_, `code`, +passthrough+ and #marks# lose their marks;
``link:url[text]``, ``https://…[text]``, ``xref:…[text]`` and ``<<id,text>>`` read as their
text (a bare ``<<_default_remote>>`` as "default remote"); ``kbd:[…]``, ``btn:[…]``,
``menu:File[Save]`` as what they name; a footnote in parentheses; images, anchors and index
terms leave nothing.
"""

from __future__ import annotations

import csv
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

_HEADING = re.compile(r"(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*")
_DELIMITER = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--)[ \t]*")
_ATTRIBUTE_ENTRY = re.compile(r":(!?)([\w][\w-]*)(!?):(?:[ \t]+(.*))?")
_DIRECTIVE = re.compile(r"(?:include|ifdef|ifndef|ifeval|endif|toc)::\S*\[.*\][ \t]*")
_ANCHOR_LINE = re.compile(r"\[\[[^\]]*\]\][ \t]*")
_BLOCK_ATTRIBUTES = re.compile(r"\[([^\[\]]*)\][ \t]*")
_BLOCK_TITLE = re.compile(r"\.([^.\s\d].*)")
_ADMONITION = re.compile(r"(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(.*)")
_ITEM = re.compile(r"[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,3}\.)[ \t]+(?:\[[ xX*]\][ \t]+)?(\S.*)")
_TERM = re.compile(r"[ \t]*(?P<term>\S.*?)(?P<sep>:{2,4}|;;)(?:[ \t]+(?P<text>.*))?")
_TABLE = re.compile(r"([|,:!])===[ \t]*")
_CONTINUATION = "+"
_ADMONITIONS = frozenset({"note", "tip", "important", "warning", "caution"})
_CODE_STYLES = frozenset({"source", "listing", "literal"})
_BUILT_IN = {"empty": "", "blank": "", "sp": " ", "nbsp": " ", "zwsp": "", "plus": "+",
             "startsb": "[", "endsb": "]", "vbar": "|", "caret": "^", "asterisk": "*",
             "tilde": "~", "apos": "'", "backslash": "\\", "backtick": "`", "amp": "&",
             "lt": "<", "gt": ">", "deg": "°", "two-colons": "::", "two-semicolons": ";;",
             "cpp": "C++", "pp": "++", "quot": '"'}


def parse_asciidoc(text: str, *, fallback_title: str) -> ParsedDocument:
    """The document's sections; its title is the ``= Title`` line (or the ``:doctitle:``
    attribute), else the first heading, else ``fallback_title``."""
    attributes: dict[str, str] = dict(_BUILT_IN)
    lines = _without_comments(text.replace("\r\n", "\n").replace("\t", "    ").split("\n"))
    builder = SectionBuilder()
    title = _Reader(attributes, builder).read(lines, 0)
    return ParsedDocument(title=attributes.get("doctitle") or title or builder.first_heading
                          or fallback_title, sections=builder.build())


def _without_comments(lines: list[str]) -> list[str]:
    """``lines`` without comment blocks (``////``), comment lines (``// …``) and
    preprocessor directives (``ifdef::…[]``: what they guard is kept); a code block's lines
    are kept as they stand."""
    out: list[str] = []
    fence: str | None = None  # the open comment, listing, literal or passthrough block's
    for line in lines:
        stripped = line.strip()
        if fence is not None:
            comment = fence.startswith("/")
            if stripped == fence:
                fence = None
            if not comment:
                out.append(line)
            continue
        if re.fullmatch(r"/{4,}|-{4,}|\.{4,}|\+{4,}", stripped):
            fence = stripped
            if not stripped.startswith("/"):
                out.append(line)
            continue
        if ((stripped.startswith("//") and not stripped.startswith("///"))
                or _DIRECTIVE.fullmatch(stripped)):
            continue
        out.append(line)
    return out


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
        style = ""  # the pending block attributes' style ("source", "NOTE", "quote"), lowercase
        options = ""  # the pending block attributes, whole
        caption = ""  # the pending block title (".Title")
        lead = ""  # the paragraph before a list, its lead-in
        ordered: dict[int, int] = {}  # the next number of each ordered list level
        i = 0
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if not stripped:
                i += 1
                continue
            entry = _ATTRIBUTE_ENTRY.fullmatch(stripped)
            if entry is not None:
                i = self._attribute(lines, i, entry)
                continue
            if _ANCHOR_LINE.fullmatch(stripped):
                i += 1
                continue
            attributes = _BLOCK_ATTRIBUTES.fullmatch(stripped)
            if attributes is not None and not stripped.startswith("[["):
                options = attributes[1]
                style = options.split(",")[0].strip().lstrip("%#.").lower()
                i += 1
                continue
            block_title = _BLOCK_TITLE.fullmatch(stripped)
            if block_title is not None and not line.startswith((" ", "\t")):
                caption = self.inline(block_title[1])
                i += 1
                continue
            heading = _HEADING.fullmatch(line)
            if heading is not None:
                level = len(heading[1])
                text = self.inline(heading[2])
                i += 1
                if level == 1 and title is None and depth == 0 and not self.builder.first_heading:
                    title = text
                    while i < len(lines) and lines[i].strip():  # the header: author, revision
                        entry = _ATTRIBUTE_ENTRY.fullmatch(lines[i].strip())
                        i = self._attribute(lines, i, entry) if entry else i + 1
                self.builder.heading(level, text)
                style = options = caption = lead = ""
                ordered.clear()
                continue
            delimiter = _DELIMITER.fullmatch(stripped)
            table = _TABLE.fullmatch(stripped)
            if delimiter is not None or table is not None:
                fence = stripped
                end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence),
                           len(lines))
                body = lines[i + 1:end]
                if caption:
                    self.builder.add(paragraph(f"{caption}:"))
                if table is not None:
                    self.builder.extend(_table(body, table[1], options, self.attributes))
                else:
                    self._delimited(fence, body, style, depth)
                style = options = caption = lead = ""
                i = end + 1
                continue
            item = _ITEM.fullmatch(line)
            term = _TERM.fullmatch(line) if item is None else None
            if item is not None or term is not None:
                if caption:
                    lead = f"{caption}:"
                    self.builder.add(paragraph(lead))
                i = self._list(lines, i, lead, ordered, depth)
                style = options = caption = ""
                continue
            # a paragraph: to a blank line, a block's start or a list item
            end = i + 1
            while end < len(lines) and lines[end].strip() and not _starts_block(lines[end]):
                end += 1
            said = lines[i:end]
            if caption:
                self.builder.add(paragraph(f"{caption}:"))
            if style in _CODE_STYLES or (not style and line.startswith(" ")):
                self.builder.add(code("\n".join(_dedent(said))))
            else:
                text = self.inline(_joined(said))
                admonition = _ADMONITION.fullmatch(text)
                if admonition is not None:  # "NOTE: …": the label says nothing
                    text = admonition[2]
                block = paragraph(text)
                self.builder.add(block)
                lead = block.text if block is not None else ""
            ordered.clear()
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
            self.attributes[name] = self.inline(value)
        return i + 1

    def _delimited(self, fence: str, body: Sequence[str], style: str, depth: int) -> None:
        """A delimited block: code for ``----`` and ``....`` (and a ``[source]`` open block);
        raw HTML (``++++``) as its text; an example, sidebar, quote or open block (``====``,
        ``****``, ``____``, ``--``) read as the page, an admonition's (``[NOTE]``) too; a
        verse as one paragraph."""
        if (fence[0] in "-." and fence != "--") or style in _CODE_STYLES:
            self.builder.add(code("\n".join(body)))
        elif fence[0] == "+":
            parsed = parse_html("\n".join(body), fallback_title="")
            self.builder.extend(b for s in parsed.sections for b in s.blocks)
        elif style == "verse" or depth >= NESTING:
            self.builder.add(paragraph(self.inline(_joined(body))))
        else:
            _Reader(self.attributes, _Nested(self.builder)).read(body, depth + 1)

    def _list(self, lines: Sequence[str], i: int, lead: str, ordered: dict[int, int],
              depth: int) -> int:
        """The list items and definitions from line ``i``: an item's text goes on to a blank
        line or the next item; a term without text (``-I <paths>::``) joins the next one
        ("-I <paths>, --include=<paths>"); a definition's text may start on its next line.
        A ``+`` line attaches the block after it to the item: it is read after the item."""
        terms: list[str] = []
        while i < len(lines):
            line = lines[i]
            item = _ITEM.fullmatch(line)
            term = _TERM.fullmatch(line) if item is None else None
            if item is None and term is None:
                if not line.strip() and i + 1 < len(lines) and _continues_list(lines[i + 1]):
                    i += 1
                    continue
                break
            end = i + 1
            while (end < len(lines) and lines[end].strip() and lines[end].strip() != _CONTINUATION
                   and not _ITEM.fullmatch(lines[end]) and not _TERM.fullmatch(lines[end])
                   and not _starts_block(lines[end])):
                end += 1
            said = " ".join([(item[2] if item else term["text"] if term else "") or "",
                             _joined(lines[i + 1:end])])
            own = said
            i = end
            while i < len(lines) and lines[i].strip() == _CONTINUATION:  # "+" and a paragraph:
                after = _attached_paragraph(lines, i + 1)  # the item's text goes on
                if after is None:
                    break
                said = ("" if said.rstrip().endswith((".", ":", ";", "!", "?")) else ":").join(
                    [said.rstrip(), " " + _joined(lines[i + 1:after])])
                i = after
            if item is not None:
                marker = item[1]
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
                if said != own and block is not None and block.kind is not BlockKind.DEFINITION:
                    block = list_item(self.inline(said), lead, marker)
                elif said != own:
                    block = item_block(self.inline(said), lead, marker)
                self.builder.add(block)
            elif term is not None:
                terms.append(self.inline(term["term"]))
                if said.strip():
                    self.builder.add(definition(", ".join(terms), self.inline(said)))
                    terms = []
            while i < len(lines) and lines[i].strip() == _CONTINUATION:
                i = self._attached(lines, i + 1, depth)
        if terms:
            self.builder.add(definition(", ".join(terms), ""))
        return i

    def _attached(self, lines: Sequence[str], i: int, depth: int) -> int:
        """A block a list continuation (``+``) attaches — delimited, or a literal paragraph —
        read after its item; the index after it."""
        while i < len(lines) and _BLOCK_ATTRIBUTES.fullmatch(lines[i].strip()):
            i += 1
        if i >= len(lines):
            return i
        fence = lines[i].strip()
        if _DELIMITER.fullmatch(fence) or _TABLE.fullmatch(fence):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence),
                       len(lines))
            self.read(lines[i:end + 1], depth)
            return end + 1
        end = _paragraph_end(lines, i)
        said = lines[i:end]
        if said and said[0].startswith(" "):
            self.builder.add(code("\n".join(_dedent(said))))
        else:
            self.builder.add(paragraph(self.inline(_joined(said))))
        return end


class _Nested(SectionBuilder):
    """A compound block's builder: its blocks go to the page's section; a heading inside it
    (a discrete one) is a paragraph."""

    def __init__(self, outer: SectionBuilder) -> None:
        super().__init__()
        self.outer = outer

    def heading(self, level: int, title: str) -> None:
        self.outer.add(paragraph(title))

    def add(self, block: Block | None) -> None:
        self.outer.add(block)


def _starts_block(line: str) -> bool:
    stripped = line.strip()
    return bool(_DELIMITER.fullmatch(stripped) or _TABLE.fullmatch(stripped)
                or _HEADING.fullmatch(line) or _ANCHOR_LINE.fullmatch(stripped)
                or (_BLOCK_ATTRIBUTES.fullmatch(stripped) and not stripped.startswith("[[")))


def _paragraph_end(lines: Sequence[str], i: int) -> int:
    """Where the paragraph at ``i`` inside a list ends: a blank line, a ``+``, an item or a
    block's start."""
    end = i + 1
    while (end < len(lines) and lines[end].strip() and lines[end].strip() != _CONTINUATION
           and not _continues_list(lines[end]) and not _starts_block(lines[end])):
        end += 1
    return end


def _attached_paragraph(lines: Sequence[str], i: int) -> int | None:
    """Where a paragraph a list continuation attaches at ``i`` ends; None when a block, a
    literal paragraph or nothing is attached there."""
    if i >= len(lines) or not lines[i].strip() or lines[i].startswith(" ") or _starts_block(
            lines[i]) or _continues_list(lines[i]):
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


def _table(body: Sequence[str], separator: str, options: str,
           attributes: dict[str, str]) -> list[Block | None]:
    """A table's rows, each with the header row's names (``%header``, ``options="header"``,
    or a first line of cells followed by a blank line). Columns: ``cols="1,2a,3"`` (or
    ``cols="3*"``), else the first line's cells."""
    if separator == "|" or separator == "!":
        cells, first_line, implicit = _cells(body, separator)
    else:
        rows = list(csv.reader([s for s in body if s.strip()],
                               delimiter="," if separator == "," else ":"))
        cells = [c for row in rows for c in row]
        first_line = len(rows[0]) if rows else 0
        implicit = False
    columns = _columns(options) or first_line
    if not columns or not cells:
        return []
    cells = [inline_text(c, attributes) for c in cells]
    rows = [cells[at:at + columns] for at in range(0, len(cells), columns)]
    header: list[str] = []
    if "header" in options or (implicit and "noheader" not in options):
        header, rows = rows[0], rows[1:]
    return [table_row(header, row) for row in rows]


def _cells(body: Sequence[str], separator: str) -> tuple[list[str], int, bool]:
    """The cells of a ``|===`` table in order; how many the first line holds; whether that
    line stands alone before a blank line (an implicit header row)."""
    split = re.compile(r"(?:^|(?<=\s))(?:\d*(?:\.\d+)?[+*]?[<^>]?(?:\.[<^>])?[adehlmsv]?)"
                       + re.escape(separator))
    cells: list[str] = []
    first_line = 0
    implicit = False
    seen_line = False
    for at, line in enumerate(body):
        if not line.strip():
            continue
        parts = split.split(line.replace(f"\\{separator}", "\0"))
        if len(parts) > 1:
            if parts[0].strip() and cells:
                cells[-1] += " " + parts[0].strip()
            new = [p.replace("\0", separator).strip().removesuffix(" +") for p in parts[1:]]
            cells.extend(new)
            if not seen_line:
                first_line = len(new)
                implicit = at + 1 < len(body) and not body[at + 1].strip()
                seen_line = True
        elif cells:
            cells[-1] += " " + line.strip().removesuffix(" +").replace("\0", separator)
    return cells, first_line, implicit


def _columns(options: str) -> int:
    match = re.search(r"cols\s*=\s*\"?([^\"\]]*)\"?", options)
    if match is None:
        return 0
    spec = match[1].strip()
    multiplied = re.fullmatch(r"(\d+)\*.*", spec)
    if multiplied:
        return int(multiplied[1])
    return len([c for c in re.split(r"[,;]", spec) if c.strip()])


# -- inline ---------------------------------------------------------------------

_REFERENCE = re.compile(r"(?<!\\)\{([\w][\w-]*)\}")
_PASS = re.compile(r"pass:[a-z,]*\[(.{0,500}?)\]|\+\+\+(.{1,300}?)\+\+\+"
                   r"|(?<![\w+])\+(\S(?:.{0,300}?\S)?)\+(?![\w+])")
_MACRO = re.compile(r"\b(link|mailto|xref|image|icon|kbd|btn|menu|footnote|footnoteref"
                    r"|indexterm2?|anchor|stem|latexmath|asciimath):{1,2}([^\[\s]{0,300})"
                    r"\[([^\[\]]{0,500})\]")
_URL = re.compile(r"\b((?:https?|ftp|irc)://[^\s\[\]<>]{1,300})\[([^\[\]]{0,300})\]")
_ATTRIBUTE_LINK = re.compile(r"\{[\w-]{1,60}\}[^\s\[\]<>]{0,300}\[([^\[\]]{0,300})\]")
"""A link whose target starts with an attribute the page does not define (Antora sets
``{url-api}`` for the whole site): its text."""
_CROSS_REFERENCE = re.compile(r"<<([^,<>]{1,200})(?:,\s*([^<>]{1,200}))?>>")
_INLINE_ANCHOR = re.compile(r"\[\[\[?[^\[\]]{0,200}\]\]\]?|\(\(\(.{0,300}?\)\)\)")
_INDEX_TERM = re.compile(r"\(\((.{1,300}?)\)\)")
_ROLE = re.compile(r"\[[.#][\w.#-]{0,100}\](?=[#*_`])")
_MARKS = tuple(re.compile(p) for p in (
    r"\*\*(.{1,300}?)\*\*", r"__(.{1,300}?)__", r"``(.{1,300}?)``", r"##(.{1,300}?)##",
    r"(?<![\w*])\*(\S(?:.{0,300}?\S)?)\*(?![\w*])",
    r"(?<![\w_])_(\S(?:.{0,300}?\S)?)_(?![\w_])",
    r"(?<![\w`])`(\S(?:.{0,300}?\S)?)`(?![\w`])",
    r"(?<![\w#])#(\S(?:.{0,300}?\S)?)#(?![\w#])",
    r"\^([^\s^]{1,100}?)\^", r"~([^\s~]{1,100}?)~"))
"""Marked spans, unconstrained (doubled) first; each at most a few hundred characters: a
bound on the search for its closing mark."""
_HARD_BREAK = re.compile(r" \+$", re.MULTILINE)


def inline_text(text: str, attributes: dict[str, str] | None = None) -> str:
    """``text`` as a reader sees it: attributes substituted, marks, macros and anchors
    gone, links and cross references as their text (:mod:`abstain.ingest.asciidoc`)."""
    if attributes:
        text = _REFERENCE.sub(lambda m: attributes.get(m[1].lower(), m[0]), text)
    kept: list[str] = []

    def keep(value: str) -> str:  # a passthrough's text is not marked up further
        kept.append(value)
        return f"\0{len(kept) - 1}\0"

    text = _PASS.sub(lambda m: keep(next(g for g in m.groups() if g is not None)), text)
    text = _MACRO.sub(_macro, text)
    text = _URL.sub(lambda m: _label(m[2]) or m[1], text)
    text = _ATTRIBUTE_LINK.sub(lambda m: _label(m[1]), text)
    text = _CROSS_REFERENCE.sub(lambda m: (m[2] or _humanized(m[1])).strip(), text)
    text = _INDEX_TERM.sub(lambda m: m[1], _INLINE_ANCHOR.sub("", text))
    text = _ROLE.sub("", text)
    for mark in _MARKS:
        text = mark.sub(lambda m: m[1], text)
    text = _HARD_BREAK.sub("", text).replace("\\*", "*").replace("\\_", "_")
    text = re.sub(r"\0(\d+)\0", lambda m: kept[int(m[1])], text)
    return one_line(text)


def _label(said: str) -> str:
    """A link's text: its first attribute, without the ``^`` that opens a new window."""
    return said.split(",")[0].strip().strip('"').removesuffix("^")


def _macro(match: re.Match[str]) -> str:
    name, target, said = match[1], match[2], match[3]
    label = _label(said)
    if name in ("link", "mailto"):
        return label or target
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
