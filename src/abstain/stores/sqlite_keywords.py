"""The keyword index of a large SQLite store: tantivy, ranked with early termination.

FTS5 ranks by scoring every row that matches a query: at 1M chunks three ordinary
words match ~40,000 rows each and the arm takes 100 ms or more, whatever the budget
(:mod:`abstain.stores.keyword_bounds`). From ``KEYWORD_THRESHOLD`` rows in the
full-text index the store ranks instead with a tantivy index beside the database
(``<db>.kw/``, the ``ann`` extra), whose BM25 top-k search skips every block of
postings whose score upper bound cannot reach the current top k (block-max WAND): a
frequent word costs no more than the few blocks where it can still matter.

The rule of the large store's keyword arm:

1. The index holds each chunk's Porter stems (FTS5's ``porter`` tokenizer stems alike; the
   headings twice, FTS5's column weight 2) in ``words``, and every prefix of each stem from
   two letters on in ``prefixes``, so that a query word matches as a prefix exactly as
   FTS5's ``"word"*`` does: BM25 over the prefix (its document frequency, its
   occurrences). Numbers match whole (``words``), identifiers as phrases.
2. Each workspace's terms carry a prefix of their own (a hash of its name): its postings
   and BM25 statistics are its own, and a search reads nothing else.
3. The terms of ``keyword_bounds`` rule 1 (a word in more than 10% of the chunks, when a
   rarer one remains) are dropped first, as there (the word's own count).
4. tantivy returns the BM25 top ``limit`` (k1 1.2, b 0.75) of the OR-ed terms without
   scoring every match; unpublished rows are filtered out after by SQLite, asking for more
   while too few remain (up to ``MAX_FETCH``).

Crash safety follows the approximate vector index (:mod:`abstain.stores.sqlite_ann`):
once an index exists (the ``keyword_index`` row of ``meta``), triggers on ``chunks``
write a ``keyword_log`` row for each searchable chunk added or removed, in the writing
transaction. A search replays the log entries after the index's ``state.json`` (the
last entry it holds, written after each tantivy commit) into the index, then prunes
them; replaying is idempotent (a chunk is deleted by rowid before it is added), so a
crash between the commit and the state file costs a second replay, never a wrong
index. An index whose state cannot be caught up (a missing or unreadable folder, a
log pruned past it, a database restored from an older backup) or that holds another
number of chunks than the database after replaying is rebuilt, with a logged reason.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import Stemmer

from abstain.errors import MissingDependency
from abstain.evidence import ArmHit
from abstain.query import KeywordQuery
from abstain.stores import keyword_bounds, sqlite_changes
from abstain.stores.notes import note
from abstain.stores.sqlite_sql import in_batches
from abstain.text import tokens

log = logging.getLogger("abstain.stores")

KEYWORD_THRESHOLD = 20_000
"""Rows of the full-text index from which the keyword index answers (below, FTS5 is
fast and ranks exactly as always)."""
FORMAT = 1
"""The index's layout (fields, terms); an index of another format is rebuilt."""
BATCH = 5_000
WRITER_HEAP = 128_000_000
MAX_FETCH = 4_000
"""The most hits asked of tantivy while unpublished rows are filtered out."""
_PORTER = Stemmer.Stemmer("porter")
"""FTS5's ``porter`` tokenizer stems so: the index and the query stem alike."""
_TOKENIZER = "abstain_whitespace"


def _tantivy() -> Any:
    try:
        import tantivy
    except ImportError as exc:
        raise MissingDependency("tantivy", "ann") from exc
    return tantivy


def available() -> bool:
    try:
        _tantivy()
    except MissingDependency:
        return False
    return True


def folder_of(db_path: str) -> Path | None:
    """Where the database's keyword index lives (None for an in-memory database)."""
    return sqlite_changes.folder_beside(db_path, ".kw")


