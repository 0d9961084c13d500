"""The Haystack components with the real haystack-ai: an answer goes out on one socket,
a refusal on another, so a prompt builder (and the LLM after it) never runs on a refusal."""

from __future__ import annotations

import pytest

pytest.importorskip("haystack", reason="needs the haystack extra")

from haystack import Pipeline as HaystackPipeline
from haystack.components.builders import PromptBuilder

from abstain.integrations.haystack import AbstainAnswerer, AbstainRetriever
from abstain.pipeline import Pipeline
from tests.integrations.conftest import ANSWERED, REFUSED


def test_answerer_answers_or_refuses(adapters_pipeline: Pipeline) -> None:
    answerer = AbstainAnswerer(adapters_pipeline)
    answered = answerer.run(query=ANSWERED)
    assert set(answered) == {"answers"}
    [answer] = answered["answers"]
    assert "[1]" in answer.data and answer.query == ANSWERED
    assert answer.documents and answer.meta["abstain"]["answered"] is True
    refused = answerer.run(query=REFUSED)
    assert set(refused) == {"refusal"}
    assert refused["refusal"]["reason"] == "unknown_entity"
    assert "ADR-0012" in refused["refusal"]["suggestions"]


def test_a_refusal_does_not_reach_the_prompt(adapters_pipeline: Pipeline) -> None:
    pipe = HaystackPipeline()
    pipe.add_component("retriever", AbstainRetriever(adapters_pipeline))
    pipe.add_component("prompt", PromptBuilder(
        "{% for d in documents %}{{ d.content }}\n{% endfor %}Q: {{ query }}",
        required_variables=["documents", "query"]))
    pipe.connect("retriever.documents", "prompt.documents")

    answered = pipe.run({"retriever": {"query": ANSWERED}, "prompt": {"query": ANSWERED}})
    assert "qsctl admin reset-password" in answered["prompt"]["prompt"]
    assert "refusal" not in answered.get("retriever", {})

    refused = pipe.run({"retriever": {"query": REFUSED}, "prompt": {"query": REFUSED}})
    assert "prompt" not in refused
    assert refused["retriever"]["refusal"]["reason"] == "unknown_entity"
