"""reStructuredText (docutils) into typed blocks.

docutils parses the text into its document tree; sections (over- and underlined titles
of any adornment) open sections, lists become list items with the paragraph before
them as their lead, definition lists, field lists and option lists become definitions,
tables (grid, simple, ``list-table``, ``csv-table``) rows with their header, literal and
doctest blocks code.

Sphinx is not needed: its roles (``:ref:``, ``:func:``, ``:py:class:`` …) become the
text they display (``:ref:`label``` the title of the section the label marks when the
page has it), ``code-block`` is code, ``versionadded`` and the other
admonition-like directives keep their text, ``autoclass`` and its kin keep the name
they document and the text written under it, a directive's options that state something
(``.. confval::``'s ``:type:`` and ``:default:``) become one row with that name, and ``toctree``,
``literalinclude`` and the like drop out. Nothing reaches the index as markup noise; errors
docutils reports are not shown.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from abstain.errors import IngestError
from abstain.ingest.blocks import (
    ParsedDocument,
    SectionBuilder,
    code,
    definition,
    first_row_heads,
    is_bold,
    one_line,
    paragraph,
    table_row,
)
from abstain.ingest.directives import (
    CODE_DIRECTIVES,
    DROPPED_DIRECTIVES,
    VERSION_DIRECTIVES,
    describes,
)
from abstain.ingest.markup import EXPLICIT_TITLE, item_block, role_display

_ROLE = re.compile(r":([A-Za-z][\w.+-]*(?::[\w.+-]+)*):`")
_DIRECTIVE = re.compile(r"^\s*\.\.\s+([A-Za-z][\w.+-]*(?::[\w.+-]+)*)::", re.MULTILINE)
_LABEL = re.compile(r"\.\.\s+_([^:`]+):\s*")
_ADORNMENT = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}\s*")
_UNRESOLVED = re.compile(r"\|([^|]+)\|_{0,2}|`([^`<]+?)(?:\s*<[^<>]*>)?`_{1,2}|([\w.-]+)_{1,2}")
"""A substitution or a reference docutils cannot resolve (``|StubBroker|``, defined in a
``global.rst`` that Sphinx includes; `` `high availability`_ ``): the text it shows."""
PRESENTATION_OPTIONS = frozenset({
    "caption", "name", "class", "emphasize-lines", "lines", "language", "linenos",
    "member-order", "exclude-members", "special-members", "private-members", "members",
    "platform", "synopsis", "module", "annotation", "canonical", "label", "tab-width",
    "dedent", "force", "encoding", "start-after", "end-before", "width", "height", "align",
    "alt", "scale", "target", "maxdepth", "glob", "titlesonly", "hidden", "nosignatures",
    "toctree", "template"})
"""Directive options about how Sphinx lays the text out, not what it says; the others
(``:type:``, ``:default:`` of a ``confval`` …) are kept, one row with the name they document."""


def parse_rst(text: str, *, fallback_title: str, labels: dict[str, str] | None = None
              ) -> ParsedDocument:
    """``labels`` maps the ``.. _label:`` targets of other pages to their section titles
    (:func:`folder_labels`), for ``:ref:`` across pages."""
    from docutils import nodes
    from docutils.core import publish_doctree

    _register_unknown(text)
    settings = {"report_level": 5, "halt_level": 5, "warning_stream": io.StringIO(),
                "file_insertion_enabled": False, "raw_enabled": False,
                "doctitle_xform": False, "sectsubtitle_xform": False, "docinfo_xform": False,
                "syntax_highlight": "none", "input_encoding": "unicode"}
    try:
        tree = publish_doctree(text, settings_overrides=settings)
    except Exception as exc:  # docutils raises its own error types for broken input
        raise IngestError(fallback_title, f"not readable reStructuredText ({exc})") from exc
    for node in list(tree.findall(nodes.problematic)):
        said = _UNRESOLVED.fullmatch(node.astext())
        if said is not None:  # defined in a file Sphinx includes: its name, not nothing
            node.parent.replace(node, nodes.Text(next(g for g in said.groups() if g)))
    for node in list(tree.findall(lambda n: isinstance(
            n, nodes.problematic | nodes.system_message | nodes.comment
            | nodes.substitution_definition | nodes.target | nodes.image | nodes.raw)
            or (isinstance(n, nodes.topic) and "contents" in n["classes"]))):
        node.parent.remove(node)  # a table of contents is no content
    _resolve_refs(tree, nodes, labels or {})
    builder = SectionBuilder()
    _walk(tree, builder, 0, nodes)
    return ParsedDocument(title=builder.first_heading or fallback_title,
                          sections=builder.build())


def _walk(node: Any, builder: SectionBuilder, level: int, nodes: Any, lead: str = "") -> None:
    for child in node.children:
        if isinstance(child, nodes.section):
            title = child.next_node(nodes.title)
            builder.heading(level + 1, title.astext() if title is not None else "")
            _walk(child, builder, level + 1, nodes)
        elif isinstance(child, nodes.title | nodes.subtitle):
            continue  # read by its section
        elif isinstance(child, nodes.paragraph | nodes.line_block | nodes.rubric):
            lead = child.astext()
            builder.add(paragraph(lead))
        elif isinstance(child, nodes.bullet_list | nodes.enumerated_list):
            _list(child, builder, level, nodes, lead)
        elif isinstance(child, nodes.definition_list):
            for item in child.children:
                term = " ".join(t.astext() for t in item.findall(nodes.term))
                body = item.next_node(nodes.definition)
                builder.add(definition(term, body.astext() if body is not None else ""))
        elif isinstance(child, nodes.field_list):
            for field in child.children:
                builder.add(definition(field[0].astext(), field[1].astext()))
        elif isinstance(child, nodes.option_list):
            for item in child.children:
                builder.add(definition(item[0].astext(), item[1].astext()
                                       if len(item) > 1 else ""))
        elif isinstance(child, nodes.table):
            _table(child, builder, nodes)
        elif isinstance(child, nodes.literal_block | nodes.doctest_block):
            builder.add(code(child.astext()))
        elif isinstance(child, nodes.Element) and child.children:
            _walk(child, builder, level, nodes, lead)  # admonitions, quotes, containers


def _list(node: Any, builder: SectionBuilder, level: int, nodes: Any, lead: str) -> None:
    ordered = isinstance(node, nodes.enumerated_list)
    for n, item in enumerate(node.children, start=1):
        own = [c for c in item.children if not isinstance(
            c, nodes.bullet_list | nodes.enumerated_list | nodes.literal_block)]
        text = " ".join(c.astext() for c in own)
        builder.add(item_block(text, lead, f"{n}." if ordered else "-"))
        rest = [c for c in item.children if c not in own]
        if rest:
            holder = nodes.container()
            holder.children = rest
            _walk(holder, builder, level, nodes, one_line(text))


def _table(node: Any, builder: SectionBuilder, nodes: Any) -> None:
    header: list[str] = []
    head = node.next_node(nodes.thead)
    if head is not None:
        rows = list(head.findall(nodes.row))
        header = [e.astext() for e in rows[-1].children] if rows else []
    body = node.next_node(nodes.tbody)
    rows = [list(row.children) for row in body.findall(nodes.row)] if body is not None else []
    texts = [[e.astext() for e in row] for row in rows]
    if not header and texts and first_row_heads(
            texts[0], texts[1:], bold=all(_bold(e, nodes) for e in rows[0] if e.astext())):
        header, texts = texts[0], texts[1:]
    for cells in texts:
        builder.add(table_row(header, cells))


def _bold(entry: Any, nodes: Any) -> bool:
    """A cell whose whole text is set in bold (``**Name**``)."""
    return is_bold([s.astext() for s in entry.findall(nodes.strong)], entry.astext())


def _resolve_refs(tree: Any, nodes: Any, labels: dict[str, str]) -> None:
    """``:ref:`label``` shows the title of the section ``label`` marks, on this page or
    (``labels``) another."""
    titles: dict[str, str] = {k.lower(): v for k, v in labels.items()}
    for section in tree.findall(nodes.section):
        title = section.next_node(nodes.title)
        for name in (*section["names"], *section["ids"]):
            if title is not None:
                titles.setdefault(name, title.astext())
    for ref in list(tree.findall(nodes.literal)):
        label = ref.get("abstain_ref")
        if label:
            shown = titles.get(label.lower()) or titles.get(label.lower().replace("_", "-"))
            ref.parent.replace(ref, nodes.Text(shown or _humanise(label)))


_SECTION_LABEL = re.compile(r"[\w./-]+:(.*(?:\s|[A-Z]).*)")
"""A label Sphinx's ``autosectionlabel`` makes, the page's path and its section's title
(``usage/dependency-injection:Marking dependencies``): it shows the title. A title has a
space or a capital; ``faq:why-not`` is a label of its own."""


def folder_labels(folder: Path, limit: int = 500) -> dict[str, str]:
    """The ``.. _label:`` targets of the ``.rst`` pages in ``folder`` and the titles of
    the sections they mark (read line by line, not parsed; at most ``limit`` pages)."""
    labels: dict[str, str] = {}
    for page in sorted(folder.glob("*.rst"))[:limit]:
        try:
            lines = page.read_text(encoding="utf-8-sig").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        pending: list[str] = []
        for n, line in enumerate(lines):
            target = _LABEL.fullmatch(line)
            if target:
                pending.append(target.group(1))
            elif pending and line.strip() and not _ADORNMENT.fullmatch(line):
                below = lines[n + 1] if n + 1 < len(lines) else ""
                if _ADORNMENT.fullmatch(below):
                    labels.update(dict.fromkeys(pending, _shown(line.strip())))
                pending = []
    return labels


_INLINE_ROLE = re.compile(_ROLE.pattern + r"([^`]+)`")
"""A role with its text, the role's name as :data:`_ROLE` reads it."""


