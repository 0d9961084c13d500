"""The Store protocol: documents, chunks, vectors and two search arms.

Every method takes the workspace explicitly and every query applies it (and
the published flag) inside the query itself, never as a post-filter.
Implementations: :class:`~abstain.stores.sqlite.SQLiteStore` (embedded) and
:class:`~abstain.stores.postgres.PostgresStore`. Both pass the same
conformance suite (``tests/stores/``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from abstain.errors import EmbedderMismatch, InputError
from abstain.evidence import ArmHit, Chunk, ChunkKind, Document
from abstain.query import KeywordQuery
from abstain.records import TermCounts as TermCounts

WORKSPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
"""Workspace names: the CLI, the Python API and the HTTP API all accept exactly these."""


def check_workspace(name: str) -> str:
    """``name`` if it is a valid workspace name, else an InputError saying what is allowed."""
    if not re.fullmatch(WORKSPACE_PATTERN, name):
        raise InputError(f"invalid workspace name {name!r}: use 1 to 64 letters, digits, "
                         "'_', '.' or '-', starting with a letter or digit")
    return name


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    id: str
    workspace: str
    source: str
    title: str
    content_hash: str
    curated: bool
    published: bool
    chunks: int
    updated_at: str
    origin: str = ""
    """``file``, ``text``, or "" for documents written before origins were recorded."""


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk with its document and its parent's text, as evidence needs it."""

    chunk: Chunk
    document: Document
    parent_text: str


TERM_COUNT_CAP = 200
"""Chunks counted exactly per phrase: enough to tell rare from common, and cheap (each
counted row joins its document for the workspace and published filters)."""


@dataclass(frozen=True, slots=True)
class EmbedderInfo:
    name: str
    dim: int


@runtime_checkable
class Store(Protocol):
    """What the pipeline needs from a document store."""

    # -- search arms -------------------------------------------------------
    def search_vector(self, vector: npt.NDArray[np.float32], *, workspace: str, limit: int,
                      published_only: bool = True) -> list[ArmHit]:
        """Nearest searchable chunks by cosine distance, best first, ranks from 1."""
        ...

    def search_text(self, query: str | KeywordQuery, *, workspace: str, limit: int,
                    published_only: bool = True) -> list[ArmHit]:
        """Full-text (BM25-style) matches of any user text, or of a question's keyword query
        already read (:class:`abstain.query.KeywordQuery`), best first, ranks from 1."""
        ...

    # -- reads -------------------------------------------------------------
    def get_chunks(self, ids: Sequence[str]) -> dict[str, StoredChunk]: ...

    def list_documents(self, workspace: str | None = None) -> list[DocumentInfo]: ...

    def workspaces(self) -> list[str]: ...

    def identifiers(self, workspace: str) -> list[str]:
        """Identifier-like tokens (ADR-0007, E1001, v2.3.1) found in the workspace's text."""
        ...

    def term_counts(self, workspace: str, phrases: Sequence[str], *,
                    published_only: bool = True) -> TermCounts:
        """For each phrase (plain words), how many searchable chunks of the workspace hold its
        words in order, with the keyword arm's stemming and whole words only (``queuepool``
        is not ``queue``); the workspace's statistics for informativeness and existence."""
        ...

    def document_hash(self, workspace: str, source: str) -> str | None: ...

    def document(self, workspace: str, source: str) -> DocumentInfo | None:
        """The document with this source in the workspace (its identity), if any."""
        ...

    def embedder(self) -> EmbedderInfo | None: ...

    def check_embedder(self, info: EmbedderInfo) -> None:
        """Raise :class:`~abstain.errors.EmbedderMismatch` when the store was embedded with
        another model than ``info``; an empty store accepts any."""
        ...

    # -- writes (each one transaction) ------------------------------------
    def write_document(self, document: Document, chunks: Sequence[Chunk],
                       vectors: npt.NDArray[np.float32], embedder: EmbedderInfo,
                       identifiers: Sequence[str] = ()) -> None:
        """Insert or atomically replace a document with its chunks and vectors.

        ``vectors`` has one row per searchable chunk (child and paraphrase), in
        the order they appear in ``chunks``.
        """
        ...

    def delete_document(self, workspace: str, document_id: str) -> bool: ...

    # -- large documents: staged batch by batch, then made visible at once ---
    def stage_chunks(self, staging_id: str, document: Document, chunks: Sequence[Chunk],
                     vectors: npt.NDArray[np.float32], embedder: EmbedderInfo) -> None:
        """Append one batch (one transaction) to a staging area that no search reads.

        ``staging_id`` starts with ``document.id + "/"``; ``vectors`` as in
        ``write_document``. A process killed while staging leaves only staged rows,
        which :meth:`discard_staged` removes.
        """
        ...

    def commit_staged(self, staging_id: str, document: Document, embedder: EmbedderInfo,
                      identifiers: Sequence[str], expected_chunks: int) -> None:
        """In one transaction: replace the document by its staged chunks and drop the staging.

        Raises :class:`~abstain.errors.StoreError` (changing nothing) unless exactly
        ``expected_chunks`` chunks are staged under ``staging_id``.
        """
        ...

    def discard_staged(self, document_id: str) -> int:
        """Drop every staging of this document (e.g. left by a killed ingest); rows removed."""
        ...

    def set_published(self, workspace: str, document_id: str, published: bool) -> bool: ...

    # -- embedding cache ---------------------------------------------------
    def cached_vectors(self, model: str, hashes: Sequence[str]
                       ) -> dict[str, npt.NDArray[np.float32]]: ...

    def cache_vectors(self, model: str, items: dict[str, npt.NDArray[np.float32]]) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class BulkStore(Store, Protocol):
    """A store that writes many documents at once (PostgreSQL: through ``COPY``)."""

    def write_documents(self, items: Iterable[tuple[Document, Sequence[Chunk],
                                                    npt.NDArray[np.float32]]],
                        embedder: EmbedderInfo, *,
                        identifiers: Mapping[str, Sequence[str]] | None = None,
                        rebuild_indexes: bool | None = None) -> object:
        """``write_document`` for each item; each item stored whole or not at all, and each
        searchable as soon as its write commits."""
        ...


