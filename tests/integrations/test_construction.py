"""The adapters are built as the other adapters are: a misspelt keyword is an error (it
used to ask the default workspace silently), and anything but an abstain Pipeline is
rejected where the adapter is built, not at its first question."""

from __future__ import annotations

import pytest

from abstain.errors import ConfigError, InputError
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


def test_langchain_answer_runnable_rejects_what_is_not_a_pipeline_where_it_is_built(
        adapters_pipeline: Pipeline) -> None:
    """A newcomer built ``answer_runnable("kb.db")`` and ``answer_runnable(None)`` without
    an error, and met an AttributeError at ``.invoke``."""
    lc = pytest.importorskip("abstain.integrations.langchain")
    for wrong in ("kb.db", None):
        with pytest.raises(ConfigError, match=r"pipeline must be an abstain\.Pipeline"):
            lc.answer_runnable(wrong)
    with pytest.raises(InputError, match=r"invalid workspace name '\.\./etc'"):
        lc.answer_runnable(adapters_pipeline, workspace="../etc")
    assert lc.answer_runnable(adapters_pipeline, workspace="docs").invoke(ANSWERED).answered


@pytest.mark.parametrize(("module", "name"), [
    ("abstain.integrations.llamaindex", "AbstainRetriever"),
    ("abstain.integrations.llamaindex", "AbstainQueryEngine"),
    ("abstain.integrations.haystack", "AbstainRetriever"),
    ("abstain.integrations.haystack", "AbstainAnswerer"),
])
def test_an_adapter_rejects_an_invalid_workspace_where_it_is_built(
        adapters_pipeline: Pipeline, module: str, name: str) -> None:
    adapter = getattr(pytest.importorskip(module), name)
    for wrong in ("", "../etc"):  # the InputError of Pipeline.ask, where it is built
        with pytest.raises(InputError, match="invalid workspace name"):
            adapter(adapters_pipeline, workspace=wrong)
    assert adapter(adapters_pipeline, workspace="docs").workspace == "docs"


def test_langchain_retriever_rejects_an_invalid_workspace(adapters_pipeline: Pipeline) -> None:
    lc = pytest.importorskip("abstain.integrations.langchain")
    with pytest.raises(InputError, match="invalid workspace name"):
        lc.AbstainRetriever(adapters_pipeline, workspace="../etc")
