"""Markdown (markdown-it-py) and HTML (BeautifulSoup) into typed blocks.

Markdown headings of both syntaxes (ATX ``##`` and setext underlines) and HTML
``h1``–``h6`` open sections; lists, tables, definition lists and code become list
items (with the paragraph that introduces the list), table rows with their header,
definitions and code blocks (:mod:`abstain.ingest.blocks`).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from abstain.ingest.blocks import (
    Block,
    BlockKind,
    ParsedDocument,
    SectionBuilder,
    code,
    definition,
    first_row_heads,
    is_bold,
    list_item,
    one_line,
    paragraph,
    table_row,
)
from abstain.ingest.directives import (
    CODE_DIRECTIVES,
    DROPPED_DIRECTIVES,
    TEXT_DIRECTIVES,
    VERSION_DIRECTIVES,
    describes,
)
from abstain.ingest.frontmatter import split_front_matter
from abstain.ingest.visibility import DropKind, Dropped, dropped, hidden_reason

_TERM = re.compile(r"(?P<term>[^:]{1,60}?):\s+(?P<text>\S.*)")
"""``term: text`` in a list item: a definition when the term is a few words."""


def item_block(text: str, lead: str, marker: str = "-") -> Block | None:
    """A list item, or a definition when it reads ``term: text``."""
    match = _TERM.fullmatch(one_line(text))
    if match and len(match["term"].split()) <= 5:
        block = definition(match["term"], match["text"])
        return Block(block.kind, block.text, one_line(lead)) if block else None
    return list_item(text, lead, marker)


MAX_NESTING = 200
"""Block nesting markdown-it follows (its CommonMark preset: 20, about ten list levels, and
what lies deeper was dropped without a word); still a bound on pathological input."""


def parse_markdown(text: str, *, fallback_title: str, source: str | None = None
                   ) -> ParsedDocument:
    meta, body = split_front_matter(text, source=source or fallback_title)
    builder = SectionBuilder()
    hidden: list[Dropped] = []
    _read_markdown(_markdown_tokens(body), builder, hidden, 0)
    title = str(meta.get("title") or builder.first_heading or fallback_title)
    return ParsedDocument(title=title, sections=builder.build(), metadata=meta,
                          dropped=tuple(hidden))


def _markdown_tokens(body: str) -> list[Any]:
    """Markdown ``body`` (no front matter) as markdown-it's tokens, after the passes that
    make what other dialects write (MDX, Hugo shortcodes, MyST roles, indented admonitions)
    CommonMark."""
    return list(_parser().parse(
        _open_indented_blocks(_closed_html_lines_apart(_hugo_shortcodes(_myst_roles(
            _without_mdx_code(body)))))))


@functools.cache
def _parser(*, plain: bool = False) -> Any:
    """markdown-it, configured once and reused by every parse (a page's directives are each
    parsed too): CommonMark with pipe tables, definition lists, ``:::`` fences and footnotes
    for a page; CommonMark alone (``plain``) for a line of it."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.colon_fence import colon_fence_plugin
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin

    if plain:
        return MarkdownIt("commonmark")
    parser = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")
    return parser.use(deflist_plugin).use(colon_fence_plugin).use(
        footnote_plugin, inline=False, move_to_end=False)  # notes where written; ^[a-z] no note


