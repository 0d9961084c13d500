"""Man pages (``fd.1``, ``fzf.1``, ``ssh.1``: roff with the man(7) or mdoc(7) macros) into
typed blocks.

Written here: no Python library reads roff's macros into structure (groff and mandoc
render them for a terminal, which loses the structure: the question writers of
``data/userdocs`` rendered fd's and fzf's pages to text with ``man -l | col -b``). What the
reader does with each request:

    .TH name section / .Dt    the page's title, "name(section)"
    .SH / .SS (.Sh / .Ss)     headings (the text on the next line when the request has none)
    .PP .P .LP .sp, a blank   a paragraph ends (.br too, outside a definition)
      line (.Pp)
    .TP / tag line            a definition: the tag, then its text (an untagged .IP after it
                              goes on with it; help2man's .HP / tag / .IP, docbook's .PP /
                              tag / .RS too)
    .IP tag (.It in .Bl)      a definition; a list item when the tag is a bullet or a number
    .nf … .fi, .EX … .EE,     code; lines that start with a space too
      .Vb … .Ve, .Bd -literal
    .B .I .BR .IR .RB …       text (alternating fonts joined without spaces: ".BR find (1)")
    .if / .ie … \\{ … \\}       nroff-only branches and the preambles' tests left out, .el kept
    .\\" .de … .. .ig … ..      left out, as are the other requests

mdoc's inline macros read as their text (``Fl v`` "-v", ``Xr ssh 1`` "ssh(1)", ``Op``
brackets), and the escapes too: ``\\-`` is "-", ``\\(bu`` "•", ``\\[u00E9]`` "é", ``\\(:a``
"ä", fonts, sizes, motions and registers nothing. A file named like a man page that holds no
man macros (``app.log.1``) is refused (:func:`abstain.ingest.parse.parse_file`).
"""

from __future__ import annotations

import re
import unicodedata

from abstain.ingest.blocks import (
    ParsedDocument,
    SectionBuilder,
    code,
    definition,
    list_item,
    paragraph,
    table_row,
)

_REQUEST = re.compile(r"[.'][ \t]*([A-Za-z][\w]{0,15}|\\\"|\\#|\\}|\.)(?:[ \t]+(.*))?")
_FONTS = frozenset({"B", "I", "SM", "SB", "BR", "BI", "IB", "IR", "RB", "RI", "R"})
_BREAKS = frozenset({"PP", "P", "LP", "sp", "HP", "TP", "TQ", "IP", "SH", "SS", "RS", "RE",
                     "nf", "EX", "Vb", "TH", "br"})
_DEFINED = frozenset({"de", "de1", "am", "am1", "ig", "dei", "ami"})
_CONDITIONS = frozenset({"if", "ie", "el"})
_STRINGS = frozenset({"ds", "ds1", "as", "as1"})
_STRING = re.compile(r"\\\*(?:\((..)|\[([^\]\s]{1,20})\]|([^(\[]))")
_TYPESET_QUOTES = {"``": "“", "''": "”"}
"""A string that is a typesetter's double quotes (pod2man's ``\\*(L"``, ``\\*(R"``) as the
quotes it sets; a single quote stays one (docbook's ``\\*(Aq`` in code)."""
_BOLD_FORMAT = re.compile(r"(?i)(?<![\w(])[lrcna][^\s.]*?b")
"""A tbl format line whose columns are bold (``lB``, ``lb``, ``cbw(3i)``): the header's."""
MAX_TABLE_LINES = 5_000
"""A tbl table is read to its ``.TE`` within this many lines."""
MAX_STRINGS = 500
MAX_STRING_CHARS = 500
MAX_STRING_DEPTH = 3
MAX_LINE_CHARS = 20_000
"""Bounds on a page's strings: how many, how long, how deep one holds another, and the
line they expand (a hostile page cannot grow a line without bound)."""
_POD2MAN = {"Sp": "sp", "Ip": "IP"}
"""pod2man's own macros, defined in its preamble, as the requests they stand for (its
``.Vb`` / ``.Ve`` open and close code as they are)."""
_BULLET = re.compile(r"[•○□]|[-*o+·]|\d{1,3}[.)]|[a-z][.)]|\(?[ivx]{1,4}\)")
"""An ``.IP`` tag that only numbers or marks an item ("1.", "a)", "•"); a bare number is a
term ("0" of an exit status list)."""
_NAMED = {"bu": "•", "ci": "○", "sq": "□", "em": "—", "en": "–", "aq": "'", "dq": '"',
          "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "ti": "~", "ha": "^", "rs": "\\",
          "mi": "-", "hy": "-",
          "co": "©", "rg": "®", "tm": "™", "de": "°", "mu": "×", "<=": "≤", ">=": "≥",
          "->": "→", "<-": "←", "ga": "`", "at": "@", "sh": "#", "Do": "$", "dol": "$",
          "lB": "[", "rB": "]", "lC": "{", "rC": "}", "ba": "|", "bv": "|", "Aq": "'",
          "Dq": '"', "pl": "+", "eq": "=", "sl": "/", "fo": "«", "fc": "»", "ss": "ß",
          "Eu": "€", "eu": "€", "Po": "£", "Ye": "¥", "ct": "¢", "sc": "§", "ps": "¶",
          "12": "½", "14": "¼", "34": "¾", "R": "®", "Tm": "™", "lq*": "“", "rq*": "”"}
