"""Turn any user text into safe keyword-arm queries and query terms.

The keyword arm must never fail on user input: every token is taken from a
unicode word regex and quoted, so no FTS5 or tsquery operator can leak through.
"""

from __future__ import annotations

from abstain.text import content_words, find_identifiers, tokens

__all__ = ["MAX_QUERY_TERMS", "fts5_query", "query_terms"]

MAX_QUERY_TERMS = 32


def query_terms(text: str) -> list[str]:
    """The keyword arms' terms: the content words of ``text`` (:func:`abstain.text.content_words`),
    at most :data:`MAX_QUERY_TERMS`."""
    return content_words(text)[:MAX_QUERY_TERMS]


def fts5_query(text: str) -> str | None:
    """An FTS5 MATCH expression: each term quoted and prefix-matched, OR-ed.

    Returns None when the text has no searchable term.
    """
    phrases = [words for ident in find_identifiers(text)
               if len(words := tokens(ident)) > 1]
    # A version's digits go in as the phrase "1 0 0" only: alone, "1" and "0" match everywhere.
    parts = {w for words in phrases for w in words if w.isdigit()}
    terms = [t for t in query_terms(text) if t not in parts]
    if not terms and not phrases:
        terms = [t for t in tokens(text) if t][:MAX_QUERY_TERMS]
    if not terms and not phrases:
        return None
    out = [f'"{t}"' if t.isdigit() else f'"{t}"*' for t in terms]
    out += ['"' + " ".join(words) + '"' for words in phrases]
    return " OR ".join(dict.fromkeys(out))