@dataclass
class KeywordIndex:
    """The store's tantivy index, as of log entry ``seq``."""

    folder: Path
    index: Any
    seq: int

    # -- search -----------------------------------------------------------
    def search(self, keywords: KeywordQuery, workspace: str, limit: int) -> list[tuple[int, float]]:
        """(chunk rowid, BM25 score) of the best ``limit`` rows of the workspace, best first."""
        tantivy = _tantivy()
        searcher = self.index.searcher()
        clauses = self._clauses(tantivy, searcher, keywords, _space(workspace))
        if not clauses:
            return []
        query = tantivy.Query.boolean_query([(tantivy.Occur.Should, c) for c in clauses])
        result = searcher.search(query, limit, count=False)
        return [(int(searcher.doc(address)["rowid"][0]), float(score))
                for score, address in result.hits]

    def _clauses(self, tantivy: Any, searcher: Any, keywords: KeywordQuery,
                 space: str) -> list[Any]:
        """One query per part of the FTS5 query: a word as a prefix, a number whole, an
        identifier as a phrase; the frequent words dropped (``keyword_bounds`` rule 1)."""
        schema = self.index.schema
        terms: dict[str, tuple[str, str]] = {}  # part -> (field, term)
        phrases: list[list[str]] = []
        for part in keywords.fts5_parts():
            words = [space + _PORTER.stemWord(w) for w in part.strip('"*').split()]
            if len(words) > 1:
                phrases.append(words)
            elif words:
                terms[part] = ("prefixes" if part.endswith("*") else "words", words[0])
        if len(terms) > 1:
            rows = searcher.num_docs
            if rows > keyword_bounds.frequent_above(rows):
                # the word's own count, as FTS5's vocabulary gives it (a prefix's is larger)
                frequency = {p: searcher.doc_freq("words", term) for p, (_, term) in terms.items()}
                terms = {p: terms[p] for p in keyword_bounds.prune(frequency, rows)}
        return ([tantivy.Query.term_query(schema, field, term, index_option="freq")
                 for field, term in terms.values()]
                + [tantivy.Query.phrase_query(schema, "words", words) for words in phrases])

    def __len__(self) -> int:
        return int(self.index.searcher().num_docs)

    # -- catching up ------------------------------------------------------
    def current(self, conn: sqlite3.Connection) -> bool:
        """Whether the index holds every logged change."""
        return self.seq >= _newest(conn)

    def catch_up(self, conn: sqlite3.Connection) -> bool:
        """Apply the log entries after ``seq``; False when another process holds the
        index's writer (the caller searches with FTS5 this time)."""
        newest = _newest(conn)
        if newest <= self.seq:
            return True
        saved = _saved_seq(self.folder)
        if saved is not None and saved >= newest:  # another process caught up
            self.index.reload()
            self.seq = saved
            return True
        tantivy = _tantivy()
        try:
            writer = self.index.writer(heap_size=WRITER_HEAP, num_threads=1)
        except ValueError:
            return False
        seq = max(self.seq, saved or 0)  # the folder holds what other processes applied
        while True:
            entries = conn.execute("SELECT seq, chunk_rowid, added FROM keyword_log"
                                   " WHERE seq > ? ORDER BY seq LIMIT ?",
                                   (seq, BATCH)).fetchall()
            if not entries:
                break
            added = {int(e[1]) for e in entries if e[2]}
            texts = {r[0]: r for r in _rows(conn, sorted(added))}
            for _, rowid, was_added in entries:
                writer.delete_documents_by_term("rowid", int(rowid))
                if was_added and rowid in texts:
                    writer.add_document(_document(tantivy, texts[rowid]))
            seq = int(entries[-1][0])
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.seq = seq
        _save_seq(self.folder, seq)
        return True


def search(conn: sqlite3.Connection, index: KeywordIndex, keywords: KeywordQuery, *,
           workspace: str, limit: int, published_only: bool) -> list[ArmHit]:
    """The keyword arm through the index: the workspace's top ``limit`` rows, asking
    tantivy for more while unpublished ones are filtered out."""
    want = limit
    while True:
        found = index.search(keywords, workspace, want)
        rows: dict[int, tuple[Any, ...]] = {}
        for part, marks in in_batches([rowid for rowid, _ in found]):
            rows.update((r[0], r[1:]) for r in conn.execute(
                "SELECT c.rowid, c.id, c.kind, c.parent_id, d.published FROM chunks c"
                f" JOIN documents d ON d.id = c.document_id WHERE c.rowid IN ({marks})", part))
        kept = [(rows[rowid], score) for rowid, score in found
                if rowid in rows and (rows[rowid][3] or not published_only)]
        if len(kept) >= limit or len(found) < want or want >= MAX_FETCH:
            break
        want = min(MAX_FETCH, want * 4)
    return [ArmHit(chunk_id=row[0], rank=i, score=score,
                   collapse_to=row[2] if row[1] == "paraphrase" else None)
            for i, (row, score) in enumerate(kept[:limit], start=1)]