def _shown(title: str) -> str:
    """A title read line by line as the page shows it: its roles (``The :mod:`pyi_splash`
    Module``) as what they display, its literals without their backquotes."""
    shown = _INLINE_ROLE.sub(lambda m: role_display(m.group(1), m.group(2)), title)
    return re.sub(r"``([^`]+)``", r"\1", shown)


def _humanise(label: str) -> str:
    """A label no title was found for, as a reader would say it: an ``autosectionlabel``'s
    title, else its words."""
    section = _SECTION_LABEL.fullmatch(label)
    if section is not None:
        return section.group(1).strip()
    return label.replace("_", " ").replace("-", " ").strip()


def _register_unknown(text: str) -> None:
    """Teach docutils the roles and directives ``text`` uses that it does not know — at every
    parse, over whatever else registered them since (docutils' registry is global: another
    reader of reST in the same process, such as the training data's, must not change what a
    page ingests as). docutils' own built-in roles and directives are kept."""
    from docutils.parsers.rst import directives, roles

    own_roles = getattr(roles, "_role_registry", {})
    for name in dict.fromkeys(m.group(1).lower() for m in _ROLE.finditer(text)):
        if name in own_roles:
            getattr(roles, "_roles", {}).pop(name, None)  # docutils' own, not a reader's
        else:
            roles.register_local_role(name, _display_role)
    own = getattr(directives, "_directive_registry", {})
    for name in dict.fromkeys(m.group(1).lower() for m in _DIRECTIVE.finditer(text)):
        if name in own and name not in CODE_DIRECTIVES:
            getattr(directives, "_directives", {}).pop(name, None)  # docutils' own again
        else:
            directives.register_directive(name, _generic_directive())