_ACCENTS = {":": "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
            ",": "\u0327", "o": "\u030a", "v": "\u030c"}
_ESCAPE = re.compile(
    r"\\(?:f(?:\[[^\]]{0,20}\]|\(..|.)"  # fonts
    r"|\[u([0-9A-Fa-f]{4,6})((?:_[0-9A-Fa-f]{4,6}){0,3})\]"  # \[u00E9]
    r"|\(([^\s]{2})|\[([^\]\s]{1,20})\]"  # \(bu, \[bu]
    r"|\*(?:\((..)|\[([^\]]{1,20})\]|(.))"  # strings
    r"|N'(\d{1,7})'"  # \N'233'
    r"|[hvwXoDlLbxSHZRCBAeE]?'[^'\n]{0,200}'"  # escapes with a quoted argument
    r"|[mMnFgkYV](?:\[[^\]]{0,40}\]|\(..|[-+]?.)"  # colours, registers, …
    r"|s(?:\[[-+]?\d{1,3}\]|\([-+]?\d{2}|[-+]?\d{1,2})"  # sizes
    r"|\$.|[&|^c:%,/){}!udtpraz0]|([-e\\ ~'`.]))")
_COMMENT = re.compile(r"\\[\"#].*$")
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


def _block_end(lines: list[str], i: int, name: str, args: list[str]) -> int:
    """The index after the line that ends a macro definition or an ignored block opened at
    ``i - 1`` (``..``, or the end name it gives); ``i`` when none does (only the request
    is left out)."""
    end_name = args[1] if name != "ig" and len(args) > 1 else (
        args[0] if name == "ig" and args else "")
    end = re.compile(rf"[.'][ \t]*{re.escape(end_name)}[ \t]*" if end_name
                     else r"[.'][ \t]*\.[ \t]*")
    return next((j + 1 for j in range(i, len(lines)) if end.fullmatch(lines[j].rstrip())), i)


def _brace_end(lines: list[str], i: int, first: str) -> int:
    """The index after the line closing the ``\\{`` opened on line ``i - 1`` (its rest
    ``first``); ``i`` when the braces close on that line."""
    depth = first.count("\\{") - first.count("\\}")
    j = i
    while depth > 0 and j < len(lines):
        depth += lines[j].count("\\{") - lines[j].count("\\}")
        j += 1
    return j


