"""Identifier-like tokens: ADR-0050, E1234, SKU-77, v2.3.1, `setting.names`, "quoted names".

Questions that name an identifier are answerable only if that identifier
occurs in the evidence; these helpers find them and suggest near ones.
"""

from __future__ import annotations

import difflib
import re

from abstain.text.words import fold

_PATTERNS = [
    re.compile(r"\b[A-Z][A-Z0-9]{0,9}-\d{1,6}\b"),           # ADR-0050, SKU-77, JIRA-123
    re.compile(r"\b[A-Z]{1,3}\d{2,6}\b"),                   # E1234, HTTP404-like codes
    re.compile(r"\bv?\d+\.\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.]+)?\b"),  # v2.3.1, 1.0
    re.compile(r"\b[a-z][a-z0-9]*(?:[._][a-z0-9]+){1,5}\b"),  # storage.wal_segment_mb
]
# Single quotes are left out: in questions they are far more often apostrophes.
_QUOTED = re.compile(r"[\"“”«»`]([^\"“”«»`]{2,60})[\"“”«»`]")


def find_identifiers(text: str, *, quoted: bool = True) -> list[str]:
    """Identifiers in order of appearance, unique.

    Quoted names are included when ``quoted`` is true (questions), not when
    scanning documents (where quotes are ordinary prose).
    """
    found: dict[str, None] = {}
    spans: list[tuple[int, int]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(s <= match.start() < e for s, e in spans):
                continue
            token = match.group(0)
            if pattern is _PATTERNS[3] and not _looks_like_setting(token):
                continue
            if pattern is _PATTERNS[2] and "." not in token:
                continue
            spans.append(match.span())
            found.setdefault(token, None)
    if quoted:
        for match in _QUOTED.finditer(text):
            name = match.group(1).strip()
            if name and not any(s <= match.start(1) < e for s, e in spans):
                found.setdefault(name, None)
    return list(found)


MIN_SETTING_CHARS = 5
"""A dotted or underscored token shorter than this (a.b, x_y) is prose, not a setting name."""
SPELLING_CUTOFF = 0.5
"""Suggest a known identifier by spelling only when difflib's similarity reaches this: half
the characters in common, so a typo finds its identifier and an unrelated one is not offered."""


def _looks_like_setting(token: str) -> bool:
    # a.b with at least one dot or underscore and no plain sentence word like "e.g"
    return (("." in token or "_" in token) and len(token) >= MIN_SETTING_CHARS
            and not token.startswith("e.g"))


def normalise_identifier(token: str) -> str:
    token = token.strip().casefold()
    return token[1:] if re.fullmatch(r"v\d+(\.\d+)*", token) else token


def occurs_in(identifier: str, text: str) -> bool:
    """Whole-token, case-insensitive occurrence; v2.3 matches 2.3 and vice versa."""
    ident = fold(normalise_identifier(identifier))
    pattern = rf"(?<![\w.-])v?{re.escape(ident)}(?![\w-]|\.\d)"
    return re.search(pattern, fold(text)) is not None


def nearest(identifier: str, known: list[str], *, limit: int = 3) -> list[str]:
    """Known identifiers closest to ``identifier``: same family first (ADR-…), then by spelling."""
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
    return close or sorted(pool)[:limit]
