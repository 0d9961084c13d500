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

from typing import TYPE_CHECKING

from abstain.generate.base import ChatModel, ChatResult, Generator
from abstain.records import Generation, Sentence

if TYPE_CHECKING:
    from abstain.config import Settings

__all__ = ["ChatModel", "ChatResult", "Generation", "Generator", "Sentence", "load_generator"]


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
