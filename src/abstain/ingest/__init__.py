"""Ingestion: files -> parsed sections -> parent/child chunks -> vectors -> store.

Which files, and the source each one is identified by, is decided in
:mod:`abstain.ingest.sources` (docs/INGEST.md states the rule). Re-ingesting an
unchanged file is a no-op (content hash); a broken or unsupported file is
reported and skipped while the rest goes in; a path that does not exist is an
error before anything is read. Vectors are cached by text hash, so unchanged
passages are never embedded twice.

A document is chunked, embedded and written ``batch_chunks`` searchable chunks at
a time, so memory stays flat and progress is reported per batch. A document of
one batch is written in one transaction; a larger one is staged batch by batch
where no search reads it, then replaces the old version in one transaction: it
becomes visible complete or not at all, also when the process is killed. A store that
loads in bulk (PostgreSQL) gets a folder's one-batch documents ``BULK_CHUNKS`` searchable
chunks at a time, in one transaction each.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

import numpy as np

from abstain.embed.base import Embedder, embed_texts
from abstain.errors import IngestError, InputError, SourceConflict
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.ingest.blocks import ParsedDocument
from abstain.ingest.chunk import ChunkingConfig, iter_chunks, paraphrase_chunks
from abstain.ingest.parse import (
    READ_AS,
    parse_bytes,
    parse_file,
    parse_string,
    readable,
    unsupported,
)
from abstain.ingest.screen import first_quote, record, screen, summary
from abstain.ingest.sources import FileSource, Skip, check_paths_exist, iter_sources, roots
from abstain.stores.base import (
    BulkStore,
    DocumentInfo,
    EmbedderInfo,
    Store,
    check_workspace,
)
from abstain.text import find_identifiers

Paraphraser = Callable[[Chunk], Sequence[str]]
"""Returns paraphrases / hypothetical questions for one child chunk (e.g. from an LLM)."""

BATCH_CHUNKS = 512
"""Searchable chunks embedded and written per batch."""
BULK_CHUNKS = 4096
"""A store that loads in bulk (:class:`~abstain.stores.base.BulkStore`) gets the small
documents of a folder this many searchable chunks at a time, one transaction each."""


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    """Documents deleted by ``prune`` because their file is gone."""
    gone: list[str] = field(default_factory=list)
    """Without ``prune``: documents under the ingested folders whose file is gone (they still
    answer until pruned or removed)."""
    screened: list[tuple[str, str]] = field(default_factory=list)
    """(source, what was left out): hidden text and sentences addressed to a model
    (:mod:`abstain.ingest.screen`)."""
    read_as: list[tuple[str, str]] = field(default_factory=list)
    """(source, what it was read as): a ``.txt`` file read as the format it is written in,
    or as plain text because that format's parser is missing
    (:data:`abstain.ingest.parse.READ_AS`)."""
    screened_quotes: dict[str, str] = field(default_factory=dict)
    """source -> the first text left out of it (:func:`abstain.ingest.screen.first_quote`):
    what a reader checks to see that nothing of the subject was lost."""
    chunks: int = 0
    embedded: int = 0
    """Passages actually run through the embedder (cache misses)."""
    rebuilt_indexes: list[str] = field(default_factory=list)
    """Indexes a bulk load dropped and built again after it (PostgreSQL, a load at least as
    large as the table): searches of the workspace's tables waited while they were built."""

    def summary(self) -> str:
        parts = [f"{len(self.added)} added", f"{len(self.updated)} updated",
                 f"{len(self.unchanged)} unchanged", f"{len(self.skipped)} skipped",
                 f"{len(self.removed)} removed",
                 f"{self.chunks} chunk{'' if self.chunks == 1 else 's'} written"]
        return ", ".join(parts)

    def merge(self, other: IngestReport) -> None:
        for name in ("added", "updated", "unchanged", "skipped", "removed", "gone", "screened",
                     "read_as", "rebuilt_indexes"):
            getattr(self, name).extend(getattr(other, name))
        self.screened_quotes.update(other.screened_quotes)
        self.chunks += other.chunks
        self.embedded += other.embedded

    def to_json(self) -> dict[str, object]:
        return {"added": self.added, "updated": self.updated, "unchanged": self.unchanged,
                "skipped": [{"source": s, "reason": r} for s, r in self.skipped],
                "removed": self.removed, "gone": self.gone, "chunks": self.chunks,
                "embedded": self.embedded,
                "screened": self.screened_json(),
                "read_as": [{"source": s, "as": a} for s, a in self.read_as],
                "rebuilt_indexes": self.rebuilt_indexes}

    def screened_json(self) -> list[dict[str, str]]:
        """``{"source", "left_out", "first"}`` for each document with text left out."""
        return [{"source": s, "left_out": w, "first": self.screened_quotes.get(s, "")}
                for s, w in self.screened]


