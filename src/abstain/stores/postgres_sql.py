"""The PostgreSQL store's search statements: the two arms and their fusion in one query.

Both arms order ties by insertion (``seq``), as the SQLite store orders them by
rowid. The vector arm takes its nearest rows from the HNSW index (iterative scan,
so the workspace and published filters never starve it) and re-sorts them
exactly; the keyword arm ranks ``ts_rank`` (normalised by log document length, as
BM25 is) over the weighted ``tsv`` column, on a bounded candidate set: each query
term brings at most ``quota`` matching rows, and the rows with every term come in too
(see :mod:`abstain.stores.keyword_bounds`).
Scores are float8 in every statement, so the fused statement and the per-arm
statements return the very same numbers.
"""

from __future__ import annotations

# Parameters: q (vector), ws, published_only, limit.
VECTOR_ARM = """
    SELECT c.id, c.kind, c.parent_id, c.seq, (c.embedding <=> %(q)s)::float8 AS score
    FROM chunks c
    WHERE c.workspace = %(ws)s AND c.embedding IS NOT NULL
      AND (c.published OR NOT %(published_only)s)
    ORDER BY c.embedding <=> %(q)s
    LIMIT %(limit)s
"""

# Parameters: terms (text[]), ws, published_only, limit. Ranks the ``candidates`` CTE, read
# by primary key (a join let the planner, expecting 16,000 candidates, scan every chunk).
KEYWORD_ARM = """
    SELECT c.id, c.kind, c.parent_id, c.seq,
           ts_rank(c.tsv, (SELECT query FROM tsq), 1)::float8 AS score
    FROM chunks c
    WHERE c.seq = ANY (ARRAY(SELECT seq FROM candidates))
      AND (c.published OR NOT %(published_only)s)
    ORDER BY score DESC, c.seq
    LIMIT %(limit)s
"""

# The keyword arm's bounded candidate set (abstain.stores.keyword_bounds, rules 3 and 4),
# read from the impact-ordered postings (chunk_terms) and the GIN index, never a whole
# posting list: each term's ``best`` rows by BM25 term-frequency factor (its word's
# postings read backwards); ``quota`` rows of the other words it is a prefix of (a range
# of the same key); and the rows holding every term's word (GIN, the rarest word leading;
# the workspace is checked outside that scan, or the planner may read the workspace's every
# row through its own index and test each: 105 ms at 5,000 chunks for a 17-word question).
# Whole words (``exact``: a one-letter flag's letter, KeywordQuery.flags) are searched as
# they are, never as a prefix, and bring only their own best rows.
# Parameters: terms, exact, ws, published_only, quota, best, budget.
_TSQ = """prefixed AS MATERIALIZED (SELECT abstain_tsquery(%(terms)s::text[]) AS query),
    whole AS MATERIALIZED (
        SELECT to_tsquery('english'::regconfig, string_agg(
                   quote_literal(abstain_unaccent(e)), ' | ')) AS query
        FROM unnest(%(exact)s::text[]) AS u(e) WHERE e <> ''),
    tsq AS MATERIALIZED (
        SELECT CASE WHEN w.query IS NULL OR numnode(w.query) = 0 THEN p.query
                    WHEN p.query IS NULL THEN w.query ELSE p.query || w.query END AS query
        FROM prefixed p, whole w),
    words AS MATERIALIZED (
        SELECT DISTINCT l.lexeme COLLATE "C" AS word FROM unnest(%(terms)s::text[]) AS u(term)
        CROSS JOIN LATERAL unnest(to_tsvector('english'::regconfig, abstain_unaccent(u.term)))
            AS l),
    exact_words AS MATERIALIZED (
        SELECT DISTINCT l.lexeme COLLATE "C" AS word FROM unnest(%(exact)s::text[]) AS u(term)
        CROSS JOIN LATERAL unnest(to_tsvector('english'::regconfig, abstain_unaccent(u.term)))
            AS l),
    candidates AS MATERIALIZED (
        SELECT b.seq FROM (SELECT word FROM words UNION SELECT word FROM exact_words) w
        CROSS JOIN LATERAL (
            SELECT t.seq FROM chunk_terms t
            WHERE t.workspace = %(ws)s AND t.term = w.word
            ORDER BY t.impact DESC LIMIT %(best)s) AS b
        UNION
        SELECT p.seq FROM words w
        CROSS JOIN LATERAL (
            SELECT t.seq FROM chunk_terms t
            WHERE t.workspace = %(ws)s AND t.term > w.word
              AND t.term < w.word || chr(1114111)
            ORDER BY t.term DESC, t.impact DESC LIMIT %(quota)s) AS p
        UNION
        SELECT a.seq FROM (
            SELECT c.seq, c.workspace, c.published FROM chunks c
            WHERE cardinality(%(terms)s::text[]) > 1
              AND c.tsv @@ plainto_tsquery('english'::regconfig,
                                           abstain_unaccent(array_to_string(%(terms)s, ' ')))
            LIMIT %(budget)s) AS a
        WHERE a.workspace = %(ws)s AND (a.published OR NOT %(published_only)s))"""

