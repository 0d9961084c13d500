"""The generator seam: :class:`Generator` and what flows through it.

Kept apart from ``generate/__init__.py`` so implementations import these types
without importing the package that loads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from abstain.answer import LLMCall
from abstain.evidence import Evidence


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    cites: tuple[int, ...]
    """1-based indexes into the evidence list handed to the generator."""


@dataclass(frozen=True, slots=True)
class Generation:
    sentences: tuple[Sentence, ...]
    model: str
    llm_called: bool = False
    logprob: float | None = None
    """Mean token log-probability, when the server returns logprobs."""
    calls: tuple[LLMCall, ...] = ()
    clarifying: bool = False
    """True when the generator asked a question instead of answering."""
    raw: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)


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
