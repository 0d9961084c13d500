"""Plain data that flows between the pipeline's stages.

Ingestion produces :class:`Document` and :class:`Chunk`; each retrieval arm
produces :class:`ArmHit` lists; fusion produces :class:`FusedHit`; hydrating a
fused hit with its text and metadata gives :class:`Evidence`, which is what the
gate, the generator, the verifier and the audit trail read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class ChunkKind(StrEnum):
    PARENT = "parent"
    """A section: the context handed to the generator. Never searched."""
    CHILD = "child"
    """A passage inside a parent: the unit both arms search and fusion ranks."""
    PARAPHRASE = "paraphrase"
    """A generated paraphrase or hypothetical question of one child chunk.

    Searched, but collapsed onto the child it was written from before fusion,
    so one source never votes twice."""


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    workspace: str
    source: str
    """A file's resolved path (docs/INGEST.md), or the name a text document was given."""
    title: str
    content_hash: str
    curated: bool = False
    published: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)
    origin: str = ""
    """``file`` (source is a resolved path), ``text`` (source is a name), or "" (older stores)."""


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str
    document_id: str
    kind: ChunkKind
    text: str
    ordinal: int
    parent_id: str | None = None
    """For a child: its parent section. For a paraphrase: the child it paraphrases."""
    heading_path: tuple[str, ...] = ()

    @property
    def section(self) -> str:
        """The heading of the chunk's own section, innermost ("" when it has none)."""
        return self.heading_path[-1] if self.heading_path else ""


_KEY_HEADING = re.compile(r"[\W_]*([A-Za-z][\w-]*)[\]`'\"*]*\s*(?:$|[=({<]|:\s*$)")
"""A heading that names a key: one name, alone or before its value or signature ("CURSOR",
"[window]", "style = { <shape>, <blinking> }", "ALACRITTY(5)")."""


def key_path(heading_path: tuple[str, ...]) -> str:
    """The dotted key that a chunk's innermost headings spell, when two or more of them, one
    under the other, each name a key: a reference page's ``CURSOR`` / ``style`` /
    ``blinking`` headings document the ``cursor.style.blinking`` setting though no line
    writes it; "" otherwise."""
    keys: list[str] = []
    for heading in reversed(heading_path):  # the innermost headings, one under the other
        key = _KEY_HEADING.match(heading)
        if key is None:
            break
        keys.insert(0, key.group(1))
    return ".".join(keys) if len(keys) >= 2 else ""


@dataclass(frozen=True, slots=True)
class ArmHit:
    """One row returned by one retrieval arm, ranks counted from 1."""

    chunk_id: str
    rank: int
    score: float
    """Cosine distance (vector arm, lower is better) or BM25 score (keyword arm, higher
    is better)."""
    collapse_to: str | None = None
    """For a paraphrase hit: the child chunk it stands for."""

    @property
    def target(self) -> str:
        return self.collapse_to or self.chunk_id


@dataclass(frozen=True, slots=True)
class FusedHit:
    chunk_id: str
    fused_score: float
    vector_rank: int | None = None
    vector_distance: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = None

    @property
    def in_both(self) -> bool:
        return self.vector_rank is not None and self.keyword_rank is not None


class RowVerdict(StrEnum):
    """What a table row's columns say of a question (:mod:`abstain.rerank.rows`)."""

    ANSWERS = "answers"
    DOES_NOT_ANSWER = "does_not_answer"
    ANOTHER_RECORD = "another_record"


@dataclass(frozen=True, slots=True)
class ReadWindow:
    """A sentence window of a chunk as the reader read it (:mod:`abstain.rerank.reading`)."""

    text: str
    sentences: tuple[str, ...]
    """The chunk's sentences the window was made from, as they stand in its text."""
    probability: float
    """P(this window answers the question), 0–1."""
    position: int
    """The window's place in its chunk (0 = first)."""
    by_columns: RowVerdict | None = None
    """A table row read by its columns: its verdict, which set ``probability``; None for a
    window the reader read."""
    states_default: bool = False
    """The window states the default of the name the question asks the default of
    (:mod:`abstain.rerank.defaults`), which raised ``probability`` to at least the row
    lookup's."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """A fused hit with everything later stages need to judge and cite it."""

    hit: FusedHit
    chunk: Chunk
    document: Document
    parent_text: str
    confidence: float | None = None
    """Chunk confidence 0–100 derived from the cosine distance (None when only BM25 found it)."""
    rerank_score: float | None = None
    read: tuple[ReadWindow, ...] = ()
    """The windows of this chunk the reader read, when it ran: what the answer quotes."""

    @property
    def chunk_id(self) -> str:
        return self.chunk.id

    @property
    def text(self) -> str:
        return self.chunk.text

    @property
    def source(self) -> str:
        return self.document.source

    @property
    def label(self) -> str:
        """The document's title and the chunk's headings, and the key those spell
        (:func:`key_path`): what names the passage."""
        label = f"{self.document.title}\n{' '.join(self.chunk.heading_path)}"
        key = key_path(self.chunk.heading_path)
        return f"{label}\n{key}" if key else label

    @property
    def labelled_text(self) -> str:
        """The label and the chunk's text: what every lexical check reads."""
        return f"{self.label}\n{self.chunk.text}"

    def with_scores(
        self, *, confidence: float | None = None, rerank_score: float | None = None
    ) -> Evidence:
        return replace(
            self,
            confidence=self.confidence if confidence is None else confidence,
            rerank_score=self.rerank_score if rerank_score is None else rerank_score,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.document.source,
            "title": self.document.title,
            "chunk_id": self.chunk.id,
            "parent_id": self.chunk.parent_id,
            "heading_path": list(self.chunk.heading_path),
            "text": self.chunk.text,
            "vector_rank": self.hit.vector_rank,
            "vector_distance": _round(self.hit.vector_distance),
            "keyword_rank": self.hit.keyword_rank,
            "keyword_score": _round(self.hit.keyword_score),
            "fused_score": _round(self.hit.fused_score),
            "in_both": self.hit.in_both,
            "curated": self.document.curated,
            "confidence": self.confidence,
            "rerank_score": _round(self.rerank_score),
        }


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(float(value), digits)
