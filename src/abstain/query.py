"""Turn any user text into safe keyword-arm queries and query terms.

The keyword arm must never fail on user input: every token is taken from a
unicode word regex and quoted, so no FTS5 or tsquery operator can leak through.
A question's :class:`KeywordQuery` is read once (:meth:`abstain.question.Question.parse`);
the stores search it, or read one from a plain string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from abstain.text import content_words, find_identifiers, tokens

__all__ = ["MAX_QUERY_TERMS", "KeywordQuery", "fts5_parts", "fts5_query", "query_terms"]

MAX_QUERY_TERMS = 32


def query_terms(text: str) -> list[str]:
    """The keyword arms' terms: the content words of ``text`` (:func:`abstain.text.content_words`),
    at most :data:`MAX_QUERY_TERMS`."""
    return content_words(text)[:MAX_QUERY_TERMS]


@dataclass(frozen=True, slots=True)
class KeywordQuery:
    """What the keyword arms search for one text, read once."""

    terms: tuple[str, ...]
    """Its content words (:func:`query_terms`), prefix-matched."""
    phrases: tuple[tuple[str, ...], ...]
    """The words of each identifier of more than one word ("1 0 0", "wal segment mb")."""
    words: tuple[str, ...]
    """Every word, at most :data:`MAX_QUERY_TERMS`: searched when no content word is left."""
    flags: tuple[tuple[str, ...], ...] = ()
    """The words of each command-line flag given (a question's one-letter flags: ``-l`` is
    ``l``), searched whole: no content word finds ``-l``, only its letter, and as a prefix
    that letter would match every word it begins."""

    @classmethod
    def of(cls, text: str, flags: Sequence[str] = ()) -> KeywordQuery:
        """``flags``: command-line flags the text names, to search whole
        (:attr:`abstain.mentions.Mention.letter_flag`)."""
        phrases = [words for ident in find_identifiers(text) if len(words := tokens(ident)) > 1]
        named = [tuple(words) for flag in flags if (words := tokens(flag))]
        return cls(tuple(query_terms(text)), tuple(tuple(p) for p in phrases),
                   tuple(t for t in tokens(text) if t)[:MAX_QUERY_TERMS],
                   tuple(dict.fromkeys(named)))

    @property
    def prefix_terms(self) -> tuple[str, ...]:
        """The terms, or every word when the text has no content word (PostgreSQL's arm)."""
        return self.terms or self.words

    def fts5_parts(self) -> list[str]:
        """The OR-ed parts of an FTS5 query: ``"word"*``, ``"123"`` or ``"a b c"``."""
        # A version's digits go in as the phrase "1 0 0" only: alone, "1" and "0" match
        # everywhere.
        parts = {w for words in self.phrases for w in words if w.isdigit()}
        terms = [t for t in self.terms if t not in parts]
        if not terms and not self.phrases:
            terms = list(self.words)
        out = [f'"{t}"' if t.isdigit() else f'"{t}"*' for t in terms]
        out += ['"' + " ".join(words) + '"' for words in (*self.phrases, *self.flags)]
        return list(dict.fromkeys(out))


def fts5_query(text: str) -> str | None:
    """An FTS5 MATCH expression: each term quoted and prefix-matched, OR-ed.

    Returns None when the text has no searchable term.
    """
    parts = fts5_parts(text)
    return " OR ".join(parts) if parts else None


def fts5_parts(text: str) -> list[str]:
    """The OR-ed parts of :func:`fts5_query` (:meth:`KeywordQuery.fts5_parts`)."""
    return KeywordQuery.of(text).fts5_parts()
