"""Sentences: cleaning, splitting and truncating text.

One sentence splitter serves chunking, the extractive answerer, the reader's windows, the
verifier and the gate, so that "a sentence" means the same thing everywhere:

* a chunk holds one block per line (docs/INGEST.md): a list item, definition or table
  row line is one unit, never cut into sentences (up to :data:`UNIT_CHARS`), a code block
  between ``FENCE`` lines is one unit, and no sentence runs over a line end;
* sentences come from ``sentencex`` (Wikimedia's rule-based segmenter: it knows
  abbreviations and splits CJK text after 。！？ without any whitespace), run per
  line, so paragraphs, headings and list items never run into each other.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import sentencex

FENCE = "```"
"""Opens and closes a code block in chunk text."""
UNIT_CHARS = 300
"""A list item, definition or table row up to this long is one unit; a longer one is read
sentence by sentence."""
_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s+(?:\[[ xX]\]\s)?")
"""A list item's marker, with a task list's checkbox ("- [ ] Connect to the Wi-Fi")."""
_TERM = re.compile(r"((?![A-Z][a-z]*:)[^\s:;]{1,60}):\s(?!.*;\s\S[^;]*:\s)")
"""A definition's term: one word, identifier or option before a colon ("server_name: …",
"--max-delete: …"); not a capitalised plain word ("Note: …", a row's "Name: …") nor a table
row ("- Name: max_workers; Type: int")."""
_UNDERLINE = re.compile(r"\s*[-=~^]{3,}\s*")
_WS = re.compile(r"[ \t\r\f\v]+")
_INNER_DOT = re.compile(r"(?<=\w)\.(?=\w)|(?<=\b[eE]\.[gG])\.|(?<=\b[iI]\.[eE])\.|(?<=\betc)\."
                        r"(?=\s+[a-z(])|(?<=\bvs)\.|(?<=\bcf)\.")
_MONTHS = ("Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November"
           "|Dezember")
_ORDINAL = re.compile(
    rf"(?<![\w.])(\d{{1,2}})\.(?=\s+(?:{_MONTHS})\b)"
    r"|(?:(?<=\b(?:am|ab|im|je) )|(?<=\b(?:vom|zum|bis|dem) ))(\d{1,2})\.(?=\s+[a-zäöüß])")
"""A German date or ordinal: a day's full stop before a month ("am 31. März"), or a number's
after a German preposition before a lower-case word ("am 27. jedes Monats", "ab dem 1. des
Monats"). Neither ends a sentence; "status 2. what does 2 mean?" still has two."""
_MASK = "\ue000"
"""Stands in for a full stop inside a word (``module.Class``, ``v2.3.1``) while splitting."""
SENTENCE_LANGUAGE = "en"
"""sentencex's rules for English also end sentences at CJK full stops."""


def clean(text: str) -> str:
    """Collapse runs of spaces and strip control characters, keeping newlines."""
    text = "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())
    lines = [_WS.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(lines).strip()


@dataclass(frozen=True, slots=True)
class Unit:
    """One quotable piece of chunk text."""

    text: str
    whole: bool = False
    """A list item, definition, table row or code block: quoted whole, never merged with
    its neighbour."""
    code: bool = False
    """A fenced code block (whole too), of one line or many."""
    term: str = ""
    """For a sentence after the first of a definition too long to be one unit, the term it
    defines ("server_name" of "- server_name: This is … Default: waitress.invalid"): read
    alone, "Default: waitress.invalid" seems to belong to whatever is quoted beside it."""


@functools.lru_cache(maxsize=1024)
def split_units(text: str) -> tuple[Unit, ...]:
    """The quotable units of ``text``: sentences, never across a line end; a list item,
    definition or table row line whole (its marker dropped; a longer one than
    :data:`UNIT_CHARS` sentence by sentence); a fenced code block whole (without its
    fences). Kept for the last texts split: the gate, the answerer's steps and the verifier
    split the same chunks."""
    units: list[Unit] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if line == FENCE:
            end = next((j for j in range(i, len(lines)) if lines[j].strip() == FENCE),
                       len(lines))
            body = "\n".join(lines[i:end]).strip("\n")
            if body.strip():
                units.append(Unit(body, whole=True, code=True))
            i = end + 1
        elif item := _ITEM.match(line):
            text = line[item.end():].strip() or line
            if len(line) <= UNIT_CHARS:
                units.append(Unit(text, whole=True))
            else:
                term = _TERM.match(text)
                said = _sentences(text)
                units.extend(Unit(s, term=term[1] if term and at else "")
                             for at, s in enumerate(said))
        elif line and not _UNDERLINE.fullmatch(line):
            units.extend(Unit(s) for s in _sentences(line))
    return tuple(units)


def split_sentences(text: str) -> list[str]:
    """The texts of :func:`split_units`: what every stage calls a sentence."""
    return [unit.text for unit in split_units(text)]


def _sentences(line: str) -> list[str]:
    sentences: list[str] = []
    masked = _ORDINAL.sub(lambda m: (m.group(1) or m.group(2)) + _MASK,
                          _INNER_DOT.sub(_MASK, line))
    for sentence in sentencex.segment(SENTENCE_LANGUAGE, masked):
        sentence = sentence.strip().replace(_MASK, ".")
        if sentence:
            sentences.append(sentence)
    return sentences


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"
