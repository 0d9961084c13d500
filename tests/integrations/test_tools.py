"""The retrievers as an agent's tools: a refusal is the tool's answer ("reason: message",
then the suggestions), which the agent reads, not an exception that ends its run."""

from __future__ import annotations

import asyncio

import pytest

from abstain.integrations import Refused
from abstain.pipeline import Pipeline
from tests.integrations.conftest import ANSWERED, REFUSED


def test_langchain_tool_hands_the_agent_the_refusal(adapters_pipeline: Pipeline) -> None:
    lc = pytest.importorskip("abstain.integrations.langchain")
    from langchain_core.tools import create_retriever_tool

    tool = create_retriever_tool(lc.AbstainRetriever(adapters_pipeline), "kb",
                                 "Searches the team's documents.")
    tool.handle_tool_error = True
    refusal = adapters_pipeline.ask(REFUSED).refusal
    assert refusal is not None
    # the suggestions too: an agent can ask again of an ADR that exists
    assert tool.invoke(REFUSED) == (f"unknown_entity: {refusal.message} Did you mean: "
                                    f"{', '.join(refusal.suggestions)}?")
    assert refusal.suggestions
    assert "qsctl admin reset-password" in tool.invoke(ANSWERED)


def test_langchain_refusal_is_still_abstains(adapters_pipeline: Pipeline) -> None:
    lc = pytest.importorskip("abstain.integrations.langchain")
    from langchain_core.tools import ToolException

    with pytest.raises(Refused) as refused:
        lc.AbstainRetriever(adapters_pipeline).invoke(REFUSED)
    assert isinstance(refused.value, ToolException) and isinstance(refused.value, lc.Refused)
    assert refused.value.missing == ("ADR-0050",)


def test_llamaindex_tool_answers_with_the_refusal(adapters_pipeline: Pipeline) -> None:
    li = pytest.importorskip("abstain.integrations.llamaindex")
    tool = li.AbstainRetrieverTool.from_defaults(li.AbstainRetriever(adapters_pipeline),
                                                 name="kb")
    refusal = adapters_pipeline.ask(REFUSED).refusal
    assert refusal is not None
    for output in (tool.call(REFUSED), asyncio.run(tool.acall(REFUSED))):
        assert output.content == (f"unknown_entity: {refusal.message} Did you mean: "
                                  f"{', '.join(refusal.suggestions)}?")
        assert not output.is_error and output.tool_name == "kb"
        assert output.raw_output.refusal == refusal
    answered = tool.call(ANSWERED)
    assert "qsctl admin reset-password" in answered.content and answered.raw_output
