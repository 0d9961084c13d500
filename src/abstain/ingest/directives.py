"""The Sphinx directives that both reStructuredText (``.. deprecated:: 2.0``) and MyST
Markdown (``:::{deprecated} 2.0``, ```` ```{note} ````) write: which are code, which say
nothing a reader asks about, and which state a version."""

from __future__ import annotations

CODE_DIRECTIVES = frozenset({"code-block", "sourcecode", "code", "doctest", "testcode",
                             "testoutput", "ipython", "jupyter-execute", "prompt"})
DROPPED_DIRECTIVES = frozenset({
    "toctree", "literalinclude", "include", "image", "figure", "only", "highlight", "index",
    "currentmodule", "module", "py:module", "py:currentmodule", "tabularcolumns", "program",
    "cog", "raw", "meta", "contents", "graphviz", "plot", "automodule", "autosummary",
    "spelling:word-list"})
VERSION_DIRECTIVES = {"versionadded": "New in version", "versionchanged": "Changed in version",
                      "deprecated": "Deprecated since version", "versionremoved": "Removed in "
                      "version"}
TEXT_DIRECTIVES = frozenset({
    "note", "warning", "tip", "important", "caution", "danger", "error", "hint", "attention",
    "seealso", "admonition", "topic", "sidebar", "dropdown", "tab-set", "tab-item", "tab",
    "tabs", "card", "grid", "grid-item", "grid-item-card", "margin", "info", "success",
    "versionadded", "versionchanged", "deprecated", "versionremoved", "confval", "glossary",
    "details"})
"""Directives whose body is text to read: admonitions, tabs, cards (in a backtick fence,
a MyST directive's name outside these and the others above reads as a code chunk's
language, as R Markdown and Quarto write ```` ```{r} ````)."""
DESCRIPTION_DIRECTIVES = frozenset({
    "function", "method", "attribute", "class", "data", "exception", "module", "option",
    "cmdoption", "describe", "object", "envvar", "program", "property", "decorator",
    "classmethod", "staticmethod", "confval", "setting", "role", "directive", "event"})
"""Sphinx's object descriptions: their argument is a signature (``send(*args, **kwargs)``,
``type_``), kept as written, never read as inline markup."""


def describes(name: str) -> bool:
    """Whether directive ``name`` describes an object (a domain's ``py:function``, an
    ``autoclass``): its argument is a signature, not text."""
    return ":" in name or name.startswith("auto") or name in DESCRIPTION_DIRECTIVES

