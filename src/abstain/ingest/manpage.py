"""Man pages (``fd.1``, ``fzf.1``, ``git-lfs.5``: roff with the man(7) macros) into typed
blocks.

Written here: no Python library reads roff's man macros into structure (groff and mandoc
render them for a terminal, which loses the structure: the question writers of
``data/userdocs`` rendered fd's and fzf's pages to text with ``man -l | col -b``). What the
reader does with each macro:

    .TH name section          the page's title, "name(section)"
    .SH / .SS                 headings
    .PP .P .LP .sp            a paragraph ends
    .TP / tag line            a definition: the tag, then the text up to the next paragraph
                              (an untagged .IP after it goes on with its text; help2man's
                              .HP / tag line / .IP too)
    .IP tag                   a definition; a list item when the tag is a bullet or a number
    .nf … .fi, .EX … .EE      code
    .B .I .BR .IR .RB …       text (alternating fonts joined without spaces: ".BR find (1)")
    .UR url … .UE             the link's text
    .\\" comments, .de/.ig … ..  left out, as are .RS/.RE, .br and the other requests

and the escapes: ``\\-`` is "-", ``\\(bu`` "•", ``\\fB``/``\\fI``/``\\fR`` nothing, ``\\(aq`` "'" …
A file named like a man page that holds no man macros (``app.log.1``) is refused
(:func:`abstain.ingest.parse.parse_file`).
"""

from __future__ import annotations

import re

from abstain.ingest.blocks import (
    ParsedDocument,
    SectionBuilder,
    code,
    definition,
    list_item,
    paragraph,
)

_REQUEST = re.compile(r"[.'][ \t]*([A-Za-z][A-Za-z0-9]{0,3}|\\\"|\.)(?:[ \t]+(.*))?")
_FONTS = frozenset({"B", "I", "SM", "SB", "BR", "BI", "IB", "IR", "RB", "RI", "R"})
_BREAKS = frozenset({"PP", "P", "LP", "sp", "HP", "TP", "TQ", "IP", "SH", "SS", "RS", "RE",
                     "nf", "EX", "TH", "Pp", "Sh", "Ss", "It", "Bl", "El", "Dl", "Bd", "Ed"})
_SKIPPED_BLOCKS = frozenset({"de", "ig", "am", "ds", "if", "ie", "el"})
_BULLET = re.compile(r"\\\[bu\]|\\\(bu|•|[-*o]|\d{1,3}[.)]?|[a-z][.)]")
_NAMED = {"bu": "•", "em": "—", "en": "–", "aq": "'", "dq": '"', "lq": "“", "rq": "”",
          "oq": "‘", "cq": "’", "ti": "~", "ha": "^", "rs": "\\", "mi": "-", "hy": "-",
          "co": "©", "rg": "®", "tm": "™", "de": "°", "mu": "×", "<=": "≤", ">=": "≥",
          "->": "→", "<-": "←", "ga": "`", "at": "@", "sh": "#", "dol": "$", "lB": "[",
          "rB": "]", "lC": "{", "rC": "}", "ba": "|", "bv": "|", "Aq": "'", "Dq": '"',
          "pl": "+", "eq": "=", "sl": "/", "fo": "«", "fc": "»"}
_ESCAPE = re.compile(r"\\(?:f(?:\[[^\]]{0,20}\]|\(..|.)|\(([^\s]{2})|\[([^\]\s]{1,20})\]"
                     r"|\*(?:\((..)|\[([^\]]{1,20})\]|(.))|s[-+]?\d{1,2}|[&|^c:%,/){}]"
                     r"|([-e\\ ~0'`.]))")
MAN_MACROS = re.compile(r"^[.'][ \t]*(?:TH|SH|Dd|Sh)\b", re.M)
"""What tells a man page: a title (``.TH``) or section (``.SH``) request, or mdoc's
``.Dd`` / ``.Sh``, among its first lines."""


def is_man_page(text: str) -> bool:
    return MAN_MACROS.search(text[:20_000]) is not None


def parse_man(text: str, *, fallback_title: str) -> ParsedDocument:
    """The page's sections (:mod:`abstain.ingest.manpage`)."""
    reader = _Reader()
    reader.read(text.replace("\r\n", "\n").split("\n"))
    return ParsedDocument(title=reader.title or reader.builder.first_heading or fallback_title,
                          sections=reader.builder.build())


