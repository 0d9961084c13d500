"""What a reader of a page does not see: hidden HTML, invisible characters, and the record
of what was left out (:class:`Dropped`).

:mod:`abstain.ingest.parse` asks :func:`hidden_reason` about each HTML element and
:func:`invisible` about each text, and drops what a reader does not see;
:mod:`abstain.ingest.screen` drops what addresses the model or stuffs keywords, and
records all of it with the document.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from abstain.text import truncate

QUOTE_CHARS = 160
"""How much of a left-out text is kept to name it."""


class DropKind(StrEnum):
    HIDDEN = "hidden"
    """Text a reader of the page does not see."""
    INSTRUCTION = "instruction"
    """A sentence addressed to an assistant or language model."""
    INVISIBLE = "invisible_characters"
    """Zero-width, bidirectional-control or tag characters (stripped, counted)."""
    STUFFING = "keyword_stuffing"
    """A paragraph that repeats a few words over and over."""
    UNCALCULATED = "uncalculated_formulas"
    """Formula cells of a workbook saved without the values they compute (written by a
    program, never opened in a spreadsheet program since): they read as empty."""


@dataclass(frozen=True, slots=True)
class Dropped:
    """One piece of a document left out at ingest, and why."""

    kind: DropKind
    why: str
    """``display:none``, ``white text``, ``addressed to the assistant``, ``3 characters`` …"""
    text: str = ""
    """The left-out text (its first QUOTE_CHARS characters)."""

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind.value, "why": self.why, "text": self.text}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Dropped:
        return cls(DropKind(str(data.get("kind"))), str(data.get("why", "")),
                   str(data.get("text", "")))

    def describe(self) -> str:
        quoted = f": {self.text!r}" if self.text else ""
        return f"{self.kind.value} ({self.why}){quoted}"


def dropped(kind: DropKind, why: str, text: str = "") -> Dropped:
    return Dropped(kind, why, truncate(" ".join(text.split()), QUOTE_CHARS))


# -- hidden HTML --------------------------------------------------------------------------

_STYLE_HIDDEN = (
    (re.compile(r"display\s*:\s*none", re.I), "display:none"),
    (re.compile(r"visibility\s*:\s*(?:hidden|collapse)", re.I), "visibility:hidden"),
    (re.compile(r"(?<![\w-])opacity\s*:\s*0(?:\.0*)?\s*(?:;|$|!)", re.I), "opacity:0"),
    (re.compile(r"font-size\s*:\s*0(?:\.0*)?(?:px|pt|em|rem|%)?\s*(?:;|$|!)", re.I),
     "font-size:0"),
    (re.compile(r"(?<![\w-])color\s*:\s*(?:#fff(?:fff)?\b|white\b|transparent\b|"
                r"rgba?\(\s*255\s*,\s*255\s*,\s*255\s*(?:,\s*[\d.]+\s*)?\))", re.I),
     "white text"),
    (re.compile(r"(?:left|top|text-indent)\s*:\s*-\d{3,}", re.I), "moved off the page"),
)


def hidden_reason(attrs: Mapping[str, Any]) -> str | None:
    """Why an HTML element with these attributes is not shown to a reader, or None.

    White text counts as hidden; abstain does not resolve stylesheets, so only
    inline ``style`` attributes and the attributes themselves are read."""
    if "hidden" in attrs:
        return "hidden attribute"
    if str(attrs.get("aria-hidden", "")).strip().lower() == "true":
        return 'aria-hidden="true"'
    style = str(attrs.get("style", ""))
    for pattern, why in _STYLE_HIDDEN:
        if pattern.search(style) and not (why == "white text" and "background" in style):
            return why
    return None


# -- invisible characters --------------------------------------------------------------------

_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
                        "\ufeff\U000e0000-\U000e007f]")


def invisible(text: str) -> Dropped | None:
    """The invisible characters of ``text`` (which cleaning removes), counted; None if none."""
    found = _INVISIBLE.findall(text)
    if not found:
        return None
    smuggled = "".join(chr(ord(c) - 0xE0000) for c in found if 0xE0020 <= ord(c) <= 0xE007E)
    why = f"{len(found)} character{'s' if len(found) != 1 else ''}"
    return dropped(DropKind.INVISIBLE, why, smuggled)