class _Reader:
    def __init__(self) -> None:
        self.builder = SectionBuilder()
        self.title = ""
        self.text: list[str] = []  # the running paragraph or definition text
        self.tag: str | None = None  # the open definition's term ("" for a list item)
        self.code: list[str] | None = None  # in .nf / .EX / .Vb / .Bd -literal: its lines
        self.code_ends: tuple[str, ...] = ()
        self.hanging = False  # after .HP or .PP: a one-line paragraph may be a tag
        self.lists: list[bool] = []  # mdoc .Bl lists open: whether each is tagged
        self.name = ""  # mdoc's .Nm
        self.extending = False  # an mdoc item's tag goes on over lines (.It Xo … .Xc)
        self.strings: dict[str, str] = {}  # .ds: the page's own strings, by name

    def read(self, lines: list[str]) -> None:
        i = 0
        expect_tag = expect_heading = False
        pending: list[str] = []  # what a kept conditional holds, read next
        while i < len(lines) or pending:
            if pending:
                line = pending.pop()
            else:
                line = lines[i]
                i += 1
            if self.strings and "\\*" in line:
                line = self.expand(line)
            request = _REQUEST.fullmatch(line.rstrip()) if line[:1] in ".'" else None
            if request is None:
                if self.code is not None:
                    self.code.append(_text(line))
                elif not line.strip():
                    self.end()  # a blank line breaks
                elif expect_heading:
                    self.heading(1, _text(line))
                    expect_heading = False
                elif expect_tag:
                    self.start(_text(line))
                    expect_tag = False
                elif line.startswith((" ", "\t")):  # a line that starts with a space breaks
                    i = self.literal(lines, i - 1)
                else:
                    self.text.append(_text(line))
                continue
            name, args = request[1], request[2] or ""
            if name in ('\\"', "\\#", ".", "\\}"):
                continue
            if name in _STRINGS:
                self.define(name, args)
                continue
            if name == "TS" and self.code is None:
                i = self.table(lines, i)
                continue
            if name in _DEFINED:
                i = _block_end(lines, i, name[:2], _arguments(args))
                continue
            if name in _CONDITIONS:
                i, kept = self.condition(lines, i, name, args)
                if kept:
                    pending.append(kept)
                continue
            if self.code is not None:
                if name in self.code_ends:
                    self.builder.add(code("\n".join(self.code)))
                    self.code = None
                elif name in _FONTS and args:  # ".B make" in an example: its text
                    self.code.append(_fonts(name, args))
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
            if name in ("UR", "MT", "UE", "ME"):
                if name in ("UE", "ME") and args:
                    self.text.append(_text(args))
                continue  # the link's text is the lines between; its address is left out
            name = _POD2MAN.get(name, name)
            if name in _BREAKS:
                if name in ("SH", "SS") and not args.strip():
                    self.end()
                    expect_heading = True
                    continue
                expect_tag = self.request(name, args, expect_tag)
                continue
            if name in _MDOC:
                expect_heading = self.mdoc(name, args)
                continue
            # any other request (.in, .ad, .ft, .so, .nh, .INDENT …) says nothing
        self.end()
        if self.code is not None:
            self.builder.add(code("\n".join(self.code)))

    def table(self, lines: list[str], i: int) -> int:
        """A tbl table (``.TS`` … ``.TE``) from line ``i``: its rows, the first one as the
        header when the format sets it apart (bold, ``lB``), it is in bold or a rule is drawn
        under it; the index after
        ``.TE`` (the end of the page when none closes it, at most :data:`MAX_TABLE_LINES`)."""
        stop = min(len(lines), i + MAX_TABLE_LINES)
        end = next((j for j in range(i, stop) if lines[j][:1] in ".'" and (
            request := _REQUEST.fullmatch(lines[j].rstrip())) is not None and request[1] == "TE"),
                   None)
        body = lines[i:stop if end is None else end]
        self.end()
        tab = "\t"
        if body and body[0].rstrip().endswith(";"):  # options: "tab(;) box;"
            found = re.search(r"tab\s*\((.)\)", body[0])
            tab = found[1] if found else tab
            body = body[1:]
        formats: list[str] = []
        while body:
            formats.append(body.pop(0))
            if formats[-1].rstrip().endswith("."):
                break
        rows: list[list[str]] = []
        bold: list[bool] = []
        cell: list[str] | None = None  # the lines of an open T{ … T} text block
        ruled = False
        for line in body:
            if cell is not None:
                if not line.startswith("T}"):
                    request = _REQUEST.fullmatch(line.rstrip()) if line[:1] in ".'" else None
                    cell.append(_text(line) if request is None else _fonts(
                        request[1], request[2] or "") if request[1] in _FONTS else "")
                    continue
                rows[-1].append(" ".join(t for t in cell if t))
                cell, rest = None, line[2:].split(tab)[1:]
            elif line.strip() in ("_", "="):
                ruled = ruled or len(rows) == 1  # a rule under the first row: the header's
                continue
            elif not line.strip() or line[:1] in ".'":
                continue
            else:
                rows.append([])
                bold.append(line.lstrip().startswith("\\fB"))
                rest = line.split(tab)
            if rest and rest[-1].strip() == "T{":
                rest, cell = rest[:-1], []
            rows[-1] += [_text(c) for c in rest]
        if rows:
            headed = len(rows) > 1 and (bold[0] or ruled or (
                len(formats) > 1 and _BOLD_FORMAT.search(formats[0]) is not None))
            header, data = (rows[0], rows[1:]) if headed else ([], rows)
            for row in data:
                self.builder.add(table_row(header, row))
        return stop if end is None else end + 1

    def define(self, name: str, args: str) -> None:
        """``.ds`` / ``.as``: a string of the page (``.ds We top``), or more of one."""
        parts = args.split(None, 1)
        if not parts or len(self.strings) >= MAX_STRINGS:
            return
        value = parts[1].removeprefix('"') if len(parts) > 1 else ""
        value = _TYPESET_QUOTES.get(value.strip(), value)
        if name.startswith("as"):
            value = self.strings.get(parts[0], "") + value
        self.strings[parts[0]] = value[:MAX_STRING_CHARS]

    def expand(self, line: str) -> str:
        """``line`` with the page's strings in place of their references (``\\*(We``,
        ``\\*=``, ``\\*[name]``); a string that names none stays, for the glyphs (``\\*R``).
        A string may hold another: expanded :data:`MAX_STRING_DEPTH` deep, no more, and at
        most :data:`MAX_LINE_CHARS` of strings in all."""
        budget = MAX_LINE_CHARS

        def one(match: re.Match[str]) -> str:
            nonlocal budget
            value = self.strings.get(match[1] or match[2] or match[3])
            if value is None:
                return match[0]
            budget -= len(value)
            return value if budget >= 0 else ""

        line = line[:MAX_LINE_CHARS]
        for _ in range(MAX_STRING_DEPTH):
            expanded = _STRING.sub(one, line)
            if expanded == line:
                break
            line = expanded
        return line

    def condition(self, lines: list[str], i: int, name: str, args: str) -> tuple[int, str]:
        """``.if`` / ``.ie`` / ``.el``: the index to go on from, and what of it to read (a
        line, or "" for nothing). nroff's branches and the preambles' register and string
        tests are left out; ``t`` (typesetter) branches and ``.el`` are read."""
        if name == "el":
            condition, rest = "t", args
        else:
            parts = args.split(None, 1)
            condition, rest = (parts[0], parts[1] if len(parts) > 1 else "") if parts else (
                "", "")
        keep = condition in ("t", "!n")
        if rest.lstrip().startswith("\\{"):
            body = rest.lstrip()[2:].lstrip("\\").strip()
            if keep:
                return i, body
            return _brace_end(lines, i, rest), ""
        return i, rest.strip() if keep else ""

    def mdoc(self, name: str, args: str) -> bool:
        """One mdoc request; whether the heading it opens is on the next line."""
        if name == "Dt":
            parts = _arguments(args)
            if parts:
                self.title = (f"{parts[0].lower()}({parts[1]})" if len(parts) > 1
                              else parts[0].lower())
        elif name in ("Sh", "Ss"):
            self.end()
            if not args.strip():
                return True
            self.heading(1 if name == "Sh" else 2, _mdoc_text(args, self.name))
        elif name in ("Pp", "Lp"):
            self.end()
        elif name == "Nm" and not self.name and args.strip():
            self.name = _mdoc_text(args, "")
            self.text.append(self.name)
        elif name == "Nd":
            self.text.append("- " + _mdoc_text(args, self.name))
        elif name == "Bl":
            self.end()
            self.lists.append(bool(re.search(r"-(?:tag|ohang|inset|hang|diag|column)", args)))
        elif name == "El":
            self.end()
            if self.lists:
                self.lists.pop()
        elif name == "It":
            self.end()
            tagged = self.lists[-1] if self.lists else True
            self.tag = _mdoc_text(args, self.name) if tagged else ""
            self.extending = tagged and "Xo" in args.split()  # the tag goes on to .Xc
        elif name in ("Bd", "Dl", "D1"):
            self.end()
            if name == "Bd" and re.search(r"-(?:literal|unfilled|code)", args):
                self.code, self.code_ends = [], ("Ed",)
            elif name != "Bd":
                self.builder.add(code(_mdoc_text(args, self.name)) if name == "Dl"
                                 else paragraph(_mdoc_text(args, self.name)))
        elif name in ("Ed", "Dd", "Os", "Ek", "Bk", "Ns"):
            pass
        elif self.extending and self.tag is not None:  # a tag's next line, to .Xc
            self.tag = f"{self.tag} {_mdoc_text(f'{name} {args}', self.name)}".strip()
            self.extending = name != "Xc" and "Xc" not in args.split()
        else:  # an inline macro on its own line (".Fl v", ".Xr ssh 1", ".Ar file")
            self.text.append(_mdoc_text(f"{name} {args}", self.name))
        return False

    def request(self, name: str, args: str, expect_tag: bool) -> bool:
        """A man(7) request that breaks the text; whether a tag line is expected next."""
        hanging, self.hanging = self.hanging, name in ("HP", "PP", "P", "LP")
        if name == "TH":
            parts = _arguments(args)
            if parts:
                self.title = f"{_text(parts[0])}({parts[1]})" if len(parts) > 1 else _text(
                    parts[0])
            return False
        if name in ("SH", "SS"):
            self.end()
            self.heading(1 if name == "SH" else 2, " ".join(_text(a) for a in _arguments(args)))
            return False
        if name in ("nf", "EX", "Vb"):
            self.end()
            self.code, self.code_ends = [], {"nf": ("fi",), "EX": ("EE",), "Vb": ("Ve",)}[name]
            return False
        if name == "br":
            if self.tag is None:
                self.end_paragraph()
            return expect_tag
        if name in ("TP", "TQ"):
            if self.tag is not None and not self.text:
                return True  # another tag over the same text (.TQ, or .PD 0 between)
            self.end()
            return True
        if name == "IP":
            parts = _arguments(args)
            tag = _text(parts[0]) if parts else ""
            if not tag:
                if self.tag is None and hanging and _a_tag(self.text):
                    self.tag, self.text = self.text[0], []  # help2man's .HP tag / .IP text
                elif self.tag is None:
                    self.end_paragraph()
                return False  # an untagged .IP goes on with the open definition
            if _BULLET.fullmatch(tag.strip()):
                self.end()
                self.start("")
            else:  # a term right after another, no text between (pod2man's .PD 0): one text
                self.start(tag)
            return False
        if name == "RS":
            if self.tag is None and hanging and _a_tag(self.text):
                self.tag, self.text = self.text[0], []  # docbook's .PP / option / .RS text
            elif self.tag is None:
                self.end_paragraph()
            return expect_tag
        self.end()  # .RE .PP .P .LP .sp .HP
        return False

    def heading(self, level: int, text: str) -> None:
        self.end()
        self.builder.heading(level, text)

    def literal(self, lines: list[str], i: int) -> int:
        """Lines that start with a space, from ``i``, as code; the index after them."""
        end = i
        while end < len(lines) and lines[end].startswith((" ", "\t")) and lines[end].strip():
            end += 1
        self.end()
        block = [_text(s) for s in lines[i:end]]
        indent = min(len(s) - len(s.lstrip()) for s in block)
        self.builder.add(code("\n".join(s[indent:] for s in block)))
        return end

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