class _Reader:
    def __init__(self) -> None:
        self.builder = SectionBuilder()
        self.title = ""
        self.text: list[str] = []  # the running paragraph or definition text
        self.tag: str | None = None  # the open definition's term ("" for a list item)
        self.code: list[str] | None = None  # in .nf / .EX: its lines
        self.hanging = False  # the last break was .HP: its one line may tag an .IP

    def read(self, lines: list[str]) -> None:
        i = 0
        expect_tag = False
        skip_until = ""
        while i < len(lines):
            line = lines[i]
            i += 1
            if skip_until:
                if line.strip() == skip_until:
                    skip_until = ""
                continue
            request = _REQUEST.fullmatch(line.rstrip())
            if request is None:
                if self.code is not None:
                    self.code.append(_text(line))
                elif expect_tag:
                    self.start(_text(line))
                    expect_tag = False
                elif line.strip():
                    self.text.append(_text(line))
                continue
            name, args = request[1], request[2] or ""
            if name in ('\\"', "."):
                continue
            if name in _SKIPPED_BLOCKS:
                if name in ("de", "ig", "am"):
                    skip_until = ".." if name != "ig" or not args.strip() else f".{args.strip()}"
                continue
            if self.code is not None and name not in ("fi", "EE"):
                if name in _FONTS and args:  # ".B make" in an example: its text
                    self.code.append(_fonts(name, args))
                continue
            if name in ("fi", "EE"):
                if self.code is not None:
                    self.builder.add(code("\n".join(self.code)))
                    self.code = None
                continue
            if name in _FONTS:
                said = _fonts(name, args) if args else ""
                if not args and i < len(lines):  # ".B" alone: the next line in that font
                    said, i = _text(lines[i]), i + 1
                if expect_tag:
                    self.start(said)
                    expect_tag = False
                else:
                    self.text.append(said)
                continue
            if name in ("UR", "MT"):
                continue  # the link's text follows; its address is left out
            if name in ("UE", "ME"):
                if args:
                    self.text.append(_text(args))
                continue
            if name == "br":
                continue
            if name in _BREAKS:
                expect_tag = self.request(name, args, expect_tag)
                continue
            # any other request (.in, .ad, .ft, .so, .nh …) says nothing

        self.end()

    def request(self, name: str, args: str, expect_tag: bool) -> bool:
        """A request that breaks the text; whether a tag line is expected next."""
        if name == "TH":
            parts = _arguments(args)
            if parts:
                self.title = f"{_text(parts[0])}({parts[1]})" if len(parts) > 1 else _text(
                    parts[0])
            return False
        if name in ("SH", "SS", "Sh", "Ss"):
            self.end()
            self.builder.heading(1 if name in ("SH", "Sh") else 2,
                                 " ".join(_text(a) for a in _arguments(args)))
            return False
        if name in ("nf", "EX"):
            self.end()
            self.code = []
            return False
        if name in ("TP", "TQ"):
            if name == "TQ" and self.tag is not None and not self.text:
                return True  # another tag over the same text
            self.end()
            return True
        hanging, self.hanging = self.hanging, name == "HP"
        if name == "IP":
            parts = _arguments(args)
            tag = _text(parts[0]) if parts else ""
            if not tag:
                if self.tag is None and hanging and len(self.text) == 1:
                    self.tag, self.text = self.text[0], []  # help2man's .HP tag / .IP text
                elif self.tag is None:
                    self.end_paragraph()
                return False  # an untagged .IP goes on with the open definition
            self.end()
            self.start("" if _BULLET.fullmatch(parts[0].strip()) else tag)
            return False
        if name in ("RS", "RE"):
            return expect_tag
        self.end()  # .PP .P .LP .sp .HP
        return False

    def start(self, tag: str) -> None:
        if self.tag is not None and not self.text:  # .TQ: the terms of one text
            self.tag = f"{self.tag}, {tag}" if self.tag else tag
            return
        self.end()
        self.tag = tag

    def end_paragraph(self) -> None:
        if self.text:
            self.builder.add(paragraph(" ".join(self.text)))
        self.text = []

    def end(self) -> None:
        if self.tag is None:
            self.end_paragraph()
            return
        said = " ".join(self.text)
        if self.tag:
            self.builder.add(definition(self.tag, said))
        else:
            self.builder.add(list_item(said))
        self.tag = None
        self.text = []


_ARGUMENT = re.compile(r'"((?:[^"]|"")*)"?|((?:\\ |\S)+)')


def _arguments(args: str) -> list[str]:
    """A request's arguments: separated by spaces, a double-quoted one may hold spaces
    (``""`` is a quote in it), an escaped space (``\\ ``) is no separator."""
    return [m[1].replace('""', '"') if m[1] is not None else m[2]
            for m in _ARGUMENT.finditer(args)]


def _fonts(name: str, args: str) -> str:
    """A font request's text: ``.B`` and ``.I`` words with spaces, the alternating ones
    (``.BR``, ``.IR`` …) joined without."""
    parts = [_text(a) for a in _arguments(args)]
    return ("" if len(name) == 2 and name not in ("SM", "SB") else " ").join(parts)


def _text(line: str) -> str:
    """A line's words, its escapes read (``\\-`` "-", ``\\(bu`` "•", fonts nothing)."""
    def escape(match: re.Match[str]) -> str:
        named = match[1] or match[2] or match[3] or match[4]
        if named is not None:
            return _NAMED.get(named, "")
        if match[5] is not None:
            return _NAMED.get(match[5], "")
        plain = match[6]
        if plain is None:
            return ""
        return {"e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "'": "'", "`": "`",
                ".": "."}.get(plain, plain)

    return _ESCAPE.sub(escape, line)