def iter_files(paths: Iterable[str | Path], *, follow_symlinks: bool = False
               ) -> Iterable[tuple[str, Path]]:
    """(source, path) for each file that would be ingested; directories in sorted order."""
    for item in iter_sources(paths, follow_symlinks=follow_symlinks):
        if isinstance(item, FileSource):
            yield item.source, item.path


def document_id(workspace: str, source: str) -> str:
    return hashlib.sha1(f"{workspace}\x00{source}".encode()).hexdigest()[:16]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def embedding_text(title: str, chunk: Chunk) -> str:
    """What the vector arm sees: title and heading path give a passage its context (the
    heading lines a section's first chunk opens with are not repeated after it)."""
    names = dict.fromkeys((title, *chunk.heading_path))
    context = " > ".join(names)
    lines = chunk.text.split("\n")
    while len(lines) > 1 and lines[0] in names:
        lines.pop(0)
    text = "\n".join(lines)
    return f"{context}\n{text}" if context else text


@dataclass
class Ingester:
    store: Store
    embedder: Embedder
    workspace: str
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    paraphraser: Paraphraser | None = None
    on_progress: Callable[[str, int], None] | None = None
    """Called with (event, n): ("file", 1) per file, ("embed", n) per embedded batch,
    ("chunks", n) per batch of searchable chunks written or staged."""
    follow_symlinks: bool = False
    batch_chunks: int = BATCH_CHUNKS
    _legacy: dict[str, DocumentInfo] = field(default_factory=dict, init=False, repr=False)
    """Documents of older stores, keyed by their as-typed source made absolute here."""
    _stored: set[str] = field(default_factory=set, init=False, repr=False)
    """The sources stored when the sync began (a skipped file's earlier version)."""
    _pending: list[tuple[Document, list[Chunk], np.ndarray, list[str]]] | None = field(
        default=None, init=False, repr=False)
    """Small documents of a folder waiting for one bulk write (None: written one by one)."""
    _pending_chunks: int = field(default=0, init=False, repr=False)
    """Searchable chunks in ``_pending`` (counted as they come, not summed per document)."""

    def __post_init__(self) -> None:
        check_workspace(self.workspace)
        if self.batch_chunks < 1:
            raise ValueError("batch_chunks must be >= 1")

    def ingest_paths(self, paths: Iterable[str | Path], *, prune: bool = False) -> IngestReport:
        """Ingest files and folders; ``prune`` also removes the documents under each folder
        whose file is gone (a folder sync). A path that does not exist raises InputError."""
        given = list(paths)
        check_paths_exist(given)
        report = IngestReport()
        seen: set[str] = set()
        unlisted: list[Path] = []  # folders that could not be read: their documents stay
        stored = self.store.list_documents(self.workspace)  # read once for the whole sync
        self._legacy = {os.path.realpath(d.source): d for d in stored if d.origin == ""}
        self._stored = {d.source for d in stored}
        self._pending = [] if isinstance(self.store, BulkStore) else None
        self._pending_chunks = 0
        try:
            own = self._own_files()
            beside = own_folders(own)
            for item in iter_sources(given, follow_symlinks=self.follow_symlinks):
                if item.source in own or item.source.startswith(beside):
                    continue  # the store's own database, written beside the documents
                seen.add(item.source)
                try:
                    if isinstance(item, Skip):
                        report.skipped.append((item.source, item.reason))
                        if item.folder:
                            unlisted.append(Path(item.source))
                    else:
                        self._ingest_file(item, report)
                except IngestError as exc:
                    report.skipped.append((item.source, self._kept(item.source, exc.reason)))
                except OSError as exc:
                    report.skipped.append((item.source, self._kept(
                        item.source, f"cannot read: {exc.strerror or exc}")))
                finally:
                    self._progress("file", 1)
            self._flush(report)
        finally:
            self._pending = None
        gone = _gone(stored, roots(given), seen, unlisted)
        if prune:
            report.removed += [d.source for d in gone
                               if self.store.delete_document(self.workspace, d.id)]
        else:
            report.gone += [d.source for d in gone]
        return report

    def ingest_text(self, text: str, *, source: str, fmt: str = "md",
                    title: str | None = None) -> IngestReport:
        if not text.strip():
            raise InputError(f"{source}: the document is empty")

        def parse() -> ParsedDocument:
            parsed = parse_string(text, name=title or source, fmt=fmt)
            return dataclasses.replace(parsed, title=title) if title else parsed

        return self._ingest_sent(source, hashlib.sha256(text.encode()).hexdigest(), parse)

    def ingest_bytes(self, data: bytes, *, source: str) -> IngestReport:
        """A file's bytes (an upload), parsed by ``source``'s suffix as :meth:`ingest_paths`
        parses a file — a workbook's sheets, a Word table's rows — and stored as the text
        document ``source`` (its identity, as for :meth:`ingest_text`)."""
        digest = hashlib.sha256(b"file\0" + data).hexdigest()  # not the same text sent as text
        return self._ingest_sent(source, digest, lambda: parse_bytes(data, source))

    def _ingest_sent(self, source: str, digest: str,
                     parse: Callable[[], ParsedDocument]) -> IngestReport:
        """A document sent rather than read from a file (origin ``text``): unchanged when its
        digest is the stored one, else parsed and written."""
        report = IngestReport()
        existing = self.store.document(self.workspace, source)
        _check_origin(existing, source, "text", self.workspace)
        if existing is not None and existing.content_hash == digest:
            report.unchanged.append(source)
            return report
        self._write(source, digest, parse(), report, origin="text", existed=existing is not None)
        return report

    def _own_files(self) -> frozenset[str]:
        """The store's database file and its companions (``-wal``, ``-shm``, ``-journal``)
        when the store is a file: never ingested as documents."""
        path = getattr(self.store, "path", None)
        if not isinstance(path, str) or path == ":memory:":
            return frozenset()
        base = os.path.realpath(os.path.expanduser(path))
        return frozenset({base, *(base + end for end in ("-wal", "-shm", "-journal"))})

    def _kept(self, source: str, reason: str) -> str:
        """A skip's reason, saying so when an earlier version of the file stays in the
        store (it keeps answering until the file is fixed or the document removed)."""
        if source not in self._stored:
            return reason
        return (f"{reason}; the version ingested before is kept (`abstain docs rm {source}` "
                "removes it)")

    def _ingest_file(self, item: FileSource, report: IngestReport) -> None:
        suffix = item.path.suffix.lower()
        if not readable(suffix):
            raise unsupported(item.source, suffix)
        if not item.path.is_file():  # reading a named pipe, socket or device could block
            raise IngestError(item.source, "not a regular file (a pipe, socket or device)")
        digest = file_hash(item.path)
        existing = self.store.document(self.workspace, item.source)
        _check_origin(existing, item.source, "file", self.workspace)
        if existing is not None and existing.content_hash == digest:
            report.unchanged.append(item.source)
            return
        parsed = parse_file(item.path)
        legacy = self._legacy.get(item.source) if existing is None else None
        if legacy is not None and legacy.content_hash != digest:
            legacy = None  # only an unchanged file is surely the same document
        self._write(item.source, digest, parsed, report, origin="file",
                    existed=existing is not None or legacy is not None)
        if legacy is not None:  # the same file, stored under its old as-typed source
            self._flush(report)
            self.store.delete_document(self.workspace, legacy.id)

    def _write(self, source: str, digest: str, parsed: ParsedDocument, report: IngestReport,
               *, origin: str, existed: bool) -> None:
        parsed = screen(parsed, fallback_title=Path(source).stem or source)
        if not parsed.sections:
            raise IngestError(source, "no text found" + (
                f" that a reader sees (left out: {summary(parsed.dropped)})"
                if parsed.dropped else ""))
        doc_id = document_id(self.workspace, source)
        meta = record(dict(parsed.metadata), parsed.dropped)
        document = Document(
            id=doc_id, workspace=self.workspace, source=source, title=parsed.title,
            content_hash=digest, curated=bool(meta.pop("curated", False)),
            published=bool(meta.pop("published", True)), metadata=meta, origin=origin,
        )
        info = EmbedderInfo(self.embedder.name, self.embedder.dim)
        self.store.discard_staged(doc_id)  # what a killed ingest of it left behind
        idents: dict[str, None] = dict.fromkeys(find_identifiers(parsed.title))
        batches = self._batches(self._chunks(doc_id, parsed))
        first = next(batches, [])
        second = next(batches, None)
        if second is None:
            vectors = self._embed_batch(document, first, idents, report)
            if self._pending is None:
                self.store.write_document(document, first, vectors, info, list(idents))
            else:
                self._pending.append((document, first, vectors, list(idents)))
                self._pending_chunks += len(vectors)
                if self._pending_chunks >= BULK_CHUNKS:
                    self._flush(report)
        else:
            self._write_staged(document, chain([first, second], batches), idents, report)
        (report.updated if existed else report.added).append(source)
        if READ_AS in parsed.metadata:
            report.read_as.append((source, str(parsed.metadata[READ_AS])))
        if parsed.dropped:
            report.screened.append((source, summary(parsed.dropped)))
            report.screened_quotes[source] = first_quote(parsed.dropped)

    def _flush(self, report: IngestReport) -> None:
        """Write the pending small documents in one bulk load; the indexes it rebuilt go into
        the report."""
        if not self._pending or not isinstance(self.store, BulkStore):
            return
        pending, self._pending, self._pending_chunks = self._pending, [], 0
        loaded = self.store.write_documents(
            [(d, c, v) for d, c, v, _ in pending],
            EmbedderInfo(self.embedder.name, self.embedder.dim),
            identifiers={d.id: idents for d, _, _, idents in pending})
        rebuilt = getattr(loaded, "rebuilt", ())  # a store's LoadReport (PostgreSQL's)
        report.rebuilt_indexes.extend(n for n in rebuilt if n not in report.rebuilt_indexes)

    def _write_staged(self, document: Document, batches: Iterable[list[Chunk]],
                      idents: dict[str, None], report: IngestReport) -> None:
        info = EmbedderInfo(self.embedder.name, self.embedder.dim)
        staging_id = f"{document.id}/{uuid.uuid4().hex}"
        staged = 0
        try:
            for batch in batches:
                vectors = self._embed_batch(document, batch, idents, report)
                self.store.stage_chunks(staging_id, document, batch, vectors, info)
                staged += len(batch)
            self.store.commit_staged(staging_id, document, info, list(idents), staged)
        except BaseException:
            self.store.discard_staged(document.id)
            raise

    def _embed_batch(self, document: Document, batch: list[Chunk], idents: dict[str, None],
                     report: IngestReport) -> np.ndarray:
        searchable = [c for c in batch if c.kind is not ChunkKind.PARENT]
        for chunk in batch:
            if chunk.kind is ChunkKind.PARENT:
                idents.update(dict.fromkeys(find_identifiers(chunk.text)))
        vectors = self._vectors([embedding_text(document.title, c) for c in searchable], report)
        report.chunks += len(searchable)
        self._progress("chunks", len(searchable))
        return vectors

    def _chunks(self, doc_id: str, parsed: ParsedDocument) -> Iterator[Chunk]:
        n = 0
        for chunk in iter_chunks(doc_id, parsed, self.chunking):
            yield chunk
            if self.paraphraser is not None and chunk.kind is ChunkKind.CHILD:
                extra = paraphrase_chunks(doc_id, chunk, self.paraphraser(chunk), n)
                n += len(extra)
                yield from extra

    def _batches(self, chunks: Iterator[Chunk]) -> Iterator[list[Chunk]]:
        """Runs of chunks holding at most ``batch_chunks`` searchable ones."""
        batch: list[Chunk] = []
        searchable = 0
        for chunk in chunks:
            if chunk.kind is not ChunkKind.PARENT:
                if searchable == self.batch_chunks:
                    yield batch
                    batch, searchable = [], 0
                searchable += 1
            batch.append(chunk)
        if batch:
            yield batch

    def _vectors(self, texts: list[str], report: IngestReport) -> np.ndarray:
        hashes = [text_hash(t) for t in texts]
        cached = self.store.cached_vectors(self.embedder.name, hashes)
        missing = [i for i, h in enumerate(hashes) if h not in cached]
        if missing:
            fresh = embed_texts(self.embedder, [texts[i] for i in missing],
                                on_batch=lambda n: self._progress("embed", n))
            new = {hashes[i]: fresh[j] for j, i in enumerate(missing)}
            self.store.cache_vectors(self.embedder.name, new)
            cached.update(new)
            report.embedded += len(missing)
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([cached[h] for h in hashes]).astype(np.float32)

    def _progress(self, event: str, n: int) -> None:
        if self.on_progress is not None:
            self.on_progress(event, n)