def _read_markdown(tokens: list[Any], builder: SectionBuilder, hidden: list[Dropped],
                   depth: int, floor: int = 0) -> None:
    """The headings and blocks of Markdown's ``tokens``, into ``builder``; ``depth``: how
    many directives deep they are (a directive's text is Markdown too, read up to
    :data:`DIRECTIVE_DEPTH` deep); ``floor``: the level of the directive's title they are
    under, which their headings go below."""
    last_paragraph = ""
    leads: list[str] = []  # the lead of each open list
    ordered: list[int] = []  # 0 for a bullet list, else the next number
    item: list[str] | None = None
    header: list[str] = []
    row: list[str] = []
    in_head = False
    term = ""  # a definition list's term (MyST, Pandoc: "term" / ": definition")
    said: list[str] | None = None  # its definition's paragraphs, while in one

    def end_item() -> None:
        nonlocal item
        if item:
            marker = f"{ordered[-1]}." if ordered and ordered[-1] else "-"
            builder.add(item_block(" ".join(item), leads[-1] if leads else "", marker))
            if ordered and ordered[-1]:
                ordered[-1] += 1
        item = None

    i = 0
    while i < len(tokens):
        tok = tokens[i]
        kind = tok.type
        if kind == "heading_open":
            end_item()
            inline = tokens[i + 1]
            text = _inline_text(inline)  # an attribute list is text, never a code span's
            builder.heading(max(int(tok.tag[1:]), floor + 1),
                            heading_text(text) if inline.children
                            and inline.children[-1].type == "text" else text)
            last_paragraph = ""
            i += 3
            continue
        if kind in ("bullet_list_open", "ordered_list_open"):
            end_item()
            leads.append(last_paragraph)
            ordered.append(int(tok.attrs.get("start") or 1) if kind == "ordered_list_open" else 0)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            end_item()
            leads.pop()
            ordered.pop()
            last_paragraph = ""
        elif kind == "list_item_open":
            end_item()
            item = []
        elif kind == "list_item_close":
            end_item()
        elif kind == "inline" and tokens[i - 1].type == "dt_open":
            end_item()
            term = _inline_text(tok)
        elif kind == "dd_open":
            said = []
        elif kind == "dd_close":
            builder.add(definition(term, " ".join(said or [])))
            said = None
        elif kind == "inline" and tokens[i - 1].type == "paragraph_open" and said is not None:
            said.append(_inline_text(tok))
        elif kind == "colon_fence" or (kind == "fence" and _a_directive(tok.info)):
            end_item()  # ":::{note}", ":::tip" (Docusaurus), "```{warning}": text, not code
            _myst_directive(tok.info, tok.content, depth, builder, hidden)
        elif kind == "inline" and tokens[i - 1].type == "paragraph_open":
            content = _inline_text(tok)
            if item is not None:
                item.append(content)
                last_paragraph = content
            else:
                builder.add(paragraph(content))
                last_paragraph = content
        elif kind in ("fence", "code_block"):
            end_item()
            builder.add(code(tok.content))
        elif kind == "html_block":  # an HTML table, definition list … in the Markdown
            end_item()
            _html_blocks(_visible_soup(tok.content, hidden), builder)
        elif kind == "thead_open":
            in_head, header = True, []
        elif kind == "thead_close":
            in_head = False
        elif kind == "tr_open":
            row = []
        elif kind == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(_inline_text(tok))
        elif kind == "tr_close":
            if in_head:
                header = row
            else:
                builder.add(table_row(header, row))
        i += 1
    end_item()


_MYST_DIRECTIVE = re.compile(r"\s*\{?([\w:.-]*)\}?\s*(.*)")
"""A directive's fence info: ```` ```{note} ````, ``:::{deprecated} 26.1.0``, ``:::tip``."""


def _a_directive(info: str) -> bool:
    """Whether a backtick fence's info names a MyST directive ```` ```{note} ````."""
    match = re.match(r"\s*\{([\w:.-]+)\}", info)
    return match is not None and match[1].lower() in (
        TEXT_DIRECTIVES | CODE_DIRECTIVES | DROPPED_DIRECTIVES | set(VERSION_DIRECTIVES))


DIRECTIVE_DEPTH = 8
"""Directives nested deeper than this are read as plain text (a bound on hostile input)."""


