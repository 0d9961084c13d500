"""The LlamaIndex adapter with the real llama-index-core: answers, refusals, and a refusal
that stops a LlamaIndex query engine before its LLM sees an empty context."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core", reason="needs the llamaindex extra")

from llama_index.core.llms.mock import MockLLM
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode

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


def test_nodes_show_a_reader_only_where_they_come_from(adapters_pipeline: Pipeline) -> None:
    [node, *_] = AbstainRetriever(adapters_pipeline).retrieve(ANSWERED)
    for mode in (MetadataMode.LLM, MetadataMode.EMBED):
        shown = node.node.get_content(metadata_mode=mode)
        keys = {line.split(":")[0] for line in shown.split("\n\n")[0].splitlines()}
        assert keys == {"source", "title", "heading_path"}, mode
    assert {"chunk_id", "fused_score", "confidence", "n"} <= set(node.node.metadata)


def test_node_scores_are_confidences_best_first(adapters_pipeline: Pipeline) -> None:
    question = "What does ADR-0012 decide?"
    nodes = AbstainRetriever(adapters_pipeline).retrieve(question)
    evidence = adapters_pipeline.gate_question(question).evidence
    assert len(nodes) == len(evidence) > 1
    assert sorted((n.node.metadata["n"], n.score) for n in nodes) == [
        (i, e.confidence / 100) for i, e in enumerate(evidence, start=1)  # type: ignore[operator]
    ]
    scores = [n.get_score() for n in nodes]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)


def test_a_similarity_cutoff_keeps_what_the_gate_kept(adapters_pipeline: Pipeline) -> None:
    engine = RetrieverQueryEngine.from_args(
        AbstainRetriever(adapters_pipeline), llm=MockLLM(),
        node_postprocessors=[SimilarityPostprocessor(similarity_cutoff=0.5)])
    answered = engine.query(ANSWERED)
    assert answered.source_nodes and "qsctl admin reset-password" in str(answered)