def _gone(stored: list[DocumentInfo], folders: list[Path], seen: set[str],
          unlisted: Sequence[Path] = ()) -> list[DocumentInfo]:
    """Of the documents stored before the sync, the file documents under ``folders`` that it
    did not meet and whose file no longer exists (the ones it wrote, it met); none under an
    ``unlisted`` folder, whose files cannot even be looked for (a folder turned unreadable
    must not prune what it holds)."""
    if not folders:
        return []
    return [doc for doc in stored
            if doc.origin == "file" and doc.source not in seen
            and not os.path.exists(doc.source)
            and any(Path(doc.source).is_relative_to(root) for root in folders)
            and not any(Path(doc.source).is_relative_to(f) for f in unlisted)]


def own_folders(own: frozenset[str]) -> tuple[str, ...]:
    """The folders a file store keeps beside its database (``.ann/``, ``.kw/`` indexes)."""
    databases = [base for base in own if not base.endswith(("-wal", "-shm", "-journal"))]
    return tuple(f"{base}{end}{os.sep}" for base in databases for end in (".ann", ".kw"))


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_origin(existing: DocumentInfo | None, source: str, origin: str,
                  workspace: str) -> None:
    """A file may not replace a text document of the same source, nor the reverse."""
    if existing is None or existing.origin in ("", origin):
        return
    other = "an uploaded/text document" if existing.origin == "text" else "a file's document"
    raise SourceConflict(
        f"{source}: workspace {workspace!r} already holds {other} with this source "
        f"(id {existing.id}); this ingest would replace it. Give the document another "
        f"source name, use another workspace, or delete the old one first "
        f"(abstain docs rm {existing.id} -w {workspace})")
