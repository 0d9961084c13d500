"""The keyword arm's bound: frequent terms cannot make a question slow.

Full-text ranking costs a score per matching row, so one frequent word (a term in
a third of a million chunks) costs more than the rest of the question. Both
stores bound it before ranking:

1. **Prune frequent terms.** A term found in more than ``FREQUENT_SHARE`` of the
   store's chunks *and* in more than ``FREQUENT_MIN_ROWS`` of them is dropped
   from the keyword query, as long as a term that is not frequent remains. Such a
   term's BM25 weight (its IDF) is small (log 10 against ~log 10,000 for a rare
   one), so it rarely decides the ranking, and the vector arm still reads the
   whole question. Below ``FREQUENT_MIN_ROWS`` matching rows nothing is pruned:
   small collections (BEIR SciFact's 5,183 abstracts included) rank exactly as
   before.
2. **Rank a bounded candidate set.** At most ``CANDIDATE_BUDGET`` matching rows
   are scored (when every term is frequent, the first ones in storage order);
   scores keep the whole collection's statistics.
3. **Rows with every term come first.** The rows that match all the
   kept terms (an intersection of posting lists, cheap) join the candidate set, up
   to the same budget: when the budget cuts the matches in storage order, the rows
   that score best under BM25 are usually these, and they would otherwise be left to
   chance (at 1M synthetic chunks the keyword arm found the chunk its three words
   came from for 62% of queries without this rule). Their scores are those of the
   whole query, so the candidate set only grows: where the budget never binds
   (BEIR SciFact) the ranking is unchanged.
4. **The best rows of each term (PostgreSQL).** The candidates come from impact-ordered
   postings (``chunk_terms``, a row per chunk and word with the word's BM25
   term-frequency factor in the chunk, kept by triggers: migration 6), never from a whole
   posting list: each term's word brings its ``BEST_PER_TERM`` rows with the highest
   factor (its postings read backwards through the primary key), the other words it is a
   prefix of bring ``STORAGE_BUDGET`` rows across the terms (a range of the same key), and
   the rows holding every term's word (rule 3, the words themselves through the GIN index,
   where the rarest one leads) join them. A few hundred rows chosen by score, ranked with
   the whole query as before.

The SQLite store's FTS5 arm applies rules 1–3 (a store of 20,000 chunks or more ranks
through its keyword index instead, :mod:`abstain.stores.sqlite_keywords`, which needs no
budget): a term's frequency is its stemmed word's count in FTS5's
vocabulary (one lookup; for a prefix term a lower bound, since counting every word the
prefix covers costs as much as ranking them). The PostgreSQL
store has no cheap per-term count (its planner statistics are hidden from a role under
row-level security), so it bounds per term instead (rule 4): a rare word's rows all come
in, a frequent word's best ones, and the union is ranked with the whole query.
"""

from __future__ import annotations

from collections.abc import Mapping

FREQUENT_SHARE = 0.10
FREQUENT_MIN_ROWS = 5_000
CANDIDATE_BUDGET = 20_000
STORAGE_BUDGET = 150
BEST_PER_TERM = 150


def frequent_above(rows: int) -> int:
    """Matching chunks above which a term of a ``rows``-chunk store is frequent (so a store
    counts a term's matches only up to this number plus one)."""
    return max(FREQUENT_MIN_ROWS, int(FREQUENT_SHARE * rows))


def is_frequent(rows_with_term: int, rows: int) -> bool:
    """Whether a term found in ``rows_with_term`` of ``rows`` chunks is too frequent to rank."""
    return rows_with_term > frequent_above(rows)


def prune(frequency: Mapping[str, int], rows: int) -> list[str]:
    """The terms to rank, in their order: the frequent ones dropped unless none is left."""
    kept = [t for t, n in frequency.items() if not is_frequent(n, rows)]
    return kept or list(frequency)


def storage_quota(terms: int) -> int:
    """Rows of the other words it is a prefix of that each of ``terms`` query terms brings
    (PostgreSQL, rule 4)."""
    return max(1, min(CANDIDATE_BUDGET, STORAGE_BUDGET) // max(1, terms))


def best_per_term() -> int:
    """Rows each query term brings by its BM25 term-frequency factor (rule 4)."""
    return min(CANDIDATE_BUDGET, BEST_PER_TERM)