def _a_tag(text: list[str]) -> bool:
    """Whether a paragraph's text is a tag a following indented text describes: one short
    line that ends no sentence ("-f, --force"; an argument's ellipsis, systemctl's "mask
    UNIT...", ends none)."""
    return (len(text) == 1 and len(text[0].split()) <= 10
            and not text[0].rstrip().removesuffix("...").removesuffix("…").endswith(
                (".", ":", ";", "?", "!")))


_ARGUMENT = re.compile(r'"((?:[^"]|"")*)"?|((?:\\ |\S)+)')


def _arguments(args: str) -> list[str]:
    """A request's arguments: separated by spaces, a double-quoted one may hold spaces
    (``""`` is a quote in it), an escaped space (``\\ ``) is no separator."""
    return [m[1].replace('""', '"') if m[1] is not None else m[2]
            for m in _ARGUMENT.finditer(args[:10_000])]


def _fonts(name: str, args: str) -> str:
    """A font request's text: ``.B`` and ``.I`` words with spaces, the alternating ones
    (``.BR``, ``.IR`` …) joined without."""
    parts = [_text(a) for a in _arguments(args)]
    return ("" if len(name) == 2 and name not in ("SM", "SB") else " ").join(parts)


_MDOC_WORDS = frozenset({"Ar", "Cm", "Pa", "Ev", "Va", "Li", "Em", "Sy", "No", "Ic", "Dv", "Er",
                         "Fn", "Fa", "Ft", "Ql", "Tn", "Ad", "Ms", "Mt", "Lk", "Cd", "In", "Vt",
                         "Ot", "Fo", "Fc", "Ap", "Sx", "Tg", "Lb", "Ex", "Rv", "At", "An",
                         "Xo", "Xc"})
