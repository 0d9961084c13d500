"""Every adapter takes a question and a workspace as ``Pipeline.ask`` does: the same
InputError for a question that is not a string and for an invalid workspace name (``""``
is not the default workspace), and None refused as the empty question."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from abstain.errors import InputError
from abstain.pipeline import Pipeline
from tests.integrations.conftest import REFUSED

Asker = Callable[[Pipeline, Any, Any], object]


def _pipeline(pipe: Pipeline, question: Any, workspace: Any) -> object:
    return pipe.ask(question, workspace=workspace)


def _langchain_retriever(pipe: Pipeline, question: Any, workspace: Any) -> object:
    lc = pytest.importorskip("abstain.integrations.langchain")
    return lc.AbstainRetriever(pipeline=pipe, workspace=workspace).invoke(question)


def _langchain_runnable(pipe: Pipeline, question: Any, workspace: Any) -> object:
    lc = pytest.importorskip("abstain.integrations.langchain")
    return lc.answer_runnable(pipe, workspace=workspace).invoke(question)


def _llamaindex_retriever(pipe: Pipeline, question: Any, workspace: Any) -> object:
    li = pytest.importorskip("abstain.integrations.llamaindex")
    return li.AbstainRetriever(pipe, workspace=workspace).retrieve(question)


def _llamaindex_async_retriever(pipe: Pipeline, question: Any, workspace: Any) -> object:
    li = pytest.importorskip("abstain.integrations.llamaindex")
    return asyncio.run(li.AbstainRetriever(pipe, workspace=workspace).aretrieve(question))


def _llamaindex_engine(pipe: Pipeline, question: Any, workspace: Any) -> object:
    li = pytest.importorskip("abstain.integrations.llamaindex")
    return li.AbstainQueryEngine(pipe, workspace=workspace).query(question)


def _llamaindex_async_engine(pipe: Pipeline, question: Any, workspace: Any) -> object:
    li = pytest.importorskip("abstain.integrations.llamaindex")
    return asyncio.run(li.AbstainQueryEngine(pipe, workspace=workspace).aquery(question))


def _haystack_retriever(pipe: Pipeline, question: Any, workspace: Any) -> object:
    hs = pytest.importorskip("abstain.integrations.haystack")
    return hs.AbstainRetriever(pipe, workspace=workspace).run(question)


def _haystack_answerer(pipe: Pipeline, question: Any, workspace: Any) -> object:
    hs = pytest.importorskip("abstain.integrations.haystack")
    return hs.AbstainAnswerer(pipe, workspace=workspace).run(question)


ASKERS = [_pipeline, _langchain_retriever, _langchain_runnable, _llamaindex_retriever,
          _llamaindex_async_retriever, _llamaindex_engine, _llamaindex_async_engine,
          _haystack_retriever, _haystack_answerer]


@pytest.mark.parametrize("ask", ASKERS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("workspace", ["", "../etc"])
def test_an_invalid_workspace_is_an_input_error(adapters_pipeline: Pipeline, ask: Asker,
                                                 workspace: str) -> None:
    with pytest.raises(InputError, match=f"invalid workspace name {workspace!r}"):
        ask(adapters_pipeline, REFUSED, workspace)


@pytest.mark.parametrize("ask", ASKERS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize(("question", "kind"), [(123, "int"), (b"x", "bytes")])
def test_a_question_that_is_not_text_is_an_input_error(adapters_pipeline: Pipeline,
                                                       ask: Asker, question: object,
                                                       kind: str) -> None:
    with pytest.raises(InputError, match=f"the question must be a string, not {kind}"):
        ask(adapters_pipeline, question, None)


def test_the_engine_refuses_none_as_ask_does(adapters_pipeline: Pipeline) -> None:
    li = pytest.importorskip("abstain.integrations.llamaindex")
    response = li.AbstainQueryEngine(adapters_pipeline).query(None)
    assert response.refusal is not None
    assert response.refusal.reason == adapters_pipeline.ask(None).refusal.reason  # type: ignore[arg-type, union-attr]
