"""Numbered schema migrations of the PostgreSQL store (table ``schema_migrations``).

Migrations run on a connection of their own, as the connecting user, under an
advisory lock so that two processes opening a fresh database do not race.

Tenancy: ``documents``, ``chunks`` and ``identifiers`` carry their workspace and
have row-level security enabled and forced. A row is visible when its workspace
equals the transaction's ``abstain.workspace`` setting, or when the transaction
set ``abstain.all_workspaces = 'on'`` (only the store's cross-workspace reads do:
``list_documents(None)``, ``workspaces()``, ``get_chunks``). Writes must always
match ``abstain.workspace``. ``meta`` (the embedder binding) and
``embedding_cache`` (vectors keyed by model and text hash) are shared. ``query_log``
(migration 2) has the same policy: a tenant never reads another's questions, and so do
the vocabulary tables (migration 4): a tenant never reads another's terms.

Superusers bypass row-level security, so when a superuser runs the migrations
they create the NOLOGIN role ``abstain_app`` and hand it the tables; the store
then ``SET ROLE abstain_app`` on every pooled connection. A non-superuser keeps
ownership of the tables and is held by FORCE ROW LEVEL SECURITY. A superuser also
marks ``tsvector @@ tsquery`` leakproof so that RLS does not keep the keyword arm
off its GIN index (see ``_let_rls_use_the_text_index``).

The vector column is created without a dimension: the first write of a
document types it ``vector(N)`` from the embedder and builds the HNSW index
(see ``PostgresStore._bind_embedder``).
"""

from __future__ import annotations

from typing import Any

import psycopg

from abstain.errors import StoreError

Conn = psycopg.Connection[tuple[Any, ...]]

APP_ROLE = "abstain_app"
TENANT_TABLES = ("documents", "chunks", "identifiers")
VOCABULARY_TABLES = ("vocabularies", "concepts", "concept_labels", "concept_words")
_LOCK = "abstain.migrate"

_POLICY = """
    ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
    ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
    CREATE POLICY workspace_isolation ON {table}
        USING (workspace = nullif(current_setting('abstain.workspace', true), '')
               OR current_setting('abstain.all_workspaces', true) = 'on')
        WITH CHECK (workspace = nullif(current_setting('abstain.workspace', true), ''));
"""