def _myst_directive(info: str, content: str, depth: int, builder: SectionBuilder,
                    hidden: list[Dropped]) -> None:
    """The blocks a MyST directive says, into ``builder``, as its reST twin reads: code for a
    code directive, "Deprecated since version 26.1.0: …" for a version one, nothing for a
    table of contents or an image, else its title (an ``admonition``'s argument, read as
    Markdown unless it is an object's signature) and its text read as Markdown. Headings in
    it open sections of the page: a wrapper's (a VitePress ``::: v-pre`` around a whole
    changelog) as written, a note's, tab's or card's below the heading it is in, under its
    title when it has one (``::: details Fish``), and never the page's title. After it the
    page goes on under the heading it was in."""
    match = _MYST_DIRECTIVE.match(info)
    assert match is not None  # every part of the pattern is optional
    name, argument = match[1].lower(), match[2].strip()
    if argument.startswith("[") and argument.endswith("]"):
        argument = argument[1:-1].strip()  # Docusaurus 3's ":::info[Dry runs]"
    if not describes(name):  # "With `go install`", "Binary - **Easy**"; not "__init__(self)"
        argument = _inline_markdown(argument)
    body = _without_options(content)
    if name in DROPPED_DIRECTIVES:
        return
    if name in CODE_DIRECTIVES:
        builder.add(code(body))
        return
    if name in VERSION_DIRECTIVES:
        inner = SectionBuilder()
        if depth < DIRECTIVE_DEPTH:
            _read_markdown(_markdown_tokens(body), inner, hidden, depth + 1)
        else:
            inner.add(paragraph(one_line(body)))
        blocks = [b for section in inner.build() for b in section.blocks
                  if b.kind is not BlockKind.HEADING]
        version, _, rest = argument.partition(" ")
        said = " ".join(b.text for b in blocks if b.kind is BlockKind.PARAGRAPH)
        text = " ".join(t for t in (rest, said) if t)
        builder.add(paragraph(f"{VERSION_DIRECTIVES[name]} {version}"
                              + (f": {text}" if text else ".")))
        builder.extend(b for b in blocks if b.kind is not BlockKind.PARAGRAPH)
        return
    if depth >= DIRECTIVE_DEPTH:
        builder.extend((paragraph(f"{argument}:") if argument else None,
                        paragraph(one_line(body))))
        return
    tokens = _markdown_tokens(body)
    around, title = builder.path, builder.first_heading
    wrapper = name not in TEXT_DIRECTIVES and not describes(name)
    if not any(t.type == "heading_open" for t in tokens):
        builder.add(paragraph(f"{argument}:") if argument else None)
        _read_markdown(tokens, builder, hidden, depth + 1)
    else:
        floor = 0 if wrapper and not argument else around[-1][0] if around else 0
        if argument:  # "::: details Fish" holding "##### Add shims directory to path"
            floor += 1
            builder.heading(floor, argument)
        _read_markdown(tokens, builder, hidden, depth + 1, floor)
        if not wrapper:
            builder.first_heading = title
    builder.reopen(around)  # what follows it is the page's again (an HTML <h3> in it too)


_YAML_OPTIONS = re.compile(r"\s*---[ \t]*\n(?:.*\n)*?---[ \t]*(?:\n|$)")
"""A MyST directive's options written as YAML between ``---`` lines at its start."""


def _without_options(content: str) -> str:
    """A directive's text without its options: ``:class: tip`` lines, or a YAML block."""
    options = _YAML_OPTIONS.match(content)
    body = content[options.end():] if options is not None else content
    return "\n".join(line for line in body.split("\n") if not re.match(r"\s*:[\w-]+:", line))


_INDENTED_BLOCK = re.compile(
    r"(?P<indent>[ \t]*)(?:(?:!!!|\?\?\?\+?)[ \t]*(?P<type>[\w-]+(?:[ \t]+[\w-]+)*)?"
    r"(?:[ \t]+\"(?P<title>[^\"]*)\")?|===\+?[ \t]+\"(?P<tab>[^\"]*)\")[ \t]*")
"""An admonition's or a content tab's first line (a bare ``===`` is a setext underline); its
type may be several words before a title (``!!! tab examples "pyproject.toml"``, a tab in an
older syntax; without a title such a line is a sentence)."""
_FENCE = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")


_CODE_SPAN = r"(?P<span>(?P<ticks>`+)[^`][\s\S]{0,2000}?(?<!`)(?P=ticks)(?!`))"
"""A code span (a paragraph's, so it may go on to the next line), as a pattern's group."""


class Fences:
    """Which lines of a Markdown page are fenced code, fed one line at a time. As in
    CommonMark, a fence closes only on the character it opened with, at least as long, with
    nothing after it and indented less than four spaces past the opening: a ```` ```` ````
    block showing a ```` ``` ```` example, or a ```` ``` ```` block showing a content tab
    whose code is indented under it, stays code to its end. Every pass over a page's raw
    lines asks it."""

    def __init__(self) -> None:
        self.open = ""  # the fence of the open block, "" outside one
        self.indent = 0  # its indent

    def code(self, line: str) -> bool:
        """Whether ``line`` opens, closes or lies inside fenced code."""
        fence = _FENCE.match(line.expandtabs(4))
        if not self.open:
            if fence is None or (fence[2][0] == "`" and "`" in fence[3]):
                return False  # (a backtick fence's info holds no backtick: "```a``` b" is text)
            self.open, self.indent = fence[2], len(fence[1])
            return True
        if (fence is not None and fence[2][0] == self.open[0] and len(fence[2]) >= len(self.open)
                and not fence[3].strip() and len(fence[1]) < self.indent + 4):
            self.open = ""
        return True