SEARCH_VECTOR = f"""
    WITH nearest AS MATERIALIZED ({VECTOR_ARM})
    SELECT id, kind, parent_id, score FROM nearest ORDER BY score, seq
"""

SEARCH_TEXT = f"""
    WITH {_TSQ}, matches AS MATERIALIZED ({KEYWORD_ARM})
    SELECT id, kind, parent_id, score FROM matches ORDER BY score DESC, seq
"""


def _collapsed(arm: str, raw: str, order: str) -> str:
    """CTEs that rank one arm, map paraphrases onto their child, keep each target's
    first occurrence and renumber the ranks 1..n (as ``abstain.fuse.collapse``)."""
    return f"""
    {arm}_ranked AS (
        SELECT coalesce(CASE WHEN kind = 'paraphrase' THEN parent_id END, id) AS target,
               score, row_number() OVER (ORDER BY {order}) AS raw_rank
        FROM {raw}),
    {arm}_first AS (
        SELECT DISTINCT ON (target) target, score, raw_rank
        FROM {arm}_ranked ORDER BY target, raw_rank),
    {arm} AS (
        SELECT target, score, row_number() OVER (ORDER BY raw_rank) AS rank
        FROM {arm}_first)"""


# Parameters: q, terms, ws, published_only, limit (candidates per arm), k, top.
# RRF as ``abstain.fuse.rrf``: sum of 1/(k + rank) per arm, ties broken by the best
# single-arm rank, then the keyword arm's hit first, then the chunk id in code-point order.
SEARCH_FUSED = f"""
    WITH {_TSQ},
    vector_raw AS MATERIALIZED ({VECTOR_ARM}),
    keyword_raw AS MATERIALIZED ({KEYWORD_ARM}),
    {_collapsed("vector_arm", "vector_raw", "score, seq")},
    {_collapsed("keyword_arm", "keyword_raw", "score DESC, seq")}
    SELECT coalesce(v.target, w.target) COLLATE "C" AS chunk_id,
           coalesce(1.0::float8 / (%(k)s + v.rank), 0.0::float8)
             + coalesce(1.0::float8 / (%(k)s + w.rank), 0.0::float8) AS fused_score,
           v.rank, v.score, w.rank, w.score
    FROM vector_arm v FULL OUTER JOIN keyword_arm w ON v.target = w.target
    ORDER BY fused_score DESC, least(v.rank, w.rank), w.rank IS NULL, chunk_id
    LIMIT %(top)s
"""

# Parameters: ws, published_only. Searchable chunks (parents carry no tsv), as the
# triggers of migration 7 count them.
COUNT_SEARCHABLE = """
    SELECT coalesce((SELECT CASE WHEN %(published_only)s THEN published ELSE searchable END
                     FROM chunk_counts WHERE workspace = %(ws)s), 0)
"""

# Parameters: ws, published_only, phrase (plain words), limit. Words in order, stemmed.
COUNT_PHRASE = """
    SELECT count(*) FROM (
        SELECT 1 FROM chunks c
        WHERE c.tsv @@ phraseto_tsquery('english'::regconfig, abstain_unaccent(%(phrase)s))
          AND c.workspace = %(ws)s AND (c.published OR NOT %(published_only)s)
        LIMIT %(limit)s) AS hits
"""
COUNT_COMPOUND = """
    SELECT count(*) FROM (
        SELECT 1 FROM chunks c
        WHERE c.tsv @@ phraseto_tsquery('english'::regconfig, abstain_unaccent(%(phrase)s))
          AND c.workspace = %(ws)s AND (c.published OR NOT %(published_only)s)
          AND (c.text ILIKE %(hyphens)s OR c.text ILIKE %(underscores)s)
        LIMIT %(limit)s) AS hits
"""
"""COUNT_PHRASE for a compound (``proxy-headers``): its words written as one token."""