class KeywordIndexed:
    """The SQLite store's side of its keyword index: when to use it, and keeping it caught
    up (one index per store, shared by its threads)."""

    path: str
    keyword_threshold: int
    keyword_rebuilds: list[str]
    _keywords: KeywordIndex | None
    _ann_missing_warned: bool
    _lock: threading.RLock

    def _fts_rows(self, conn: sqlite3.Connection) -> int:
        raise NotImplementedError

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _keyword_index(self, conn: sqlite3.Connection) -> KeywordIndex | None:
        """The keyword index, caught up with the database, once the store holds
        ``keyword_threshold`` searchable chunks (None below, without tantivy, or while
        another process builds or catches up the index: FTS5 answers then)."""
        folder = folder_of(self.path)
        if folder is None or (self._keywords is None
                              and self._fts_rows(conn) < self.keyword_threshold):
            return None  # an index left by a larger past is caught up when it grows again
        if not available():
            if not self._ann_missing_warned:
                self._ann_missing_warned = True
                log.warning("%s: pip install 'abstain[ann]' for the keyword index of a large "
                            "store; FTS5 ranks every match meanwhile", self.path)
            _fts5_answers("the keyword index needs the ann extra "
                          "(pip install 'abstain[ann]')")
            return None
        if self._keywords is not None and self._keywords.current(conn):
            return self._keywords
        with self._lock, writer_lock(folder) as mine:
            if not mine:
                _fts5_answers("another process is building or catching up the "
                              "keyword index")
                return None
            try:
                index, before = self._keywords, -1
                if index is None:
                    existed = conn.execute(
                        "SELECT 1 FROM meta WHERE key = 'keyword_index'").fetchone() is not None
                    index, reason = open_index(conn, folder)
                    if reason is not None and existed:
                        self.keyword_rebuilds.append(f"{reason}; rebuilt from the database")
                        log.warning("%s: keyword index: %s; rebuilt from the database",
                                    self.path, reason)
                        note(f"keyword index: {reason}; rebuilt from the database")
                    self._keywords = index
                else:
                    before = index.seq
                    index.catch_up(conn)
                if index.seq != before:
                    with self._transaction() as writing:
                        prune_log(writing, index.seq)
                if not index.current(conn):
                    _fts5_answers("the keyword index could not be caught up with the "
                                  "database this time")
                    return None
                return index
            except (OSError, ValueError, sqlite3.Error) as exc:
                log.warning("%s: keyword index unusable (%s); FTS5 answers", self.path, exc)
                _fts5_answers(f"the keyword index is unusable ({exc})")
                return None


def _fts5_answers(why: str) -> None:
    """Note, for the answer's audit trail, that FTS5 ranked the keyword arm instead of the
    index (same matches, every one ranked: slower on a large store)."""
    note(f"keyword arm ranked by FTS5: {why}")