EXPLICIT_TITLE = re.compile(r"(?s)(.*?)\s*<([^<>]*)>")
"""A Sphinx role's ``title <target>``."""


def role_display(name: str, text: str) -> str:
    """What Sphinx shows for the role ``name`` with ``text``: the explicit title
    (``title <target>``), else the target (``~a.b.c`` as ``c``; an issue or pull request
    as ``#12``, a user as ``@ann``, a PEP as ``PEP 8``); a changelog's
    ``:release:`2.4.0 <2018-01-22>``` shows both, the version and its date."""
    role = name.lower().split(":")[-1]
    explicit = EXPLICIT_TITLE.fullmatch(text)
    if explicit and explicit.group(1):
        if role == "release":  # the releases extension's
            return f"{explicit.group(1)} ({explicit.group(2)})"
        return explicit.group(1)
    target = text.lstrip("!")
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    prefix = {"issue": "#", "pr": "#", "pull": "#", "user": "@", "pep": "PEP "}.get(role, "")
    return prefix + target if target.strip() else text


_MYST_ROLE = re.compile(r"(?<![\w$`{])\{((?:[a-z][\w.+-]*:)?(?:ref|doc|func|meth|class|mod|attr"
                        r"|data|obj|exc|term|pr|issue|pull|user|pep|file|any|command|option"
                        r"|envvar|program|kbd|guilabel|menuselection|samp|abbr|confval"
                        r"|setting|release|commit|gh|bdg[\w-]*))\}`([^`\n]+)`")
"""A MyST role, Sphinx's in Markdown: ``{ref}`hooks <plugin-hooks>```, ``{func}`~a.b```."""
_ROLE_OR_SPAN = re.compile(_MYST_ROLE.pattern + "|" + _CODE_SPAN)
"""A MyST role, or a code span, which holds none: in "`help {command}` or `{command} -h`"
(Nushell's book) "{command}` or `" is no role."""


def _myst_roles(body: str) -> str:
    """``body`` with each MyST role (outside fenced code and code spans) as the code span of
    what Sphinx shows (:func:`role_display`): "{meth}`encoder <cattrs.Converter.encoder>`"
    was indexed braces and target and all. Read a paragraph at a time, as a code span may
    go on to the next line."""
    out: list[str] = []
    paragraph: list[str] = []

    def shown(role: re.Match[str]) -> str:
        if role["span"]:
            return role[0]
        return f"`{role_display(role[1], role[2]).strip() or role[2]}`"

    def end_paragraph() -> None:
        if not paragraph:
            return
        text = "\n".join(paragraph)
        out.extend((_ROLE_OR_SPAN.sub(shown, text) if "}`" in text else text).split("\n"))
        paragraph.clear()

    fences = Fences()
    for line in body.split("\n"):
        if fences.code(line) or not line.strip():
            end_paragraph()
            out.append(line)
        else:
            paragraph.append(line)
    end_paragraph()
    return "\n".join(out)


_ESM = re.compile(r"(?:import\s+(?:[\w*{][^'\"]*\s+from\s+)?['\"]|import\s+(?:type\s+)?\{[^}]*$"
                  r"|export\s+(?:const|let|var|function|default|\{))")
"""An MDX page's JavaScript module statement at the start of a line: ``import Tabs from
'@theme/Tabs';``, ``export const meta = …``."""
_MDX_COMMENT = re.compile(_CODE_SPAN + r"|(?<!\{)\{/\*[\s\S]{0,2000}?\*/\}(?!\})")
MDX_STATEMENT_LINES = 200
"""An MDX module statement ends within this many lines (a bound on unclosed brackets)."""
"""An MDX comment, or a code span, which holds none."""
_TAB_NAME = re.compile(r"\b(label|value)=(?:\"([^\"]*)\"|'([^']*)'|\{[\"'`]([^\"'`]*)[\"'`]\})")


