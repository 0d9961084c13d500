"""reStructuredText pages as abstain's parsed sections, read with docutils.

Sphinx's roles and directives are not docutils': the common ones are registered here as plain
equivalents, so that a page reads as a user sees it built (``:func:`~pkg.load``` as ``load``,
``.. versionadded:: 2.0`` as "New in version 2.0.", ``.. option:: --fast`` as a subsection
headed ``--fast``). Pages that include, autodoc or toctree other files lose those parts.
"""

from __future__ import annotations

import io
import re
from typing import Any

from abstain.ingest.blocks import Block, BlockKind, ParsedDocument, Section
from abstain.text import clean

_ROLES = ("func", "meth", "class", "attr", "mod", "obj", "data", "exc", "const", "ref", "doc",
          "option", "envvar", "term", "confval", "kbd", "file", "program", "command", "samp",
          "setting", "signal", "pep", "rfc", "issue", "pr", "user", "gh", "bug", "commit",
          "abbr", "guilabel", "menuselection", "mimetype", "newsfragment", "keyword", "any",
          "download", "numref", "py:func", "py:meth", "py:class", "py:attr", "py:mod", "py:obj",
          "py:data", "py:exc", "py:const", "js:func", "js:attr", "std:option", "cmdoption",
          "mc", "mc-cmd", "mc-conf", "minio", "envvar", "ref-ext", "source", "opt",
          "dfn", "regexp", "makevar", "c:func", "c:type", "c:data", "role", "directive")
_DROP = ("toctree", "autosummary", "automodule", "autoclass", "autofunction", "automethod",
         "autoattribute", "autodata", "autoexception", "literalinclude", "include", "image",
         "figure", "index", "highlight", "currentmodule", "module", "testsetup", "testcleanup",
         "tabularcolumns", "graphviz", "mermaid", "sectionauthor", "moduleauthor", "spelling",
         "contents", "raw", "meta", "towncrier-draft-entries", "changelog", "click",
         "program-output", "command-output", "jinja", "include-changelog", "py:currentmodule",
         "py:module", "default-domain", "default-role", "role", "rst-class", "rubric",
         "list-table-placeholder", "grid", "card", "youtube")
_CODE = ("code-block", "code", "sourcecode", "doctest", "testcode", "testoutput", "prompt",
         "parsed-literal", "ipython", "console")
_VERSIONS = {"versionadded": "New in version {}.", "versionchanged": "Changed in version {}.",
             "deprecated": "Deprecated since version {}.",
             "versionremoved": "Removed in version {}."}
_DESCRIBE = ("function", "method", "class", "attribute", "data", "exception", "decorator",
             "option", "envvar", "confval", "cmdoption", "setting", "describe", "object",
             "property", "classmethod", "staticmethod", "decoratormethod", "module-data",
             "py:function", "py:method", "py:class", "py:attribute", "py:data",
             "py:exception", "py:decorator", "py:property", "js:function", "js:attribute",
             "mc-cmd", "mc-conf", "envvar-default", "glossary")
_OTHERS = ("note", "warning", "tip", "seealso", "admonition", "important", "caution",
           "attention", "hint", "danger", "error", "tab", "tabs", "group-tab", "code-tab",
           "only", "ifconfig", "container", "versionadded-block", "hlist", "cssclass",
           "dropdown", "tab-set", "tab-item", "details", "div", "topic")


def _target(text: str) -> str:
    """What a cross-reference shows: ``Title <label>`` → Title, ``~a.b.c`` → c."""
    m = re.match(r"^(.*?)\s*<[^<>]*>$", text, re.S)
    if m and m.group(1).strip():
        return m.group(1).strip()
    if text.startswith("~"):
        return text[1:].rsplit(".", 1)[-1]
    return text.lstrip("!")