_MDOC_FIXED = {"Ux": "UNIX", "Bx": "BSD", "Fx": "FreeBSD", "Nx": "NetBSD", "Ox": "OpenBSD",
               "Dx": "DragonFly", "Oo": "[", "Oc": "]", "Po": "(", "Pc": ")", "Do": "“",
               "Dc": "”", "So": "‘", "Sc": "’", "Qo": '"', "Qc": '"', "Bo": "[", "Bc": "]"}
_MDOC_WRAPS = {"Op": ("[", "]"), "Dq": ("“", "”"), "Sq": ("‘", "’"), "Pq": ("(", ")"),
               "Qq": ('"', '"'), "Bq": ("[", "]"), "Brq": ("{", "}"), "Aq": ("<", ">")}


def _mdoc_text(args: str, name: str) -> str:
    """An mdoc line's words with its inline macros read: ``Fl v Ar file`` "-v file",
    ``Xr ssh 1`` "ssh(1)", ``Op Fl q`` "[-q]", ``Nm`` the page's name."""
    words = [_text(a) for a in _arguments(args)]
    out: list[str] = []
    glue = False  # the next word joins the last without a space
    closing: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        at += 1
        piece: str | None = None
        if word == "Fl":
            nxt = words[at] if at < len(words) and not _is_mdoc_macro(words[at]) else ""
            at += bool(nxt)
            piece = "-" + nxt
        elif word == "Xr" and at + 1 < len(words):
            piece, at = f"{words[at]}({words[at + 1]})", at + 2
        elif word == "Nm":
            piece = name if at >= len(words) or _is_mdoc_macro(words[at]) else None
        elif word in ("Ns", "Pf"):
            glue = True
            continue
        elif word in _MDOC_FIXED:
            piece = _MDOC_FIXED[word]
            if word in ("Oo", "Po", "Do", "So", "Qo", "Bo"):  # an opening: the next word joins
                if glue and out:
                    out[-1] += piece
                else:
                    out.append(piece)
                glue = True
                continue
            if word in ("Oc", "Pc", "Dc", "Sc", "Qc", "Bc") and out:  # a closing joins
                out[-1] += piece
                continue
        elif word in _MDOC_WRAPS:
            opening, close = _MDOC_WRAPS[word]
            out.append(opening)
            closing.append(close)
            glue = True
            continue
        elif word in _MDOC_WORDS:
            continue
        else:
            piece = word
        if piece is None:
            continue
        if piece in (".", ",", ";", ":", ")", "]", "?", "!") and out:
            glue = True  # closing punctuation joins the word before it
        if glue and out:
            out[-1] += piece
        else:
            out.append(piece)
        glue = False
    text = " ".join(out)
    return text + "".join(reversed(closing))


