"""Ingestion: files -> parsed sections -> parent/child chunks -> vectors -> store.

Re-ingesting an unchanged file is a no-op (content hash); a changed file
replaces its chunks in one transaction; a broken or unsupported file is
reported and skipped while the rest goes in. Vectors are cached by text hash,
so unchanged passages are never embedded twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from abstain.embed.base import Embedder, embed_texts
from abstain.errors import IngestError, InputError
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.identifiers import find_identifiers
from abstain.ingest.chunk import ChunkingConfig, chunk_document, paraphrase_chunks
from abstain.ingest.parse import SUPPORTED_SUFFIXES, ParsedDocument, parse_file, parse_string
from abstain.stores.base import EmbedderInfo, Store

Paraphraser = Callable[[Chunk], Sequence[str]]
"""Returns paraphrases / hypothetical questions for one child chunk (e.g. from an LLM)."""


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    chunks: int = 0
    embedded: int = 0
    """Passages actually run through the embedder (cache misses)."""

    def summary(self) -> str:
        parts = [f"{len(self.added)} added", f"{len(self.updated)} updated",
                 f"{len(self.unchanged)} unchanged", f"{len(self.skipped)} skipped",
                 f"{self.chunks} chunks"]
        return ", ".join(parts)


def iter_files(paths: Iterable[str | Path]) -> Iterable[tuple[str, Path]]:
    """(source as given, path) for each file; directories are walked in sorted order."""
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and not child.name.startswith("."):
                    yield str(child), child
        else:
            yield str(given), path


def document_id(workspace: str, source: str) -> str:
    return hashlib.sha1(f"{workspace}\x00{source}".encode()).hexdigest()[:16]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def embedding_text(title: str, chunk: Chunk) -> str:
    """What the vector arm sees: title and heading path give a passage its context."""
    context = " > ".join(dict.fromkeys((title, *chunk.heading_path)))
    return f"{context}\n{chunk.text}" if context else chunk.text


@dataclass
class Ingester:
    store: Store
    embedder: Embedder
    workspace: str
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    paraphraser: Paraphraser | None = None
    on_progress: Callable[[str, int], None] | None = None
    """Called with (event, n): ("file", 1) per file, ("embed", n) per embedded batch."""

    def ingest_paths(self, paths: Iterable[str | Path]) -> IngestReport:
        report = IngestReport()
        for source, path in iter_files(paths):
            try:
                if not path.exists():
                    raise IngestError(source, "no such file or directory")
                if path.suffix.lower() not in SUPPORTED_SUFFIXES:
                    raise IngestError(source, f"unsupported file type {path.suffix or '(none)'}")
                raw = path.read_bytes()
                digest = hashlib.sha256(raw).hexdigest()
                if self.store.document_hash(self.workspace, source) == digest:
                    report.unchanged.append(source)
                else:
                    parsed = parse_file(path)
                    self._write(source, digest, parsed, report)
            except IngestError as exc:
                report.skipped.append((source, exc.reason))
            except OSError as exc:
                report.skipped.append((source, f"cannot read: {exc}"))
            finally:
                self._progress("file", 1)
        return report

    def ingest_text(self, text: str, *, source: str, fmt: str = "md",
                    title: str | None = None) -> IngestReport:
        if not text.strip():
            raise InputError(f"{source}: the document is empty")
        report = IngestReport()
        digest = hashlib.sha256(text.encode()).hexdigest()
        if self.store.document_hash(self.workspace, source) == digest:
            report.unchanged.append(source)
            return report
        parsed = parse_string(text, name=title or source, fmt=fmt)
        if title:
            parsed = ParsedDocument(title, parsed.sections, parsed.metadata)
        self._write(source, digest, parsed, report)
        return report

    def _write(self, source: str, digest: str, parsed: ParsedDocument,
               report: IngestReport) -> None:
        if not parsed.sections:
            raise IngestError(source, "no text found")
        existed = self.store.document_hash(self.workspace, source) is not None
        doc_id = document_id(self.workspace, source)
        meta = dict(parsed.metadata)
        document = Document(
            id=doc_id, workspace=self.workspace, source=source, title=parsed.title,
            content_hash=digest, curated=bool(meta.pop("curated", False)),
            published=bool(meta.pop("published", True)), metadata=meta,
        )
        chunks = chunk_document(doc_id, parsed, self.chunking)
        if self.paraphraser is not None:
            chunks = self._with_paraphrases(doc_id, chunks)
        searchable = [c for c in chunks if c.kind is not ChunkKind.PARENT]
        vectors = self._vectors([embedding_text(document.title, c) for c in searchable], report)
        idents = find_identifiers(f"{parsed.title}\n{parsed.text}", quoted=False)
        self.store.write_document(document, chunks, vectors,
                                  EmbedderInfo(self.embedder.name, self.embedder.dim), idents)
        (report.updated if existed else report.added).append(source)
        report.chunks += len(searchable)

    def _with_paraphrases(self, doc_id: str, chunks: list[Chunk]) -> list[Chunk]:
        assert self.paraphraser is not None
        out: list[Chunk] = []
        n = 0
        for chunk in chunks:
            out.append(chunk)
            if chunk.kind is ChunkKind.CHILD:
                extra = paraphrase_chunks(doc_id, chunk, self.paraphraser(chunk), n)
                n += len(extra)
                out.extend(extra)
        return out

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
