"""abstain: retrieval-augmented question answering that knows when it doesn't know.

The public names are the ones in ``__all__``; everything else is reached from a
:class:`Pipeline` or imported from its module. Names other than the errors are
loaded on first use, so ``import abstain`` (and ``abstain --help``) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from abstain.errors import (
    AbstainError,
    ConfigError,
    EmbedderMismatch,
    IngestError,
    InputError,
    LLMError,
    MissingDependency,
    ModelError,
    StoreError,
    UnknownWorkspace,
)

__version__ = "0.1.0"

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from abstain.answer import Answer
    from abstain.confidence import Calibration
    from abstain.config import RetrievalConfig, Settings
    from abstain.embed import Embedder
    from abstain.gate import GateThresholds, Rule
    from abstain.generate import Generator
    from abstain.ingest.chunk import ChunkingConfig
    from abstain.pipeline import Pipeline
    from abstain.presets import Preset
    from abstain.records import Check, Citation, LLMCall, Refusal
    from abstain.rerank import Reranker
    from abstain.stores import Store, open_store
    from abstain.verify import Strictness, Verifier

_LAZY = {
    "Pipeline": "abstain.pipeline",
    "Answer": "abstain.answer",
    "Refusal": "abstain.records",
    "Citation": "abstain.records",
    "Check": "abstain.records",
    "LLMCall": "abstain.records",
    "GateThresholds": "abstain.gate",
    "Rule": "abstain.gate",
    "Strictness": "abstain.verify",
    "Calibration": "abstain.confidence",
    "RetrievalConfig": "abstain.config",
    "Settings": "abstain.config",
    "ChunkingConfig": "abstain.ingest.chunk",
    "Store": "abstain.stores",
    "open_store": "abstain.stores",
    "Embedder": "abstain.embed",
    "Generator": "abstain.generate",
    "Verifier": "abstain.verify",
    "Reranker": "abstain.rerank",
}

__all__ = [
    "AbstainError",
    "Answer",
    "Calibration",
    "Check",
    "ChunkingConfig",
    "Citation",
    "ConfigError",
    "Embedder",
    "EmbedderMismatch",
    "GateThresholds",
    "Generator",
    "IngestError",
    "InputError",
    "LLMCall",
    "LLMError",
    "MissingDependency",
    "ModelError",
    "Pipeline",
    "Refusal",
    "Reranker",
    "RetrievalConfig",
    "Rule",
    "Settings",
    "Store",
    "StoreError",
    "Strictness",
    "UnknownWorkspace",
    "Verifier",
    "__version__",
    "ask",
    "open_store",
]


def ask(question: str, docs: str | Path | Sequence[str | Path], *,
        preset: str | Preset = "balanced", embedder: Embedder | None = None,
        **kwargs: Any) -> Answer:
    """One-shot: answer ``question`` from ``docs`` — files, folders, or Markdown text (a line
    break or a space in it; a single word is read as a path); one of them, or a list — or
    refuse with the reason.

    ``preset``: ``lenient``, ``balanced`` (default) or ``strict``, each with ``+reader`` too
    (the reading decides). Other keywords are :class:`Pipeline`'s (``reader=False``,
    ``strictness="strict"``, ``generator=…``). The documents are ingested once into a store in
    the user cache directory keyed by their content, so asking again reuses it. No document,
    a path that does not exist, or documents none of which can be read raise
    :class:`InputError`; a bad option :class:`ConfigError`.
    """
    from abstain.pipeline import ask as _ask

    return _ask(question, docs, preset=preset, embedder=embedder, **kwargs)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'abstain' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