def _register() -> None:
    """At every parse: docutils' registry is global, and abstain's ingest registers its own
    handlers for the same names."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles

    def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
             options: Any = None, content: Any = None) -> tuple[list[Any], list[Any]]:
        return [nodes.literal(rawtext, _target(text))], []

    for name in _ROLES:
        roles.register_local_role(name, role)

    class AnyOptions(dict[str, Any]):
        def __missing__(self, key: str) -> Any:
            return directives.unchanged

        def __contains__(self, key: object) -> bool:
            return True

    class Generic(Directive):  # type: ignore[misc]  # docutils ships no types
        has_content = True
        optional_arguments = 20
        final_argument_whitespace = True
        option_spec = AnyOptions()

        def run(self) -> list[Any]:
            name = self.name
            argument = " ".join(self.arguments).strip()
            if name in _DROP:
                return []
            if name in _CODE:
                return [nodes.literal_block("", "\n".join(self.content))]
            box = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, box)
            if name in _VERSIONS:
                label = _VERSIONS[name].format(argument.split()[0] if argument else "")
                rest = " ".join(argument.split()[1:])
                return [nodes.paragraph("", " ".join(x for x in (label, rest, box.astext())
                                                     if x))]
            if name in _DESCRIBE and argument:
                box["signature"] = argument
            return [box]

    for name in (*_DROP, *_CODE, *_VERSIONS, *_DESCRIBE, *_OTHERS):
        directives.register_directive(name, Generic)


class _Builder:
    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.blocks: list[str] = []
        self.path: tuple[str, ...] = ()

    def block(self, text: str) -> None:
        text = clean(text)
        if text:
            self.blocks.append(text)

    def enter(self, path: tuple[str, ...]) -> tuple[str, ...]:
        self.flush()
        before, self.path = self.path, path
        return before

    def flush(self) -> None:
        if self.blocks:
            self.sections.append(Section(self.path, tuple(Block(BlockKind.PARAGRAPH, b)
                                                          for b in self.blocks)))
        self.blocks = []


def _walk(node: Any, out: _Builder) -> None:
    from docutils import nodes

    for child in node.children:
        if isinstance(child, nodes.section):
            title = clean(child[0].astext()) if len(child) and isinstance(
                child[0], nodes.title) else ""
            before = out.enter((*out.path, title) if title else out.path)
            _walk(child, out)
            out.enter(before)
        elif isinstance(child, (nodes.title, nodes.system_message, nodes.comment, nodes.target,
                                nodes.substitution_definition, nodes.raw, nodes.problematic)):
            continue
        elif isinstance(child, nodes.container) and child.get("signature"):
            signature = clean(child["signature"])
            name = re.split(r"[\s(=:\[]", signature, maxsplit=1)[0] or signature
            before = out.enter((*out.path, name))
            out.block(signature)
            _walk(child, out)
            out.enter(before)
        elif isinstance(child, (nodes.paragraph, nodes.literal_block, nodes.doctest_block,
                                nodes.line_block)):
            out.block(child.astext())
        elif isinstance(child, (nodes.bullet_list, nodes.enumerated_list)):
            for item in child.children:
                out.block("- " + item.astext())
        elif isinstance(child, nodes.definition_list):
            for item in child.children:
                term = item.children[0].astext() if item.children else ""
                body = " ".join(c.astext() for c in item.children[1:])
                out.block(f"{term}: {body}" if term else body)
        elif isinstance(child, nodes.field_list):
            for field in child.children:
                out.block(": ".join(c.astext() for c in field.children))
        elif isinstance(child, nodes.table):
            for row in child.findall(nodes.row):
                out.block(" | ".join(clean(e.astext()) for e in row.children))
        elif isinstance(child, nodes.Element):
            _walk(child, out)


def parse_rst(text: str, *, fallback_title: str) -> ParsedDocument:
    """Sections of a reStructuredText page (errors in the markup are read past, not raised)."""
    from docutils.core import publish_doctree

    _register()
    tree = publish_doctree(text, settings_overrides={
        "report_level": 5, "halt_level": 5, "warning_stream": io.StringIO(),
        "file_insertion_enabled": False, "raw_enabled": False, "doctitle_xform": False,
        "sectsubtitle_xform": False})
    out = _Builder()
    _walk(tree, out)
    out.flush()
    title = next((s.heading_path[0] for s in out.sections if s.heading_path), fallback_title)
    return ParsedDocument(title=title, sections=tuple(out.sections))
