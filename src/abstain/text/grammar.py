"""The grammar of identifiers and names, and how an identifier is matched.

One grammar serves the documents and the question. In documents, :func:`find_identifiers`
finds codes (``ADR-0050``, ``E1207``, ``sha256``), versions (``v2.3.1``), dotted and called
names (``module.Class``, ``db.table()``), ``snake_case`` and ``ENV_NAMES``: ingest stores
them per chunk, the keyword query keeps multi-word ones as phrases, and the verifier asks
a generated sentence's ones to be in its source. :mod:`abstain.mentions` reads a question
with the same :data:`PATTERNS`, plus ``--flags``, quotes, backticks and names.

A name is a capitalised word (:data:`NAME`: ``Kubernetes``, ``SQLCipher``,
``Saint-Clair``) that is not a stopword or a light word ("Please", "Roughly");
:func:`capitalised_words` lists them, :func:`find_names` joins a following capitalised
word ("GitHub Actions").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from abstain.text.sentences import split_sentences
from abstain.text.words import LIGHT_WORDS, MONTHS, STOPWORDS, TITLES, WEEKDAYS, fold

VERSION_NUMBER = (
    r"\d+(?:\.\d+){1,3}"
    r"(?:[-.]?(?:a|b|rc)\.?\d+|(?i:[-.]?(?:alpha|beta|dev|post|pre|preview)\d*(?:\.\d+)*)"
    r"|-(?=[0-9A-Za-z]*[A-Za-z])(?:[0-9A-Za-z]*\d[0-9A-Za-z]*|(?i:snapshot|canary|nightly|next|ea"
    r"|insiders|milestone))(?:\.[0-9A-Za-z]+)*)?")
"""The numbers of a version, the one definition of them: two to four ("3.11", "2.3.1",
"1.0.0.42"), with a pre-release or build part ("2.0rc1", "1.0.0-beta.2", "2.1.dev0",
"4.0.0-M1", "18.0.0-canary.3", "21.0.1-ea", "2.4.1-1ubuntu1"); not the "-compatible" of
"3.8-compatible", the "-3.5" of a range "2.7-3.5" or the "B" of a model's "1.5B". The
identifier kind "version" below, the version answer type and a changelog's release line
(:mod:`abstain.align.types`) are this in a context."""
FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
"""A command-line flag: ``-l``, ``--files-with-matches``."""
OPTION_NAME = re.compile(
    r"--?[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*|[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+")
"""An option's or setting's name as a reference section's whole heading ("test-extras",
"db-tx-end", "--wait"): hyphenated lower-case words, which running text does not take for
identifiers ("long-term"), are one there (so is an ordinary hyphenated word heading a
section, "read-only")."""
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("flag", FLAG),
    ("call", re.compile(r"(?<![\w.])[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*\([^()]{0,80}\)")),
    ("dotted", re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w(])")),
    ("code", re.compile(r"(?<![\w.-])[A-Z][A-Z0-9]{0,9}-\d{1,6}\.\d{1,4}(?![\w-]|\.\w)")),
    ("version", re.compile(rf"(?<![\w.])v?{VERSION_NUMBER}(?![\w.]*\w)")),
    ("code", re.compile(r"(?<![\w.-])[A-Za-z][A-Za-z0-9]{0,9}(?:-[A-Z0-9]{1,10})*-\d{1,6}"
                        r"(?![\w-])")),
    ("code", re.compile(r"(?<![\w.-])[A-Za-z]+\d+[A-Za-z0-9]*(?![\w-])")),
    ("code", re.compile(r"(?<![\w.-])(?!\d{4}-\d\d-\d)(?=[0-9A-Z-]*[A-Z])\d[0-9A-Z]*"
                        r"(?:-[0-9A-Z]+)+(?![\w-])")),
    ("env", re.compile(r"(?<![\w.-])_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w-])")),
    ("snake", re.compile(r"(?<![\w.-])_?[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w-])")),
    ("camel", re.compile(r"(?<![\w.-])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?![\w-])")),
)
"""Each kind of identifier a text can hold, by what makes it one; earlier kinds win where
two overlap."""
DOCUMENT_KINDS = frozenset({"call", "dotted", "version", "code", "env", "snake"})
"""The kinds :func:`find_identifiers` finds in running text (flags and CamelCase words are
read as names there; quotes are ordinary prose)."""
FILE_EXTENSIONS = (
    "py|md|txt|csv|tsv|json|jsonl|toml|yaml|yml|ini|cfg|conf|db|sqlite|sqlite3|gz|zip|tar|xlsx|"
    "xls|jpg|jpeg|png|gif|pdf|html|htm|xml|exe|msi|sh|bat|ps1|env|log|parquet|js|ts|rs|go|c|h")
FILE = re.compile(rf"(?<![\w/.-])[\w-]*(?:\.[\w-]+)*\.(?:{FILE_EXTENSIONS})(?![\w])",
                  re.IGNORECASE)
"""A file name or extension (``data.csv``, ``.env``)."""
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m", "u.s"})


def is_abbreviation(text: str) -> bool:
    """``e.g.``, ``i.e.``, ``a.m.``: dotted, and no identifier."""
    return fold(text).rstrip(".") in _ABBREVIATIONS


def find_identifiers(text: str) -> list[str]:
    """The identifiers of running text (:data:`DOCUMENT_KINDS`), in order of appearance,
    unique; a call is named without its arguments (``db.table``)."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for why, pattern in PATTERNS:
        if why not in DOCUMENT_KINDS:
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(s < end and start < e for s, e in taken):
                continue
            token = match.group(0)
            if why == "dotted" and is_abbreviation(token):
                continue
            if why == "call":
                token = token[:token.index("(")]
            taken.append((start, end))
            found.append((start, token))
    return list(dict.fromkeys(token for _, token in sorted(found)))


