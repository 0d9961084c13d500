"""Folding and word tokens: the one tokenizer every stage shares.

A leaf module (it imports nothing from abstain), so the query builder, the
identifier finder, the gate, the extractive answerer and the verifier all split
text the same way.
"""

from __future__ import annotations

import re
import unicodedata

# Words of at least one letter or digit; keeps identifiers like ADR-0007 or v2.3.1 apart
# into their word parts, which is what both full-text engines index.
_WORD = re.compile(r"\w+", re.UNICODE)


def fold(text: str) -> str:
    """Lower-case and strip diacritics (Müller -> muller, café -> cafe)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokens(text: str) -> list[str]:
    """Folded word tokens, in order, duplicates kept."""
    return _WORD.findall(fold(text).replace("_", " "))