def searched_headings(document: Document, chunk: Chunk) -> str:
    """The heading text a chunk is searched under by the keyword arm (its ``headings``
    column): the document's title and the chunk's heading path."""
    return " ".join((document.title, *chunk.heading_path))


def vectors_by_chunk(chunks: Sequence[Chunk], vectors: npt.NDArray[np.float32],
                     embedder: EmbedderInfo) -> dict[str, npt.NDArray[np.float32]]:
    """Pair each searchable chunk with its row of ``vectors``, checking counts and dimension.

    Shared by every store's ``write_document``, so all reject the same bad input.
    """
    searchable = [c for c in chunks if c.kind is not ChunkKind.PARENT]
    if len(searchable) != len(vectors):
        raise ValueError(f"{len(searchable)} searchable chunks but {len(vectors)} vectors")
    if len(vectors) and vectors.shape[1] != embedder.dim:
        raise ValueError(f"vectors are {vectors.shape[1]}-d, embedder says {embedder.dim}")
    return {c.id: np.asarray(v, dtype=np.float32)
            for c, v in zip(searchable, vectors, strict=True)}


def check_staging_id(staging_id: str, document_id: str) -> None:
    if not staging_id.startswith(f"{document_id}/"):
        raise ValueError(f"staging id {staging_id!r} must start with {document_id + '/'!r}")


def embedder_mismatch(where: str, current: EmbedderInfo, new: EmbedderInfo, *,
                      option: str) -> EmbedderMismatch:
    """The one error for a store built with another embedding model."""
    return EmbedderMismatch(
        f"{where} was embedded with {current.name} ({current.dim}-d) but this run uses "
        f"{new.name} ({new.dim}-d); vectors of different models cannot be mixed. "
        f"Use the same embedder, or another database ({option}).")
