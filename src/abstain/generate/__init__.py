"""Generators: evidence in, a cited answer out.

The seam is :meth:`Generator.generate`. The default is the built-in
:class:`~abstain.generate.extractive.ExtractiveGenerator` (no LLM); LLM
generators are :class:`~abstain.generate.openai_chat.OpenAIChatGenerator`
(any OpenAI-compatible server) and
:class:`~abstain.generate.local.LocalLLMGenerator` (embedded SmolLM2).

LLM generators also have ``chat`` (:class:`ChatModel`), which the optional query
rewrite and LLM rerank use; one that sets ``streams = True`` also has
``stream(question, evidence)``, a generator of sentences whose return value is
the :class:`Generation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from abstain.answer import LLMCall
from abstain.evidence import Evidence

if TYPE_CHECKING:
    from abstain.config import Settings


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


def load_generator(settings: Settings) -> Generator:
    """The generator ``settings`` names: ``llm_url`` an OpenAI-compatible base URL, or
    ``local`` for the embedded model; none means the extractive answerer."""
    if not settings.llm_url:
        from abstain.generate.extractive import ExtractiveGenerator

        return ExtractiveGenerator()
    if settings.llm_url.strip().lower() == "local":
        from abstain.generate.local import LocalLLMGenerator

        return LocalLLMGenerator()
    from abstain.generate.openai_chat import OpenAIChatGenerator

    return OpenAIChatGenerator(settings.llm_url, settings.llm_model,
                               api_key=settings.llm_api_key, timeout=settings.llm_timeout)
