"""Generators: evidence in, a cited answer out.

The seam is :meth:`Generator.generate`. The default is the built-in
:class:`~abstain.generate.extractive.ExtractiveGenerator` (no LLM); LLM
generators are :class:`~abstain.generate.openai_chat.OpenAIChatGenerator`
(any OpenAI-compatible server) and
:class:`~abstain.generate.local.LocalLLMGenerator` (embedded SmolLM2).

What a generator can do beyond ``generate`` it declares (``generate/base.py``):
``can_chat`` (LLM generators: ``chat``, :class:`ChatModel`, which the optional query
rewrite and LLM rerank use), ``can_stream`` (``stream(question, evidence)``, a generator
of sentences whose return value is the :class:`Generation`) and ``can_clarify``
(``clarify(question)``, the clarify-only prompt).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from abstain.generate.base import (
    ChatGenerator,
    ChatModel,
    ChatResult,
    ClarifyingGenerator,
    Generator,
    StreamingGenerator,
    chats,
    clarifies,
    streams,
)
from abstain.records import Generation, Sentence

if TYPE_CHECKING:
    from abstain.config import Settings

__all__ = ["ChatGenerator", "ChatModel", "ChatResult", "ClarifyingGenerator", "Generation",
           "Generator", "Sentence", "StreamingGenerator", "chats", "clarifies",
           "load_generator", "streams"]


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
