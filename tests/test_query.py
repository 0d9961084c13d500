from __future__ import annotations

import sqlite3
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from abstain.query import fts5_query, query_terms
from abstain.text import fold, tokens

_DB = sqlite3.connect(":memory:")
_DB.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61 "
            "remove_diacritics 2', prefix='2 3 4')")
_DB.execute("INSERT INTO t(body) VALUES ('the wal segment size is 64 MiB'), ('café Müller')")


@settings(max_examples=300)
@given(st.text())
def test_any_text_gives_a_valid_fts5_query(text: str) -> None:
    match = fts5_query(text)
    if match is not None:
        _DB.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()


_MARKS = st.characters(categories=["P", "S", "Zs"]).filter(
    lambda c: not any(ch.isalnum() for ch in unicodedata.normalize("NFKD", c)))
"""Punctuation, symbols and spaces, less the symbols that fold to a letter or digit (NFKD:
"ⓐ" is "a", "½" is "1⁄2"), which are words to search."""


@given(st.text(alphabet=_MARKS))
def test_punctuation_only_has_no_terms(text: str) -> None:
    assert (tokens(text), query_terms(text), fts5_query(text)) == ([], [], None)


def test_operators_are_quoted_not_interpreted() -> None:
    match = fts5_query('wal AND NOT segment OR "x" NEAR(a b) col:val*')
    assert match is not None
    assert '"and"*' not in match  # stopword dropped, never an operator
    rows = _DB.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()
    assert rows == [(1,)]


def test_terms_are_folded_and_stopwords_dropped() -> None:
    assert query_terms("What is the Café of Zoë Müller?") == ["cafe", "zoe", "muller"]
    assert fold("ÉCOLE") == "ecole"


def test_versions_become_phrases() -> None:
    match = fts5_query("When was 2.3.1 released?")
    assert match is not None and '"2 3 1"' in match


def test_a_one_letter_flag_is_searched_whole() -> None:
    from abstain.query import KeywordQuery
    from abstain.question import Question

    question = Question.parse("what does grep -l do? and --dump-config?")
    assert [m.text for m in question.letter_flags] == ["-l"]
    assert question.keywords.flags == (("l",),)
    parts = question.keywords.fts5_parts()
    assert '"l"' in parts and '"l"*' not in parts  # whole: "-l" is not every word in l…
    assert KeywordQuery.of("what does grep -l do?").flags == ()
    rows = _DB.execute("SELECT rowid FROM t WHERE t MATCH ?", ('"l"',)).fetchall()
    assert rows == []  # no row of the table holds the letter alone