_COMPONENT = re.compile(
    r"[ \t]*(?:<(?:(?P<tab>TabItem)|[A-Z][\w.]*|details)\b(?P<attributes>[^>]*?)/?>"
    r"|</(?:[A-Z][\w.]*|details)>"
    r"|<summary>(?P<summary>[^<]*)</summary>)[ \t]*")
"""An MDX component's tag on a line of its own (``<Admonition type="danger" title="…">``,
``</Tabs>``), or a ``<details>`` / ``<summary>`` one."""
_COMPONENT_TITLE = re.compile(r"""\btitle=(?:"([^"]*)"|'([^']*)')""")


def _tab_name(attributes: str) -> str:
    """A tab's name as Docusaurus shows it: its label, else its value."""
    names = {m[1]: m[2] or m[3] or m[4] or "" for m in _TAB_NAME.finditer(attributes)}
    return names.get("label") or names.get("value") or ""


def _without_mdx_code(body: str) -> str:
    """``body`` (Markdown or MDX, which Docusaurus, Nextra and Mintlify write) without
    what MDX runs rather than shows, outside fenced code: module statements (an ``import``
    or ``export`` up to the line that ends it) and ``{/* comments */}``. A component's tag on
    a line of its own (``<Admonition title="…">``, ``</Tabs>``, ``<details>``) is a break, so
    that its Markdown is read as the page's, its title first; a tab's label
    (``<TabItem value="yarn" label="Yarn">``) is the title of what it holds ("Yarn:")."""
    if ("import" not in body and "export" not in body and "{/*" not in body
            and "<details" not in body and not re.search(r"</?[A-Z]", body)):
        return body
    out: list[str] = []
    text: list[str] = []  # the lines since the last code

    def end_text() -> None:
        said = "\n".join(text)
        out.extend(_MDX_COMMENT.sub(lambda m: m[0] if m["span"] else "", said).split("\n")
                   if text else [])
        text.clear()

    fences = Fences()
    depth = -1  # in a module statement: its open brackets; -1 outside one
    taken = 0  # the statement's lines so far
    block_start = True  # the line opens a block (MDX's statements stand only there)
    for line in body.split("\n"):
        if depth < 0 and fences.code(line):
            end_text()
            out.append(line)
            block_start = False
            continue
        if depth >= 0 or (block_start and len(line) < 1000 and _ESM.match(line)):
            taken += 1  # a statement ends where its brackets close on a line that ends it,
            depth = max(depth, 0) + sum(line.count(c) for c in "{([") - sum(  # or at a blank
                line.count(c) for c in "})]")  # line outside its brackets, or past a bound
            if (depth <= 0 and (not line.strip() or not line.rstrip().endswith(
                    (",", "=", "=>")))) or taken >= MDX_STATEMENT_LINES:
                depth, taken = -1, 0
            block_start = True
            continue
        block_start = not line.strip()
        component = _COMPONENT.fullmatch(line) if len(line) < 500 else None  # a tag alone
        tab = _tab_name(component["attributes"] or "") if component and component["tab"] else ""
        if tab:
            text.extend([f"{tab}:", ""])
        elif component is not None:
            title = _COMPONENT_TITLE.search(component["attributes"] or "")
            said = (title[1] or title[2] if title else "") or (component["summary"] or "")
            text.extend(["", f"{said.strip()}:", ""] if said.strip() else [""])
        else:
            text.append(line)
    end_text()
    return "\n".join(out)


_SHORTCODE = (r"\{\{[<%]\s*(?P<close>/)?\s*(?P<name>[\w-]+)"
              r"(?P<args>(?:[^>%}]|[>%](?!\}\}))*)[>%]\}\}")
_SHORTCODE_LINE = re.compile(rf"[ \t]*(?:{_SHORTCODE}[ \t]*)+")
_CODE_SHORTCODES = frozenset({"codeFromInline", "highlight", "code"})
_LANGUAGE = re.compile(r"""\blang(?:uage)?\s*=\s*["']?([\w+-]+)|^\s*["']?([\w+-]+)["']?\s*$""")
_TITLE = re.compile(r"""\btitle\s*=\s*(["'])(.+?)\1""")
_SHORTCODE_FENCE = "~~~~~"
"""The fence a code shortcode's text becomes: one its own ``` lines cannot close."""