def _row_node(cells: list[tuple[str, str]], state: Any, lineno: int) -> Any:
    """A one-row table (header: the names, row: the values, inline markup parsed), which
    :func:`_table` turns into a row block."""
    from docutils import nodes

    def entry(*children: Any) -> Any:
        return nodes.entry("", nodes.paragraph("", "", *children))

    group = nodes.tgroup(cols=len(cells))
    group += [nodes.colspec(colwidth=1) for _ in cells]
    group += nodes.thead("", nodes.row("", *(entry(nodes.Text(k)) for k, _ in cells)))
    group += nodes.tbody("", nodes.row("", *(entry(*state.inline_text(v, lineno)[0])
                                             for _, v in cells)))
    return nodes.table("", group)


def _display_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                  options: Any = None, content: Any = None) -> tuple[list[Any], list[Any]]:
    """What Sphinx would show: the explicit title, or the target (``~a.b.c`` as ``c``); a
    changelog's ``:release:`2.4.0 <2018-01-22>``` shows both, the version and its date."""
    from docutils import nodes, utils

    shown = utils.unescape(text)
    explicit = EXPLICIT_TITLE.fullmatch(shown)
    node = nodes.literal(rawtext, role_display(name, shown))
    if name.split(":")[-1] in ("ref", "doc") and not explicit:
        node["abstain_ref"] = node.astext()
    return [node], []


def _generic_directive() -> Any:
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class AnyOptions(dict[str, Any]):
        def __missing__(self, key: str) -> Any:
            return directives.unchanged

        def __bool__(self) -> bool:  # docutils reads options only when a directive has some
            return True

    class Generic(Directive):  # type: ignore[misc]
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = AnyOptions()

        def inline(self, text: str) -> list[Any]:
            """``text`` with its inline markup read, as Sphinx reads a version directive's
            text and an admonition's or a ``seealso``'s argument (the text of ``..
            deprecated:: 2.0`` that runs on from its line, a ``:doc:`` role): roles shown,
            links their text. As written where the markup does not parse ("Linux /
            \\*nix") and for an object's signature (``send(*args)``, ``type_``)."""
            if not text:
                return []
            if describes(self.name.lower()):  # "send(\\*args)" shows "send(*args)"
                return [nodes.Text(re.sub(r"\\(.)", r"\1", text))]
            read, messages = self.state.inline_text(text, self.lineno)
            return [nodes.Text(text)] if messages else list(read)

        def run(self) -> list[Any]:
            name = self.name.lower()
            argument = " ".join(self.arguments)
            if name in CODE_DIRECTIVES:
                return [nodes.literal_block("", "\n".join(self.content))]
            if name in DROPPED_DIRECTIVES:
                return []
            out: list[Any] = []
            stated = [(k, v) for k, v in self.options.items()
                      if isinstance(v, str) and v.strip() and k not in PRESENTATION_OPTIONS]
            if name in VERSION_DIRECTIVES:
                version, rest = [*argument.split(None, 1), ""][:2]
                out.append(nodes.paragraph("", f"{VERSION_DIRECTIVES[name]} {version}"
                                           + (": " if rest else "."), *self.inline(rest)))
            elif stated:
                # ``.. confval:: workers`` / ``:type: int`` / ``:default: 3``: one row, the
                # name and what the options state about it read together
                cells = [("", argument)] if argument else []
                out.append(_row_node([*cells, *stated], self.state, self.lineno))
            elif argument:
                out.append(nodes.paragraph("", "", *self.inline(argument)))
            if self.content:
                holder = nodes.container()
                self.state.nested_parse(self.content, self.content_offset, holder)
                out.append(holder)
            return out

    return Generic


