"""The store behind ``abstain.ask(question, docs=[...])``: built once, then reused.

The store is a SQLite file in the user cache directory named by a hash of what
went into it: the embedder, the chunking, each file's resolved source and content
hash, each text. Asking again about the same documents opens it instead of
parsing and embedding them again; changing a file builds a new store. The ``KEEP``
most recently used stores are kept.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from abstain.embed.base import Embedder
from abstain.errors import InputError
from abstain.ingest import Ingester, Paraphraser, file_hash
from abstain.ingest.chunk import ChunkingConfig
from abstain.ingest.parse import SUPPORTED_SUFFIXES
from abstain.ingest.sources import FileSource, check_paths_exist, iter_sources
from abstain.stores.sqlite import SQLiteStore

KEEP = 8
MAX_NAMED = 5
"""The skipped documents an error names."""
WORKSPACE = "default"


def split_docs(docs: Sequence[str | Path]) -> tuple[list[str | Path], list[str]]:
    """(paths, texts): a Path, or a one-line string that names an existing file or looks
    like a path (a supported suffix, a trailing slash, a slash, or a single word: no space
    in it), is a path; anything else — a line break in it, or words with spaces that name
    no file — is Markdown text. So a mistyped folder (``"handbok"``) is a path that does
    not exist, not a one-word document."""
    paths: list[str | Path] = []
    texts: list[str] = []
    for doc in docs:
        if isinstance(doc, Path) or _looks_like_path(str(doc)):
            paths.append(doc)
        else:
            texts.append(str(doc))
    return paths, texts


def _looks_like_path(text: str) -> bool:
    if "\n" in text or len(text) > 4096 or not text.strip():
        return False  # a blank document is text, and is refused as empty
    if os.path.lexists(text):
        return True
    stripped = text.strip()
    return (stripped.lower().endswith(SUPPORTED_SUFFIXES) or stripped.endswith(("/", os.sep))
            or not any(c.isspace() for c in stripped))


@contextmanager
def oneshot_store(docs: Sequence[str | Path], embedder: Embedder, *,
                  chunking: ChunkingConfig | None = None,
                  paraphraser: Paraphraser | None = None) -> Iterator[SQLiteStore]:
    """An open store holding ``docs`` in workspace ``default``; a missing path raises, and so
    does a set of documents none of which could be read (each one's reason named)."""
    paths, texts = split_docs(docs)
    check_paths_exist(paths)
    chunking = chunking or ChunkingConfig()
    folder = _cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if paraphraser is not None:  # a function cannot be part of the key: build afresh
        target = folder / f"uncached-{uuid.uuid4().hex}.db"
        _build(target, paths, texts, embedder, chunking, paraphraser)
    else:
        target = folder / f"{_key(paths, texts, embedder, chunking)}.db"
        if not target.exists():
            partial = target.with_name(f"{target.stem}.{uuid.uuid4().hex}.partial")
            try:
                _build(partial, paths, texts, embedder, chunking, None)
                os.replace(partial, target)
            finally:
                partial.unlink(missing_ok=True)
        os.utime(target)
        _evict(folder)
    store = SQLiteStore(target, create=False)
    try:
        yield store
    finally:
        store.close()
        if paraphraser is not None:
            target.unlink(missing_ok=True)


def _build(path: Path, paths: list[str | Path], texts: list[str], embedder: Embedder,
           chunking: ChunkingConfig, paraphraser: Paraphraser | None) -> None:
    store = SQLiteStore(path)
    try:
        ingester = Ingester(store, embedder, WORKSPACE, chunking, paraphraser)
        skipped: list[tuple[str, str]] = []
        if paths:
            skipped = ingester.ingest_paths(paths).skipped
        for n, text in enumerate(texts, start=1):
            ingester.ingest_text(text, source=f"text-{n}")
        if not store.list_documents(WORKSPACE):
            reasons = "; ".join(f"{source}: {why}" for source, why in skipped[:MAX_NAMED])
            more = f" (and {len(skipped) - MAX_NAMED} more)" if len(skipped) > MAX_NAMED else ""
            raise InputError("none of the documents could be read, so there is nothing to "
                             f"answer from: {reasons or 'no supported file found'}{more}")
    finally:
        store.close()


def _key(paths: list[str | Path], texts: list[str], embedder: Embedder,
         chunking: ChunkingConfig) -> str:
    h = hashlib.sha256()
    h.update(f"{embedder.name}\0{embedder.dim}\0{chunking!r}\0".encode())
    for item in iter_sources(paths):
        if isinstance(item, FileSource):
            h.update(f"file\0{item.source}\0{file_hash(item.path)}\0".encode())
    for text in texts:
        h.update(b"text\0" + hashlib.sha256(text.encode()).digest())
    return h.hexdigest()[:32]


def _evict(folder: Path) -> None:
    stores = sorted(folder.glob("*.db"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in stores[KEEP:]:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{old}{suffix}").unlink(missing_ok=True)


def _cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("abstain", appauthor=False)) / "oneshot"