def _inline(shortcode: re.Match[str]) -> str:
    """A shortcode within a line of text: what it quotes ("v2.17" of
    ``{{< g_inline_version "v2.17" >}}``), else nothing (``{{< param version >}}``, a value
    the site fills in that the page does not hold)."""
    return " ".join(q for q in re.findall(r'"([^"]*)"', shortcode["args"]) if q.strip())


def _hugo_shortcodes(body: str) -> str:
    """``body`` with Hugo's shortcodes on lines of their own read as what they mark: a code
    shortcode (``{{< codeFromInline lang="bash" >}}`` … ``{{< /codeFromInline >}}``,
    ``highlight``) that is closed further on as a fenced block (a fence its text cannot
    close; the closing shortcode may end the code's last line); any other (``{{% note %}}``,
    ``{{< tabs >}}``, a code shortcode never closed) as a break between blocks, or its title
    ("Warning:") where it has one; within a line of text or code, what it quotes
    (:func:`_inline`: Hugo fills shortcodes in inside code blocks too). A line of fenced
    code that is only a shortcode is left as written."""
    lines = body.split("\n")
    out: list[str] = []
    fences = Fences()
    closing: re.Pattern[str] | None = None  # in a code shortcode: what closes it
    for at, line in enumerate(lines):
        if closing is not None:
            end = closing.search(line)
            if end is None:
                out.append(line)
                continue
            if line[:end.start()].strip():
                out.append(line[:end.start()])
            out.append(_SHORTCODE_FENCE)
            closing = None
            continue
        fenced = fences.code(line)
        whole = _SHORTCODE_LINE.fullmatch(line) is not None
        if fenced or not whole:  # Hugo fills shortcodes in inside code too
            out.append(line if "{{" not in line or (fenced and whole)
                       else re.sub(_SHORTCODE, _inline, line))
            continue
        codes = list(re.finditer(_SHORTCODE, line))
        first = codes[0]
        if len(codes) == 1 and first["name"] in _CODE_SHORTCODES and not first["close"]:
            close = re.compile(r"\{\{[<%]\s*/\s*" + re.escape(first["name"]) + r"\s*[>%]\}\}")
            again = re.compile(r"\{\{[<%]\s*" + re.escape(first["name"]) + r"\b")
            ahead = next((later for later in lines[at + 1:]
                          if close.search(later) or again.search(later)), "")
            if close.search(ahead):  # closed before it opens again: not a lone one
                language = _LANGUAGE.search(first["args"])
                out.append(_SHORTCODE_FENCE + (language[1] or language[2] if language else ""))
                closing = close
                continue
        title = _TITLE.search(first["args"]) if not first["close"] else None
        out.extend([f"{title[2]}:", ""] if title else [""])
    return "\n".join(out)


_CLOSED_HTML_LINE = re.compile(r"[ \t]*(?:<(\w+)\b[^<>]*>[ \t]*</\1>|<\w+\b[^<>]*/>)[ \t]*")
"""A line that is one HTML element opened and closed (``<div class="marker"></div>``, ``<br/>``)."""


def _closed_html_lines_apart(body: str) -> str:
    """``body`` with a blank line after each line that is one closed HTML element, starts a
    block (after a blank line, not indented: not a table's empty ``<td></td>``) and is
    followed by text: CommonMark runs an HTML block on to the next blank line, so the table
    written right under ``<div class="build-id-table-marker"></div>`` (cibuildwheel's
    options page) was read as HTML, and left out as a page of bare identifiers. Python-Markdown,
    which such docs are written for, reads the table."""
    lines = body.split("\n")
    out: list[str] = []
    fences = Fences()
    for at, line in enumerate(lines):
        out.append(line)
        fenced = fences.code(line)
        starts_block = (at == 0 or not lines[at - 1].strip()) and not line.startswith(
            ("    ", "\t"))  # not a table's empty cell "<td></td>", nor indented code
        if (not fenced and starts_block and _CLOSED_HTML_LINE.fullmatch(line)
                and at + 1 < len(lines) and lines[at + 1].strip()):
            out.append("")
    return "\n".join(out)