MIGRATIONS: list[str] = [
    # 1: documents, chunks (vector + weighted tsvector), identifiers, cache, tenancy
    """
    CREATE FUNCTION abstain_unaccent(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
        RETURN public.unaccent('public.unaccent'::regdictionary, $1);
    CREATE FUNCTION abstain_tsquery(terms text[]) RETURNS tsquery
        LANGUAGE sql STABLE PARALLEL SAFE
        RETURN (SELECT CASE WHEN count(*) > 0 THEN to_tsquery('english'::regconfig,
                    string_agg('''' || replace(replace(abstain_unaccent(t), '\\', '\\\\'),
                                               '''', '''''') || ''':*', ' | ' ORDER BY n))
                END
                FROM unnest(terms) WITH ORDINALITY AS u(t, n) WHERE t <> '');
    CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE documents (
        id text PRIMARY KEY,
        workspace text NOT NULL CHECK (workspace <> ''),
        source text NOT NULL,
        title text NOT NULL,
        content_hash text NOT NULL,
        curated boolean NOT NULL DEFAULT false,
        published boolean NOT NULL DEFAULT true,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace, source),
        UNIQUE (id, workspace)
    );
    CREATE TABLE chunks (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        document_id text NOT NULL,
        workspace text NOT NULL,
        published boolean NOT NULL,
        kind text NOT NULL CHECK (kind IN ('parent', 'child', 'paraphrase')),
        parent_id text,
        ordinal integer NOT NULL,
        text text NOT NULL,
        heading_path text[] NOT NULL DEFAULT '{}',
        headings text NOT NULL DEFAULT '',
        embedding vector,
        tsv tsvector GENERATED ALWAYS AS (CASE WHEN kind <> 'parent' THEN
            setweight(to_tsvector('english'::regconfig, abstain_unaccent(headings)), 'A') ||
            setweight(to_tsvector('english'::regconfig, abstain_unaccent(text)), 'B') END) STORED,
        FOREIGN KEY (document_id, workspace) REFERENCES documents (id, workspace)
            ON DELETE CASCADE
    );
    CREATE INDEX chunks_document ON chunks (document_id);
    CREATE INDEX chunks_workspace ON chunks (workspace);
    CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
    CREATE TABLE identifiers (
        document_id text NOT NULL,
        workspace text NOT NULL,
        token text NOT NULL,
        PRIMARY KEY (document_id, token),
        FOREIGN KEY (document_id, workspace) REFERENCES documents (id, workspace)
            ON DELETE CASCADE
    );
    CREATE INDEX identifiers_workspace ON identifiers (workspace);
    CREATE TABLE embedding_cache (
        model text NOT NULL,
        text_hash text NOT NULL,
        vector vector NOT NULL,
        PRIMARY KEY (model, text_hash)
    );
    """ + "".join(_POLICY.format(table=t) for t in TENANT_TABLES),
    # 2: the query log (abstain.querylog): one row per question asked, off by default
    """
    CREATE TABLE query_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        workspace text NOT NULL CHECK (workspace <> ''),
        question text,
        question_hash text NOT NULL,
        answered boolean NOT NULL,
        reason text,
        confidence double precision NOT NULL,
        triage text NOT NULL,
        latency_ms double precision NOT NULL,
        llm_calls integer NOT NULL,
        record jsonb NOT NULL,
        expected text CHECK (expected IN ('answer', 'refuse')),
        note text NOT NULL DEFAULT '',
        gold_sources text[] NOT NULL DEFAULT '{}',
        labelled_at timestamptz
    );
    CREATE INDEX query_log_workspace ON query_log (workspace, id);
    CREATE INDEX query_log_created ON query_log (created_at);
    """ + _POLICY.format(table="query_log"),
    # 3: where a document came from (file | text), and staged chunks of
    # large documents, written batch by batch and moved into ``chunks`` at once
    """
    ALTER TABLE documents ADD COLUMN origin text NOT NULL DEFAULT '';
    CREATE TABLE staged_chunks (
        staging_id text NOT NULL,
        n integer NOT NULL,
        workspace text NOT NULL CHECK (workspace <> ''),
        id text NOT NULL,
        kind text NOT NULL,
        parent_id text,
        ordinal integer NOT NULL,
        text text NOT NULL,
        heading_path text[] NOT NULL,
        headings text NOT NULL,
        embedding vector,
        PRIMARY KEY (staging_id, n)
    );
    """ + _POLICY.format(table="staged_chunks"),
    # 4: controlled vocabularies (SKOS concepts) per workspace, looked up by label key
    #    (abstain.stores.vocab_base); a vocabulary's concepts and labels go with it
    """
    CREATE TABLE vocabularies (
        workspace text NOT NULL CHECK (workspace <> ''),
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('file', 'skosmos')),
        location text NOT NULL,
        vocid text NOT NULL DEFAULT '',
        concepts integer NOT NULL,
        languages text[] NOT NULL DEFAULT '{}',
        loaded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace, name)
    );
    CREATE TABLE concepts (
        workspace text NOT NULL,
        vocabulary text NOT NULL,
        uri text NOT NULL,
        data jsonb NOT NULL,
        PRIMARY KEY (workspace, uri, vocabulary),
        FOREIGN KEY (workspace, vocabulary) REFERENCES vocabularies (workspace, name)
            ON DELETE CASCADE
    );
    CREATE TABLE concept_labels (
        workspace text NOT NULL,
        vocabulary text NOT NULL,
        uri text NOT NULL,
        key text COLLATE "C" NOT NULL,
        initials text NOT NULL,
        kind text NOT NULL,
        lang text NOT NULL,
        label text NOT NULL,
        FOREIGN KEY (workspace, vocabulary) REFERENCES vocabularies (workspace, name)
            ON DELETE CASCADE
    );
    CREATE TABLE concept_words (
        workspace text NOT NULL,
        vocabulary text NOT NULL,
        word text NOT NULL,
        uri text NOT NULL,
        PRIMARY KEY (workspace, word, vocabulary, uri),
        FOREIGN KEY (workspace, vocabulary) REFERENCES vocabularies (workspace, name)
            ON DELETE CASCADE
    );
    CREATE INDEX concept_labels_uri ON concept_labels (workspace, uri);
    CREATE INDEX concept_labels_key ON concept_labels (workspace, key);
    CREATE INDEX concept_labels_initials ON concept_labels (workspace, initials);
    CREATE INDEX concept_labels_vocabulary ON concept_labels (workspace, vocabulary);
    """ + "".join(_POLICY.format(table=t) for t in VOCABULARY_TABLES),
    # 5: the keyword arm's rows with every term (abstain.stores.keyword_bounds, rule 3):
    #    the terms' own prefix queries (abstain_tsquery), AND-ed
    """
    CREATE FUNCTION abstain_tsquery_all(terms text[]) RETURNS tsquery
        LANGUAGE sql STABLE PARALLEL SAFE
        RETURN (SELECT string_agg('(' || q::text || ')', ' & ' ORDER BY n)::tsquery
                FROM (SELECT abstain_tsquery(ARRAY[t]) AS q, n
                      FROM unnest(terms) WITH ORDINALITY AS u(t, n)) AS s
                WHERE q IS NOT NULL AND numnode(q) > 0);
    """,
    # 6: impact-ordered postings (abstain.stores.keyword_bounds, rule 4): a row per (chunk,
    #    lexeme) with the lexeme's BM25 term-frequency factor in the chunk (headings count
    #    twice), kept by statement triggers (one INSERT ... SELECT per statement: a bulk load
    #    stays one statement); a query term reads its best rows from the primary key,
    #    backwards. A removed chunk's rows are found again by recomputing them and looked
    #    up one by one in the key (no second index; a foreign-key cascade deletes a
    #    document's chunks in a statement of their own, which must not scan the table).
    #    Existing chunks are filled in once, before the key is built (one sort).
    """
    CREATE FUNCTION abstain_chunk_terms(tsv tsvector) RETURNS TABLE (term text, impact real)
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    BEGIN ATOMIC
        SELECT u.lexeme, (f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * d.len / 40.0)))::real
        FROM (SELECT coalesce(sum(cardinality(v.positions)), 0)::float8 AS len
              FROM unnest(tsv) AS v) AS d,
             unnest(tsv) AS u,
             LATERAL (SELECT sum(CASE w WHEN 'A' THEN 2 ELSE 1 END)::float8 AS tf
                      FROM unnest(u.weights) AS w) AS f;
    END;
    CREATE TABLE chunk_terms (
        workspace text NOT NULL,
        term text COLLATE "C" NOT NULL,
        impact real NOT NULL,
        seq bigint NOT NULL
    );
    SELECT set_config('abstain.all_workspaces', 'on', true);
    INSERT INTO chunk_terms (workspace, term, impact, seq)
        SELECT c.workspace, t.term, t.impact, c.seq
        FROM chunks c, abstain_chunk_terms(c.tsv) AS t WHERE c.tsv IS NOT NULL;
    SELECT set_config('abstain.all_workspaces', '', true);
    ALTER TABLE chunk_terms ADD PRIMARY KEY (workspace, term, impact, seq);
    ANALYZE chunk_terms;
    CREATE FUNCTION abstain_chunk_terms_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO chunk_terms (workspace, term, impact, seq)
            SELECT n.workspace, t.term, t.impact, n.seq
            FROM added AS n, abstain_chunk_terms(n.tsv) AS t WHERE n.tsv IS NOT NULL;
        RETURN NULL;
    END $$;
    CREATE FUNCTION abstain_chunk_terms_removed() RETURNS trigger LANGUAGE plpgsql
        SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
    BEGIN
        DELETE FROM chunk_terms AS c
            USING (SELECT o.workspace, t.term, t.impact, o.seq
                   FROM removed AS o, abstain_chunk_terms(o.tsv) AS t
                   WHERE o.tsv IS NOT NULL) AS r
            WHERE c.workspace = r.workspace AND c.term = r.term AND c.impact = r.impact
              AND c.seq = r.seq;
        RETURN NULL;
    END $$;
    CREATE TRIGGER chunks_terms_added AFTER INSERT ON chunks REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION abstain_chunk_terms_added();
    CREATE TRIGGER chunks_terms_removed AFTER DELETE ON chunks REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION abstain_chunk_terms_removed();
    """ + _POLICY.format(table="chunk_terms"),
    # 7: searchable chunks per workspace, all and published, kept by statement triggers: the
    #    gate's term counts need the total on every question, and counting it read every
    #    chunk of the workspace (0.6 s at 1M chunks)
    """
    CREATE TABLE chunk_counts (
        workspace text PRIMARY KEY,
        searchable bigint NOT NULL,
        published bigint NOT NULL
    );
    SELECT set_config('abstain.all_workspaces', 'on', true);
    INSERT INTO chunk_counts (workspace, searchable, published)
        SELECT workspace, count(*), count(*) FILTER (WHERE published) FROM chunks
        WHERE tsv IS NOT NULL GROUP BY workspace;
    SELECT set_config('abstain.all_workspaces', '', true);
    CREATE FUNCTION abstain_chunk_counts_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO chunk_counts AS k (workspace, searchable, published)
            SELECT workspace, count(*), count(*) FILTER (WHERE published) FROM added
            WHERE tsv IS NOT NULL GROUP BY workspace
            ON CONFLICT (workspace) DO UPDATE SET searchable = k.searchable + excluded.searchable,
                                                  published = k.published + excluded.published;
        RETURN NULL;
    END $$;
    CREATE FUNCTION abstain_chunk_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE chunk_counts AS k SET searchable = k.searchable - r.n, published = k.published - r.p
            FROM (SELECT workspace, count(*) AS n, count(*) FILTER (WHERE published) AS p
                  FROM removed WHERE tsv IS NOT NULL GROUP BY workspace) AS r
            WHERE k.workspace = r.workspace;
        RETURN NULL;
    END $$;
    CREATE FUNCTION abstain_chunk_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE chunk_counts AS k SET published = k.published + d.delta
            FROM (SELECT a.workspace, sum(a.published::int - b.published::int) AS delta
                  FROM after AS a JOIN before AS b USING (seq)
                  WHERE a.tsv IS NOT NULL GROUP BY a.workspace) AS d
            WHERE k.workspace = d.workspace AND d.delta <> 0;
        RETURN NULL;
    END $$;
    CREATE TRIGGER chunks_counts_added AFTER INSERT ON chunks REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION abstain_chunk_counts_added();
    CREATE TRIGGER chunks_counts_removed AFTER DELETE ON chunks REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION abstain_chunk_counts_removed();
    CREATE TRIGGER chunks_counts_changed AFTER UPDATE ON chunks
        REFERENCING OLD TABLE AS before NEW TABLE AS after
        FOR EACH STATEMENT EXECUTE FUNCTION abstain_chunk_counts_changed();
    """ + _POLICY.format(table="chunk_counts"),
    # 8: the same postings as migration 6's function, computed ~25% faster (a chunk's
    #    term frequency from its weights' count and its headings' 'A' count, no subquery
    #    per word; a body PostgreSQL can inline): the same numbers, so the rows written
    #    before are found again by the delete trigger; and a statement's new postings
    #    inserted in key order (neighbouring keys share leaf pages: ~15% faster at 20,000
    #    chunks into a kept key)
    """
    CREATE OR REPLACE FUNCTION abstain_chunk_terms_added() RETURNS trigger
        LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO chunk_terms (workspace, term, impact, seq)
            SELECT n.workspace, t.term, t.impact, n.seq
            FROM added AS n, abstain_chunk_terms(n.tsv) AS t WHERE n.tsv IS NOT NULL
            ORDER BY 1, 2, 3, 4;
        RETURN NULL;
    END $$;
    CREATE OR REPLACE FUNCTION abstain_chunk_terms(tsv tsvector)
        RETURNS TABLE (term text, impact real)
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
        SELECT u.lexeme, (f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * d.len / 40.0)))::real
        FROM (SELECT coalesce(sum(cardinality(v.positions)), 0)::float8 AS len
              FROM unnest($1) AS v) AS d,
             unnest($1) AS u,
             LATERAL (SELECT (cardinality(u.weights)
                              + cardinality(array_positions(u.weights, 'A')))::float8 AS tf
                     ) AS f
    $$;
    """,
]


