"""Typed settings in one place.

Library code receives these objects as arguments; environment variables are
read only by :meth:`Settings.from_env`, which the CLI and server call at start-up.
A leaf module: it imports only :mod:`abstain.errors`, so every stage may import it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from abstain.errors import ConfigError

DEFAULT_WORKSPACE = "default"
"""The workspace used when none is named."""

ENV_DB = "ABSTAIN_DB"
ENV_STORE = "ABSTAIN_STORE"
ENV_REPLICAS = "ABSTAIN_REPLICAS"
ENV_WORKSPACE = "ABSTAIN_WORKSPACE"
ENV_EMBEDDER = "ABSTAIN_EMBEDDER"
ENV_LLM_URL = "ABSTAIN_LLM_URL"
ENV_LLM_MODEL = "ABSTAIN_LLM_MODEL"
ENV_LLM_API_KEY = "ABSTAIN_LLM_API_KEY"

DEFAULT_CANDIDATES = 30
DEFAULT_TOP_K = 5
DEFAULT_LLM_TIMEOUT = 60.0
"""Seconds one LLM call may take in all (connect, every read, every retry)."""
RRF_K = 60
"""Reciprocal Rank Fusion's damping constant: large enough that rank 1 does not swamp
rank 2, the value Cormack et al. (2009) found robust across collections."""


def default_db_path() -> str:
    """``abstain.db`` in the user data directory (platformdirs)."""
    from platformdirs import user_data_dir

    return str(Path(user_data_dir("abstain", appauthor=False)) / "abstain.db")


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """How the two arms search: each returns ``candidates`` rows, reciprocal rank fusion
    (``rrf_k``) merges them and ``top_k`` fused hits are kept as evidence."""

    candidates: int = DEFAULT_CANDIDATES
    """Rows each arm returns before fusion."""
    top_k: int = DEFAULT_TOP_K
    """Fused hits kept as evidence."""
    rrf_k: int = RRF_K
    parallel: bool = True
    published_only: bool = True

    def __post_init__(self) -> None:
        if self.candidates < 1 or self.top_k < 1:
            raise ConfigError("candidates and top_k must be >= 1")
        if self.rrf_k < 0:
            raise ConfigError("rrf_k must be >= 0")


def replica_urls(text: str | None) -> tuple[str, ...]:
    """The replica URLs of ``ABSTAIN_REPLICAS`` or the ``replicas`` option: separated by
    whitespace."""
    return tuple((text or "").split())


@dataclass(frozen=True, slots=True)
class Settings:
    """Where things are: the store, the workspace, the models."""

    store: str | None = None
    """A SQLite path or a postgresql:// URL; None means the default database."""
    workspace: str = DEFAULT_WORKSPACE
    replicas: tuple[str, ...] = ()
    """Read replicas of a postgresql:// store, which answer its searches."""
    embedder: str | None = None
    llm_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_timeout: float = DEFAULT_LLM_TIMEOUT

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, /,
                 **overrides: str | None) -> Settings:
        env = os.environ if environ is None else environ
        values: dict[str, str | None] = {
            "store": env.get(ENV_STORE) or env.get(ENV_DB),
            "replicas": env.get(ENV_REPLICAS),
            "workspace": env.get(ENV_WORKSPACE) or DEFAULT_WORKSPACE,
            "embedder": env.get(ENV_EMBEDDER),
            "llm_url": env.get(ENV_LLM_URL),
            "llm_model": env.get(ENV_LLM_MODEL),
            "llm_api_key": env.get(ENV_LLM_API_KEY),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        replicas = replica_urls(values.pop("replicas"))
        return cls(replicas=replicas, **values)  # type: ignore[arg-type]
