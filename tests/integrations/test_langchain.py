"""The LangChain adapter with the real langchain-core: the runnable returns abstain's
Answer; the retriever raises the refusal, so a chain's LLM is never called on nothing."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core", reason="needs the langchain extra")

from langchain_core.documents import Document
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.runnables import RunnableLambda

from abstain.answer import Answer
from abstain.integrations.langchain import AbstainRetriever, Refused, answer_runnable
from abstain.pipeline import Pipeline
from tests.integrations.conftest import ANSWERED, REFUSED


def test_runnable_returns_the_answer_or_the_refusal(adapters_pipeline: Pipeline) -> None:
    answered, refused = answer_runnable(adapters_pipeline).batch([ANSWERED, REFUSED])
    assert isinstance(answered, Answer) and answered.answered and answered.citations
    assert isinstance(refused, Answer) and not refused.answered
    assert refused.refusal is not None and refused.refusal.reason == "unknown_entity"
    assert "ADR-0012" in refused.refusal.suggestions


def test_retriever_gives_documents_or_raises_the_refusal(adapters_pipeline: Pipeline) -> None:
    retriever = AbstainRetriever(pipeline=adapters_pipeline)
    docs = retriever.invoke(ANSWERED)
    assert docs and all(isinstance(d, Document) for d in docs)
    assert "reset-admin-password" in docs[0].metadata["source"]
    with pytest.raises(Refused) as refused:
        retriever.invoke(REFUSED)
    assert refused.value.answer.refusal is not None
    assert refused.value.answer.refusal.missing == ("ADR-0050",)


def test_a_chain_never_calls_its_llm_on_a_refusal(adapters_pipeline: Pipeline) -> None:
    llm = FakeListLLM(responses=["first call", "second call"])
    chain = (AbstainRetriever(pipeline=adapters_pipeline)
             | RunnableLambda(lambda docs: "\n".join(d.page_content for d in docs)) | llm)
    with pytest.raises(Refused):
        chain.invoke(REFUSED)
    assert llm.i == 0
    assert chain.invoke(ANSWERED) == "first call"  # the refusal never reached the LLM


def test_the_runnable_describes_its_input_and_output(adapters_pipeline: Pipeline) -> None:
    runnable = answer_runnable(adapters_pipeline)
    assert runnable.get_input_jsonschema()["type"] == "string"
    output = runnable.get_output_jsonschema()  # was a PydanticUserError: Answer undefined
    assert output["$ref"] == "#/$defs/Answer"
    answer = output["$defs"]["Answer"]["properties"]
    assert {"question", "text", "refusal", "citations"} <= set(answer)


def test_the_documented_two_variable_chain_runs(adapters_pipeline: Pipeline) -> None:
    """docs/INTEGRATIONS.md's chain, verbatim but for the fake LLM."""
    from langchain_core.prompts import PromptTemplate
    from langchain_core.runnables import RunnablePassthrough

    def format_docs(docs: list[Document]) -> str:
        return "\n\n".join(d.page_content for d in docs)

    prompt = PromptTemplate.from_template("Context:\n{context}\n\nQuestion: {question}")
    llm = FakeListLLM(responses=["an answer"])
    chain = ({"context": AbstainRetriever(adapters_pipeline) | format_docs,
              "question": RunnablePassthrough()} | prompt | llm)
    assert chain.invoke(ANSWERED) == "an answer"
    with pytest.raises(Refused):
        chain.invoke(REFUSED)
