"""Generators: evidence in, a cited answer out.

The seam is :meth:`Generator.generate`. The default is the built-in
:class:`~abstain.generate.extractive.ExtractiveGenerator` (no LLM).
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