_MDOC = frozenset({"Dt", "Sh", "Ss", "Pp", "Lp", "Nm", "Nd", "Bl", "El", "It", "Bd", "Ed",
                   "Dl", "D1", "Dd", "Os", "Ek", "Bk", "Ns", "Fl", "Xr", "Pf", "Xc",
                   *_MDOC_WORDS, *_MDOC_FIXED, *_MDOC_WRAPS})
"""The mdoc requests read (any other two-letter request says nothing)."""


def _is_mdoc_macro(word: str) -> bool:
    return word in _MDOC_WORDS or word in _MDOC_FIXED or word in _MDOC_WRAPS or word in (
        "Fl", "Xr", "Nm", "Ns", "Pf")


def _text(line: str) -> str:
    """A line's words, its escapes read (``\\-`` "-", ``\\(bu`` "•", fonts nothing)."""
    def escape(match: re.Match[str]) -> str:
        if match[1] is not None:  # \[u00E9], with combining marks \[u0065_0301]
            chars = [match[1], *match[2].split("_")[1:]]
            return unicodedata.normalize("NFC", "".join(chr(int(c, 16)) for c in chars))
        named = match[3] or match[4] or match[5] or match[6] or match[7]
        if named is not None:
            return _glyph(named)
        if match[8] is not None:
            number = int(match[8])
            return chr(number) if number < 0x110000 else ""
        plain = match[9]
        if plain is None:
            return ""
        return {"e": "\\", "\\": "\\", " ": " ", "~": " ", "'": "'", "`": "`",
                ".": "."}.get(plain, plain)

    return _ESCAPE.sub(escape, _COMMENT.sub("", line))


def _glyph(name: str) -> str:
    """A named character: ``bu`` "•", an accented letter (``:a`` "ä", ``'e`` "é")."""
    if name in _NAMED:
        return _NAMED[name]
    if len(name) == 2 and name[0] in _ACCENTS and name[1].isalpha():
        return unicodedata.normalize("NFC", name[1] + _ACCENTS[name[0]])
    return ""