def _open_indented_blocks(body: str) -> str:
    """Python-Markdown's admonitions (``!!! note "Title"``, collapsible ``??? tip``) and
    content tabs (``=== "pip"``), whose text is indented four spaces under the marker — read
    by CommonMark as code, or as one paragraph with the marker — as their title (a bare
    "note" or "tip" says nothing and is left out) and their text at the marker's indent."""
    out: list[str] = []
    indent: list[int] = []  # the marker indent of each open block
    fences = Fences()
    for line in body.split("\n"):
        width = len(line) - len(line.lstrip(" \t"))
        while indent and line.strip() and width < indent[-1] + 4:
            indent.pop()
        if indent:
            line = line[4 * len(indent):] if line[:4 * len(indent)].isspace() else line.lstrip()
        marker = None if fences.code(line) else _INDENTED_BLOCK.fullmatch(line)
        if marker is not None and " " in (marker["type"] or "").strip() and not marker["title"]:
            marker = None  # "!!! Do not run this in production": a sentence, not a block
        if marker is not None:
            title = marker["title"] or marker["tab"]  # "Note", "Tip": no information
            own = len(marker["indent"])
            out.append(f"{' ' * own}{title}:" if title else "")
            out.append("")
            indent.append(own + 4 * len(indent))
            continue
        out.append(line)
    return "\n".join(out)


HEADING_ATTRIBUTES = re.compile(r"\s*\{:?\s*[#.][^{}]*\}\s*$|\s*\{:[^{}]*\}\s*$")
"""An attribute list closing a heading: Python-Markdown's and MkDocs' ``{: #id .class}``,
Pandoc's and kramdown's ``{#id .class}``. It names an anchor, not the section."""


def heading_text(text: str) -> str:
    """A Markdown heading's text without its attribute list ("test-extras {: #test-extras
    env-var toml}" is the section "test-extras"), or ``text`` where nothing else is left."""
    return HEADING_ATTRIBUTES.sub("", text).strip() or text


_LINE_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)


def _inline_markdown(text: str) -> str:
    """A line of Markdown as it reads: emphasis and code spans without their marks."""
    if not text:
        return text
    return _inline_text(_parser(plain=True).parseInline(text)[0])


def _inline_text(token: Any) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak") or (
                child.type == "html_inline" and _LINE_BREAK.fullmatch(child.content)):
            parts.append(" ")  # a cell's "cp39-win32<br/>cp39-win_amd64": two values
    return "".join(parts)


_HTML_BLOCKS = ("p", "li", "pre", "tr", "dt", "dd", "blockquote", "figcaption")


def parse_html(text: str, *, fallback_title: str) -> ParsedDocument:
    hidden: list[Dropped] = []
    soup = _visible_soup(text, hidden)
    builder = SectionBuilder()
    _html_blocks(soup.body or soup, builder)
    title_tag = soup.title.get_text(" ").strip() if soup.title else ""
    title = title_tag or builder.first_heading or fallback_title
    return ParsedDocument(title=one_line(title), sections=builder.build(),
                          dropped=tuple(hidden))


def _visible_soup(text: str, hidden: list[Dropped]) -> Any:
    """``text`` parsed, without scripts, styles, navigation and what is hidden from readers
    (which goes to ``hidden``)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(["script", "style", "noscript", "nav", "footer", "template"]):
        tag.decompose()
    for tag in soup.find_all(True):
        why = None if tag.decomposed else hidden_reason(tag.attrs or {})
        if why is not None:
            text = one_line(tag.get_text(" "))
            if text:
                hidden.append(dropped(DropKind.HIDDEN, why, text))
            tag.decompose()
    return soup


def _html_blocks(root: Any, builder: SectionBuilder) -> None:
    """The headings and blocks of an HTML page or fragment, into ``builder``."""
    term = ""
    headers: dict[int, tuple[list[str], Any]] = {}
    blocks_before = len(builder.blocks) + len(builder.sections)
    for el in root.find_all(["h1", "h2", "h3", "h4", "h5", "h6", *_HTML_BLOCKS]):
        name = el.name or ""
        outer = el.find_parent(_HTML_BLOCKS)
        if outer is not None and not (name == "tr" and outer.name == "tr" and (
                el.find_parent("table") is outer.find_parent("table"))):
            continue  # nested inside a block we already take whole (a row left unclosed,
            # which html.parser nests in the one before, is a row of its own)
        if name.startswith("h") and len(name) == 2:
            builder.heading(int(name[1]), el.get_text(" "))
        elif name == "tr":
            builder.add(_html_row(el, headers))
        elif name == "li":
            builder.add(item_block(el.get_text(" "), _html_lead(el)))
        elif name == "pre":
            builder.add(code(el.get_text()))
        elif name == "dt":
            term = el.get_text(" ")
        elif name == "dd":
            builder.add(definition(term, el.get_text(" ")))
        else:
            builder.add(paragraph(el.get_text(" ")))
    if len(builder.blocks) + len(builder.sections) == blocks_before:
        for line in root.get_text("\n").split("\n\n"):
            builder.add(paragraph(line))


def _html_row(tr: Any, headers: dict[int, tuple[list[str], Any]]) -> Block | None:
    """A row with its table's header (:func:`_html_header`, found once a table: ``headers``
    holds it by the table's identity)."""
    cells = _cells(tr)
    if (cells and all(c.name == "th" for c in cells)) or _in_thead(tr):
        return None  # the header: carried by every row
    texts = [_cell_text(c) for c in cells]
    table = tr.find_parent("table")
    if table is None:
        return table_row([], texts)
    if id(table) not in headers:
        headers[id(table)] = _html_header(table)
    header, head = headers[id(table)]
    if head is not tr:
        return table_row(header, texts)
    mixed = {c.name for c in cells} == {"th", "td"}
    return table_row([], texts) if mixed else None  # a first row of <td> s heading the rest