NAME = re.compile(r"(?<![\w'’.-])[A-Z][\w]*(?:[-'’][\w]+)*")
"""A capitalised word, with its hyphenated or apostrophed parts (Saint-Clair, O'Neil)."""
CONTRACTION = re.compile(r"['’](?:d|m|ve|ll|re|t)$")
"""The contracted ending of a word ("I'd", "we've", "don't": "do" or "don", "can't", "won't")."""
_NOT_NAMES = STOPWORDS | LIGHT_WORDS
_CALENDAR = frozenset(MONTHS + WEEKDAYS + tuple(f"{day}s" for day in WEEKDAYS))
"""A month or a weekday alone is no name ("April Ludgate" is), nor are weekdays ("open on
Saturdays")."""
_NAME_FOLLOW = re.compile(r" ([A-Z][a-z]\w*)(?![\w.-]|['’](?!s\b|\s|$))")
"""A second capitalised word makes one name: "GitHub Actions", "Windows Terminal", also
possessive ("Peter Brandt's mobile": one name, not "Peter" and "Brandt")."""
_NAME_NUMERAL = re.compile(r" ((?=[IVX]{2,}(?![\w-]|\.\w))X{0,3}(?:IX|IV|V?I{0,3}))"
                           r"(?![\w-]|\.\w|['’](?!s\b))")
"""A Roman numeral of two letters or more ends the name before it: "Henry VIII", "Falcon
Saucepan III" (one name, not a name and "III"); not after an acronym ("AES IV": an IV)."""


def is_name_word(word: str) -> bool:
    """A capitalised word that may be a name: two characters or more, and no stopword or
    light word ("The", "Please", "Roughly", "OK"), also when contracted ("I'd", "We've",
    "Don't")."""
    folded = fold(word)
    bare = CONTRACTION.sub("", folded)
    forms = {folded, bare, bare.removesuffix("n")}
    return len(word) >= 2 and not forms & _NOT_NAMES


def capitalised_words(sentence: str) -> Iterator[tuple[int, str]]:
    """``(start, word)`` for each capitalised word of ``sentence`` that may be a name, its
    possessive ending dropped (Hervé's -> Hervé)."""
    for match in NAME.finditer(sentence):
        word = re.sub(r"['’]s?$", "", match.group(0))
        if is_name_word(word) and "_" not in word:
            yield match.start(), word


