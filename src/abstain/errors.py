"""Errors raised by abstain.

A refusal is *not* an error: it is a normal :class:`~abstain.answer.Answer`
with ``answered=False``. With :mod:`abstain.records`, the bottom layer of the package.
Exceptions are for things a caller must fix::

    AbstainError
    ├── ConfigError              bad settings, incompatible options (also a ValueError)
    │   └── MissingDependency    an optional extra is not installed
    ├── InputError               a question or file the pipeline cannot take
    │   ├── IngestError          one file could not be parsed (ingest goes on)
    │   ├── SourceConflict       a write would replace a document of another origin
    │   └── VocabularyError      a SKOS file or SKOSMOS server could not be read
    ├── StoreError               the store cannot be opened or used
    │   ├── EmbedderMismatch     the store was embedded with another model
    │   ├── NoDatabase           a database file to read from does not exist
    │   └── UnknownWorkspace     the workspace holds no documents
    └── ModelError               an embedder / LLM / reranker call failed
        └── LLMError             an OpenAI-compatible server failed or misbehaved
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from abstain.records import LLMCall


class AbstainError(Exception):
    """Base class of every error abstain raises on purpose."""


class ConfigError(AbstainError, ValueError):
    """Settings that cannot work together, or a value out of range.

    Also a :class:`ValueError`, which is what an out-of-range argument is in Python.
    """


class MissingDependency(ConfigError):
    """An optional dependency is not installed."""

    def __init__(self, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        self.install = f"pip install 'abstain[{extra}]'"
        """The command that brings it."""
        super().__init__(f"{package} is not installed; install it with: {self.install}")


class InputError(AbstainError):
    """A question, document or request the pipeline cannot accept."""


class IngestError(InputError):
    """One file could not be read or parsed."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class SourceConflict(InputError):
    """Ingesting would replace a document that came from somewhere else (docs/INGEST.md)."""


class VocabularyError(InputError):
    """A SKOS vocabulary (file or SKOSMOS server) could not be read; nothing was changed."""


class StoreError(AbstainError):
    """The document store cannot be opened, migrated or queried."""


class EmbedderMismatch(StoreError):
    """The store holds vectors from a different embedding model."""


class NoDatabase(StoreError):
    """A command that only reads was pointed at a database file that does not exist."""

    def __init__(self, location: str) -> None:
        super().__init__(f"there is no database at {location}")
        self.location = location


class UnknownWorkspace(StoreError):
    """The named workspace does not exist in the store (``location`` names the store)."""

    def __init__(self, message: str, *, workspace: str = "", location: str = "") -> None:
        super().__init__(message)
        self.workspace = workspace
        self.location = location


class ModelError(AbstainError):
    """A model (embedder, reranker, LLM) could not be loaded or called."""


class LLMError(ModelError):
    """An OpenAI-compatible server was unreachable, slow or returned nonsense.

    ``calls`` holds the audit records of the calls that failed, so a caller that
    turns the error into a refusal still reports them.
    """

    def __init__(self, message: str, calls: tuple[LLMCall, ...] = ()) -> None:
        super().__init__(message)
        self.calls = calls
