"""The vocabulary: what "a word", "the same word", "a sentence", "a content word", "a number
word", "an identifier" and "a name" mean — one definition each, used by ingest, retrieval,
the gate, the answerer and the verifier.

* :mod:`abstain.text.words` — folding, tokens, stems, the stopwords and other word lists;
* :mod:`abstain.text.sentences` — cleaning and sentence splitting;
* :mod:`abstain.text.grammar` — the grammar of identifiers (``ADR-0050``, ``v2.3.1``,
  ``storage.wal_segment_mb``) and their matching.

Everything is importable from ``abstain.text`` itself.
"""

from __future__ import annotations

from abstain.text.grammar import (
    find_identifiers,
    find_names,
    nearest,
    normalise_identifier,
    number_pattern,
    occurs_in,
)
from abstain.text.sentences import (
    FENCE,
    UNIT_CHARS,
    Unit,
    clean,
    split_sentences,
    split_units,
    truncate,
)
from abstain.text.words import (
    FRAMING_WORDS,
    LIGHT_WORDS,
    NUMBER_WORDS,
    STOPWORDS,
    as_written,
    compound,
    compound_likes,
    content_words,
    english_rarity,
    fold,
    function_words,
    holds_compound,
    holds_word,
    is_english,
    joined,
    number_words,
    one_edit,
    states_an_amount,
    stem,
    stem_set,
    stems,
    tokens,
)

__all__ = [
    "FENCE",
    "FRAMING_WORDS",
    "LIGHT_WORDS",
    "NUMBER_WORDS",
    "STOPWORDS",
    "UNIT_CHARS",
    "Unit",
    "as_written",
    "clean",
    "compound",
    "compound_likes",
    "content_words",
    "english_rarity",
    "find_identifiers",
    "find_names",
    "fold",
    "function_words",
    "holds_compound",
    "holds_word",
    "is_english",
    "joined",
    "nearest",
    "normalise_identifier",
    "number_pattern",
    "number_words",
    "occurs_in",
    "one_edit",
    "split_sentences",
    "split_units",
    "states_an_amount",
    "stem",
    "stem_set",
    "stems",
    "tokens",
    "truncate",
]