def names_in(sentence: str) -> list[tuple[int, int, str]]:
    """Capitalised names of one sentence with their spans: Kubernetes, GraphQL, Saint-Clair,
    "GitHub Actions" (a second capitalised word joins), "Henry VIII" (a Roman numeral too),
    "Elizabeth II" of "Queen Elizabeth II" (a title before a name is left out: :data:`TITLES`).
    The first word of a sentence counts only when it could not be an ordinary capitalised
    word (CamelCase, ALL CAPS, a digit)."""
    out: list[tuple[int, int, str]] = []
    lead = len(sentence) - len(sentence.lstrip("¿¡\"'“(‘ "))
    for start, word in capitalised_words(sentence):
        if out and start < out[-1][1]:  # the second word of a name already joined
            continue
        special = any(c.isdigit() for c in word) or sum(c.isupper() for c in word) > 1
        if start == lead and not special:
            continue
        end = start + len(word)
        follow = _NAME_FOLLOW.match(sentence, end)
        if (follow and fold(word) in TITLES and is_name_word(follow.group(1))
                and _NAME_NUMERAL.match(sentence, follow.end())):
            continue  # "Queen Elizabeth II": the name and its numeral follow the title
        possessive = sentence[end:end + 1] in ("'", "’")
        if follow and is_name_word(follow.group(1)) and not possessive:
            word, end = f"{word} {follow.group(1)}", follow.end()
        numeral = _NAME_NUMERAL.match(sentence, end)
        if numeral and sentence[end - 1:end] not in ("'", "’") and not word.split()[-1].isupper():
            word, end = f"{word} {numeral.group(1)}", numeral.end()
        if fold(word) in _CALENDAR:
            continue  # "on 14 January", "in March", "on Monday": a date, not a name
        out.append((start, end, word))
    return out


def find_names(text: str) -> list[str]:
    """Every capitalised name of ``text``, unique, in order (the verifier asks each one of a
    generated sentence to be in its source)."""
    return list(dict.fromkeys(name for sentence in split_sentences(text)
                              for _, _, name in names_in(sentence)))


SPELLING_CUTOFF = 0.5
"""Suggest a known identifier by spelling only when difflib's similarity reaches this: half
the characters in common, so a typo finds its identifier and an unrelated one is not offered."""


def normalise_identifier(token: str) -> str:
    token = token.strip().casefold()
    return token[1:] if re.fullmatch(r"v\d+(\.\d+)*", token) else token


def occurs_in(identifier: str, text: str) -> bool:
    """Whole-token, case-insensitive occurrence; v2.3 matches 2.3 and vice versa."""
    ident = fold(normalise_identifier(identifier))
    pattern = rf"(?<![\w.-])v?{re.escape(ident)}(?![\w-]|\.\d)"
    return re.search(pattern, fold(text)) is not None


_DIGITS = re.compile(r"[0-9]+")


def number_pattern(identifier: str) -> str | None:
    """An identifier with its numbers blanked (``E1210`` and ``E1201`` are ``e#``, ``ZB-117``
    ``zb-#``, ``5.2.0`` and ``v5.1.0`` ``#.#.#``): two identifiers of one pattern differ in
    their numbers alone. None for one without a number."""
    ident = normalise_identifier(identifier)
    return _DIGITS.sub("#", fold(ident)) if _DIGITS.search(ident) else None


def nearest(identifier: str, known: list[str], *, limit: int = 3) -> list[str]:
    """Known identifiers closest to ``identifier``: of its family (ADR-…) by number, else those
    spelt alike; none when neither (a newcomer's "ERR-4471" was offered "0.0.0.0", "P1",
    "P2": the first known identifiers, which meant nothing)."""
    ident = normalise_identifier(identifier)
    prefix = re.match(r"[a-z]+", ident)
    family = [k for k in known if prefix and normalise_identifier(k).startswith(prefix.group(0))]
    pool = family or known
    number = re.search(r"\d+", ident)
    if family and number:
        target = int(number.group(0))

        def distance(k: str) -> tuple[int, str]:
            digits = re.search(r"\d+", k)
            return (abs(int(digits.group(0)) - target) if digits else 10**9, k)

        return sorted(pool, key=distance)[:limit]
    close = difflib.get_close_matches(identifier, pool, n=limit, cutoff=SPELLING_CUTOFF)
    return close
