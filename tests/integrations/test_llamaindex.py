"""The LlamaIndex adapter with the real llama-index-core: answers, refusals, and a refusal
that stops a LlamaIndex query engine before its LLM sees an empty context."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core", reason="needs the llamaindex extra")

from llama_index.core.llms.mock import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine

from abstain.integrations.llamaindex import (
    AbstainQueryEngine,
    AbstainResponse,
    AbstainRetriever,
    Refused,
)
from abstain.pipeline import Pipeline
from tests.integrations.conftest import ANSWERED, REFUSED


def test_query_engine_answers_with_its_sources(adapters_pipeline: Pipeline) -> None:
    response = AbstainQueryEngine(adapters_pipeline).query(ANSWERED)
    assert isinstance(response, AbstainResponse)
    assert response.answer is not None and response.answer.answered
    assert response.refusal is None
    assert str(response) == response.answer.text and "[1]" in str(response)
    assert response.source_nodes
    assert "reset-admin-password" in response.source_nodes[0].node.metadata["source"]
    assert response.metadata is not None
    assert response.metadata["abstain"]["answered"] is True
    assert response.metadata["abstain"]["citations"]


def test_query_engine_refusal_is_a_refusal(adapters_pipeline: Pipeline) -> None:
    response = asyncio.run(AbstainQueryEngine(adapters_pipeline).aquery(REFUSED))
    assert isinstance(response, AbstainResponse)
    assert response.refusal is not None
    assert response.refusal.reason == "unknown_entity"
    assert "ADR-0012" in response.refusal.suggestions
    assert str(response) == response.refusal.message
    assert response.source_nodes == []
    assert response.metadata is not None
    assert response.metadata["abstain"]["refusal"]["reason"] == "unknown_entity"


def test_retriever_gives_nodes_or_raises_the_refusal(adapters_pipeline: Pipeline) -> None:
    retriever = AbstainRetriever(adapters_pipeline)
    nodes = retriever.retrieve(ANSWERED)
    assert nodes and "reset-admin-password" in nodes[0].node.metadata["source"]
    assert [n.node.metadata["n"] for n in nodes] == list(range(1, len(nodes) + 1))
    assert all(n.score is not None and n.score > 0 for n in nodes)
    with pytest.raises(Refused) as refused:
        retriever.retrieve(REFUSED)
    assert refused.value.reason == "unknown_entity"
    assert "ADR-0012" in refused.value.suggestions


def test_a_llamaindex_engine_never_answers_a_refusal_from_nothing(
        adapters_pipeline: Pipeline) -> None:
    llm = MockLLM()
    engine = RetrieverQueryEngine.from_args(AbstainRetriever(adapters_pipeline), llm=llm)
    answered = engine.query(ANSWERED)
    assert answered.source_nodes and "qsctl admin reset-password" in str(answered)
    with pytest.raises(Refused):
        engine.query(REFUSED)
