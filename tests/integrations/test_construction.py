"""The adapters are built as the other adapters are: a misspelt keyword is an error (it
used to ask the default workspace silently), and anything but an abstain Pipeline is
rejected where the adapter is built, not at its first question."""

from __future__ import annotations

import pytest

from abstain.errors import ConfigError
from abstain.pipeline import Pipeline
from tests.integrations.conftest import ANSWERED


def test_llamaindex_rejects_a_misspelt_keyword(adapters_pipeline: Pipeline) -> None:
    li = pytest.importorskip("abstain.integrations.llamaindex")
    with pytest.raises(TypeError, match="workspce"):
        li.AbstainQueryEngine(adapters_pipeline, workspce="x")
    with pytest.raises(TypeError, match="workspce"):
        li.AbstainRetriever(adapters_pipeline, workspce="x")


def test_langchain_rejects_a_misspelt_field(adapters_pipeline: Pipeline) -> None:
    lc = pytest.importorskip("abstain.integrations.langchain")
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="workspce"):
        lc.AbstainRetriever(pipeline=adapters_pipeline, workspce="x")


def test_langchain_takes_the_pipeline_positionally(adapters_pipeline: Pipeline) -> None:
    lc = pytest.importorskip("abstain.integrations.langchain")
    retriever = lc.AbstainRetriever(adapters_pipeline, workspace="docs")
    assert retriever.pipeline is adapters_pipeline and retriever.workspace == "docs"
    assert retriever.invoke(ANSWERED)
    with pytest.raises(TypeError, match="twice"):
        lc.AbstainRetriever(adapters_pipeline, pipeline=adapters_pipeline)


def test_langchain_rejects_what_is_not_a_pipeline() -> None:
    lc = pytest.importorskip("abstain.integrations.langchain")
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=r"pipeline must be an abstain\.Pipeline"):
        lc.AbstainRetriever(pipeline="kb.db")


@pytest.mark.parametrize(("module", "name"), [
    ("abstain.integrations.llamaindex", "AbstainRetriever"),
    ("abstain.integrations.llamaindex", "AbstainQueryEngine"),
    ("abstain.integrations.haystack", "AbstainRetriever"),
    ("abstain.integrations.haystack", "AbstainAnswerer"),
])
def test_an_adapter_rejects_what_is_not_a_pipeline(module: str, name: str) -> None:
    adapter = getattr(pytest.importorskip(module), name)
    with pytest.raises(ConfigError, match=r"pipeline must be an abstain.Pipeline .*'kb.db'"):
        adapter("kb.db")
