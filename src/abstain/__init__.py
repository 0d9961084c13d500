"""abstain: retrieval-augmented question answering that knows when it doesn't know."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from abstain.answer import Answer
    from abstain.pipeline import Pipeline

__all__ = ["Answer", "Pipeline", "__version__", "ask"]


def ask(question: str, docs: list[str], **kwargs: Any) -> Answer:
    """One-shot question over files, folders or raw strings (an in-memory store)."""
    from abstain.pipeline import ask as _ask

    return _ask(question, docs, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "Pipeline":
        from abstain.pipeline import Pipeline

        return Pipeline
    if name == "Answer":
        from abstain.answer import Answer

        return Answer
    raise AttributeError(name)