def migrate(conn: Conn) -> int:
    """Ensure the extensions, then apply pending migrations in one transaction."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_LOCK,))
        _ensure_extensions(conn)
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                     " version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        version = int(row[0]) if row else 0
        if version > len(MIGRATIONS):
            raise StoreError(f"database schema version {version} is newer than this abstain "
                             f"({len(MIGRATIONS)}); upgrade abstain")
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            conn.execute(script.encode())
            conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (number,))
        if version < len(MIGRATIONS) and is_privileged(conn):
            _hand_to_app_role(conn)
        _let_rls_use_the_text_index(conn)
    return len(MIGRATIONS)


def is_privileged(conn: Conn) -> bool:
    """Whether the connecting user bypasses row-level security (superuser or BYPASSRLS)."""
    row = conn.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles"
                       " WHERE rolname = current_user").fetchone()
    return bool(row and row[0])


def _ensure_extensions(conn: Conn) -> None:
    present = {r[0] for r in conn.execute(
        "SELECT extname FROM pg_extension WHERE extname IN ('vector', 'unaccent')")}
    for name in ("vector", "unaccent"):
        if name in present:
            continue
        try:
            with conn.transaction():
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {name}".encode())
        except psycopg.Error as exc:
            what = "pgvector (https://github.com/pgvector/pgvector)" if name == "vector" \
                else "the contrib module unaccent"
            raise StoreError(
                f"database {conn.info.dbname!r} lacks the {name!r} extension and it cannot be "
                f"created ({_first_line(exc)}). Install {what} on the server and run "
                f"CREATE EXTENSION {name} as a superuser, or try `abstain pg start`.") from exc


def _hand_to_app_role(conn: Conn) -> None:
    conn.execute(f"""
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
                CREATE ROLE {APP_ROLE} NOLOGIN;
            END IF;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END $$;
        GRANT USAGE, CREATE ON SCHEMA public TO {APP_ROLE};
    """.encode())
    for table in ("meta", "schema_migrations", "embedding_cache", *TENANT_TABLES, "query_log",
                  "staged_chunks", *VOCABULARY_TABLES, "chunk_terms", "chunk_counts"):
        conn.execute(f"ALTER TABLE {table} OWNER TO {APP_ROLE}".encode())


def _let_rls_use_the_text_index(conn: Conn) -> None:
    """Mark ``tsvector @@ tsquery`` LEAKPROOF in this database (superusers only).

    Under row-level security the planner uses only leakproof operators as index
    conditions, and ``@@`` is not marked so: the keyword arm would scan every row
    instead of the GIN index. ``ts_match_vq`` raises no data-dependent errors, so
    marking it cannot leak hidden rows. The change lives in this database's catalog
    only (a dump/restore drops it; opening the store as a superuser restores it).
    """
    row = conn.execute("SELECT p.proleakproof, r.rolsuper FROM pg_proc p, pg_roles r"
                       " WHERE p.oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure"
                       " AND r.rolname = current_user").fetchone()
    if row is not None and not row[0] and row[1]:
        conn.execute("ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