def _html_header(table: Any) -> tuple[list[str], Any]:
    """A table's column names and the row that holds them: its ``<thead>`` rows' cells
    (several rows read together, column by column: "Limits" over "CPU" and "RAM" names
    "Limits CPU" and "Limits RAM"), its first row's ``<th>`` s, or its first row of ``<td>`` s
    when that reads as a header (:func:`first_row_heads`). A table nested in a cell is that
    cell's text, not rows or cells of this one."""
    rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
    if not rows:
        return [], None
    first = _cells(rows[0])
    names = [one_line(_cell_text(c)) for c in first]
    if _in_thead(rows[0]):
        return _column_names([row for row in rows if _in_thead(row)]), rows[0]
    if any(c.name == "th" for c in first):
        return [n for c, n in zip(first, names, strict=True) if c.name == "th"], rows[0]
    if any(c.name == "th" for row in rows for c in _cells(row)):
        return [], None
    below = [[_cell_text(c) for c in _cells(row) if c.name == "td"] for row in rows[1:]]
    bold = all(is_bold([b.get_text(" ") for b in c.find_all(["b", "strong"])], c.get_text(" "))
               for c in first if c.get_text().strip())
    return (names, rows[0]) if first_row_heads(names, below, bold=bold) else ([], None)


def _column_names(head: list[Any]) -> list[str]:
    """The names of a header of several rows, read column by column (a cell spanning
    columns names each of them)."""
    grid: list[list[str]] = []
    for row in head:
        cells: list[str] = []
        for cell in _cells(row):
            span = str(cell.get("colspan", "1")).strip()
            cells += [one_line(_cell_text(cell))] * (int(span) if span.isdigit() else 1)
        grid.append(cells)
    width = max(len(cells) for cells in grid)
    return [" ".join(dict.fromkeys(cells[i] for cells in grid if i < len(cells) and cells[i]))
            for i in range(width)]


def _cells(tr: Any) -> list[Any]:
    """A row's own cells: those whose row is this one. A table nested in a cell is part of
    its text; a cell left unclosed (``<td>1<td>2``), which html.parser nests in the one
    before, is a cell of its own."""
    return [c for c in tr.find_all(["td", "th"]) if c.find_parent("tr") is tr]


def _cell_text(cell: Any) -> str:
    """A cell's text with a table nested in it, without the cells and rows of its own table
    that html.parser nests in it when end tags are left out."""
    table = cell.find_parent("table")
    return " ".join(
        str(text) for text in cell.strings
        if (owner := text.find_parent(["td", "th"])) is cell
        or owner.find_parent("table") is not table)


def _in_thead(tr: Any) -> bool:
    """Whether a row is in its table's ``<thead>``: a header, whatever its cells' tags."""
    section = tr.find_parent(["thead", "table"])
    return section is not None and section.name == "thead"


def _html_lead(li: Any) -> str:
    """The paragraph just before the item's list."""
    parent = li.find_parent(["ul", "ol"])
    before = parent.find_previous_sibling() if parent is not None else None
    if before is not None and before.name == "p":
        return str(before.get_text(" "))
    return ""