@contextmanager
def writer_lock(folder: Path) -> Iterator[bool]:
    """Hold ``<folder>.lock`` (an advisory lock of this process) while the index is built or
    caught up; yields False, without waiting, when another process holds it."""
    with open(folder.with_name(folder.name + ".lock"), "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def open_index(conn: sqlite3.Connection, folder: Path) -> tuple[KeywordIndex, str | None]:
    """The store's keyword index, caught up, or (re)built; with the reason for a rebuild."""
    saved = _saved_seq(folder)
    reason = f"no keyword index of format {FORMAT} in {folder.name}"
    if saved is not None:
        reason = _loadable(conn, saved) or ""
        if not reason:
            try:
                index = KeywordIndex(folder, _open(folder, create=False), saved)
            except (OSError, ValueError) as exc:
                reason = f"{folder.name} is unreadable ({exc})"
            else:
                if not index.catch_up(conn):
                    return index, None  # behind; another process is catching it up
                expected = indexed_count(conn)
                if len(index) == expected:
                    return index, None
                reason = (f"{folder.name} holds {len(index)} chunks after replaying the"
                          f" log, the database {expected}")
    return build(conn, folder), reason


def build(conn: sqlite3.Connection, folder: Path) -> KeywordIndex:
    """A fresh index over every searchable chunk, read from one snapshot of the database."""
    tantivy = _tantivy()
    conn.execute("INSERT INTO meta (key, value) VALUES ('keyword_index', '1')"
                 " ON CONFLICT (key) DO NOTHING")  # the triggers log from now on
    shutil.rmtree(folder, ignore_errors=True)
    index = _open(folder, create=True)
    writer = index.writer(heap_size=WRITER_HEAP, num_threads=1)
    conn.execute("BEGIN")  # one snapshot: the log's position and the rows agree
    try:
        seq = _newest(conn)
        last = -1
        while True:
            rows = conn.execute(
                "SELECT f.rowid, f.headings, f.body, d.workspace FROM chunks_fts f"
                " JOIN chunks c ON c.rowid = f.rowid JOIN documents d ON d.id = c.document_id"
                " WHERE f.rowid > ? ORDER BY f.rowid LIMIT ?", (last, BATCH)).fetchall()
            if not rows:
                break
            for row in rows:
                writer.add_document(_document(tantivy, row))
            last = int(rows[-1][0])
    finally:
        conn.execute("COMMIT")
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    _save_seq(folder, seq)
    return KeywordIndex(folder, index, seq)


def prune_log(conn: sqlite3.Connection, seq: int) -> None:
    """Drop the log entries the saved index holds (in a write transaction)."""
    sqlite_changes.prune(conn, "keyword_log", seq)


def indexed_count(conn: sqlite3.Connection) -> int:
    """Rows of the full-text index (its docsize shadow table: one small row per chunk)."""
    return int(conn.execute("SELECT count(*) FROM chunks_fts_docsize").fetchone()[0])


def _open(folder: Path, *, create: bool) -> Any:
    tantivy = _tantivy()
    if create:
        folder.mkdir(parents=True, exist_ok=True)
        schema = tantivy.SchemaBuilder()
        schema.add_text_field("words", tokenizer_name=_TOKENIZER)
        schema.add_text_field("prefixes", tokenizer_name=_TOKENIZER, index_option="freq")
        schema.add_integer_field("rowid", stored=True, indexed=True, fast=True)
        index = tantivy.Index(schema.build(), path=str(folder))
    else:
        if not tantivy.Index.exists(str(folder)):
            raise OSError("no index in it")
        index = tantivy.Index.open(str(folder))
    index.register_tokenizer(
        _TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())
    return index


def _document(tantivy: Any, row: tuple[Any, ...]) -> Any:
    """A chunk as the index holds it: its stems (the headings twice, FTS5's weight 2), and
    every prefix of each stem from two letters on (FTS5's ``"word"*``), in the workspace's
    own terms."""
    rowid, headings, body, workspace = row
    stems = _PORTER.stemWords(tokens(f"{headings or ''}\n{headings or ''}\n{body or ''}"))
    space = _space(workspace)
    return tantivy.Document(rowid=int(rowid), words=" ".join(space + s for s in stems),
                            prefixes=" ".join(_prefixes(space, s) for s in stems))


@functools.lru_cache(maxsize=65536)
def _prefixes(space: str, stem: str) -> str:
    return " ".join(space + stem[:n] for n in range(min(2, len(stem)), len(stem) + 1))


@functools.lru_cache(maxsize=1024)
def _space(workspace: str) -> str:
    """The prefix of a workspace's terms: each workspace has its own postings and its own
    BM25 statistics in one index, and a search reads only its own."""
    return hashlib.blake2b(workspace.encode(), digest_size=6).hexdigest() + ":"


def _rows(conn: sqlite3.Connection, rowids: list[int]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for part, marks in in_batches(rowids):
        out += conn.execute(
            "SELECT f.rowid, f.headings, f.body, d.workspace FROM chunks_fts f"
            " JOIN chunks c ON c.rowid = f.rowid JOIN documents d ON d.id = c.document_id"
            f" WHERE f.rowid IN ({marks})", part).fetchall()
    return out


def _loadable(conn: sqlite3.Connection, seq: int) -> str | None:
    return sqlite_changes.unloadable(conn, "keyword_log", seq, "the keyword index")


def _newest(conn: sqlite3.Connection) -> int:
    return sqlite_changes.newest(conn, "keyword_log")


def _saved_seq(folder: Path) -> int | None:
    """The last log entry the index in ``folder`` holds (None: no index of this format)."""
    try:
        state = json.loads((folder / "state.json").read_text())
        return int(state["seq"]) if state.get("format") == FORMAT else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _save_seq(folder: Path, seq: int) -> None:
    temporary = folder / f".state.{os.getpid()}.tmp"
    temporary.write_text(json.dumps({"seq": seq, "format": FORMAT}))
    os.replace(temporary, folder / "state.json")
