"""The generator seam: :class:`Generator` and what flows through it.

Kept apart from ``generate/__init__.py`` so implementations import these types
without importing the package that loads them.

A generator declares what it can do beyond :meth:`Generator.generate` with three class
attributes, as simonw/llm's models declare ``can_stream``: ``can_chat`` (it has
:meth:`ChatModel.chat`, for the query rewrite and the LLM rerank), ``can_stream`` (it has
``stream(question, evidence)``) and ``can_clarify`` (it has ``clarify(question)``). The
guards :func:`chats`, :func:`streams` and :func:`clarifies` read them and narrow the type.

Generators receive the question read once (:class:`abstain.question.Question`); its
``text`` is the string a prompt shows.
"""

from __future__ import annotations

from collections.abc import Generator as Gen
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeGuard, runtime_checkable

from abstain.evidence import Evidence
from abstain.question import Question
from abstain.records import Generation as Generation
from abstain.records import LLMCall
from abstain.records import Sentence as Sentence


@runtime_checkable
class Generator(Protocol):
    """What writes an answer from the evidence the gate passed: the extractive answerer
    (quotes, no model) or an LLM (docs/GENERATION.md). Every sentence it writes is verified
    against its sources afterwards."""

    name: str
    uses_llm: bool
    can_chat: bool
    """It is also a :class:`ChatModel` (query rewrite, LLM rerank)."""
    can_stream: bool
    """It has ``stream(question, evidence)`` (:class:`StreamingGenerator`)."""
    can_clarify: bool
    """It has ``clarify(question)`` (:class:`ClarifyingGenerator`)."""

    def generate(self, question: Question, evidence: Sequence[Evidence]) -> Generation: ...


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


class ChatGenerator(Generator, ChatModel, Protocol):
    """A generator that declares ``can_chat``."""


class StreamingGenerator(Generator, Protocol):
    """A generator that declares ``can_stream``."""

    def stream(self, question: Question, evidence: Sequence[Evidence]
               ) -> Gen[Sentence, None, Generation]:
        """Yield each cited sentence as soon as it is complete; return the Generation."""
        ...


class ClarifyingGenerator(Generator, Protocol):
    """A generator that declares ``can_clarify``."""

    def clarify(self, question: Question) -> Generation:
        """The clarify-only prompt: no documents, one short question back."""
        ...


def chats(generator: Generator) -> TypeGuard[ChatGenerator]:
    return generator.can_chat


def streams(generator: Generator) -> TypeGuard[StreamingGenerator]:
    return generator.can_stream


def clarifies(generator: Generator) -> TypeGuard[ClarifyingGenerator]:
    return generator.can_clarify
