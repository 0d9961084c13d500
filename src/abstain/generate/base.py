"""The generator seam: :class:`Generator` and what flows through it.

Kept apart from ``generate/__init__.py`` so implementations import these types
without importing the package that loads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from abstain.evidence import Evidence
from abstain.records import Generation as Generation
from abstain.records import LLMCall
from abstain.records import Sentence as Sentence


@runtime_checkable
class Generator(Protocol):
    name: str
    uses_llm: bool

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Generation: ...


@dataclass(frozen=True, slots=True)
class ChatResult:
    """One completed chat call."""

    text: str
    call: LLMCall
    logprob: float | None = None
    """Mean token log-probability, when the server returned logprobs."""


@runtime_checkable
class ChatModel(Protocol):
    def chat(self, messages: list[dict[str, str]], *, purpose: str,
             max_tokens: int | None = None, timeout: float | None = None) -> ChatResult: ...
