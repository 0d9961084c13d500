"""LangChain: a retriever and a runnable over a :class:`~abstain.Pipeline`
(``pip install 'abstain[langchain]'``, which installs ``langchain-core`` only).

::

    from abstain.integrations.langchain import AbstainRetriever, answer_runnable

    answer = answer_runnable(pipeline).invoke("How do I reset the admin password?")
    answer.answered, answer.refusal, answer.citations      # abstain's Answer

    retriever = AbstainRetriever(pipeline)      # in your own chain (or pipeline=pipeline)
    docs = retriever.invoke("…")     # raises Refused when the documents do not answer

A two-variable prompt takes the retriever's text beside the question:
``{"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt | llm``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from abstain.answer import Answer
from abstain.errors import MissingDependency
from abstain.integrations import base
from abstain.integrations.base import (
    checked_pipeline,
    checked_workspace,
    evidence_metadata,
    gated_evidence,
)

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda
    from langchain_core.tools import ToolException
    from pydantic import ConfigDict, field_validator
except ImportError as exc:
    raise MissingDependency("langchain-core", "langchain") from exc

if TYPE_CHECKING:
    from abstain.pipeline import Pipeline

__all__ = ["AbstainRetriever", "Refused", "answer_runnable"]


class Refused(base.Refused, ToolException):
    """:class:`abstain.integrations.Refused` that is also LangChain's ``ToolException``.

    The retriever raises this one, so ``except abstain.integrations.Refused`` still catches
    it, and the retriever as an agent's tool (``create_retriever_tool``) with
    ``handle_tool_error=True`` hands the agent the refusal (``"reason: message"``) as the
    tool's answer instead of ending the run: a refusal is a result, not a crash.

    The same question is refused again, so retrying it is waste: ``with_retry()`` retries
    every exception unless told which, so name the transient ones
    (``chain.with_retry(retry_if_exception_type=(ConnectionError, TimeoutError))``)."""


class AbstainRetriever(BaseRetriever):
    """The gate's evidence as LangChain documents (``metadata``: source, title, chunk id,
    fused score, confidence); raises :class:`Refused` when abstain refuses, so no chain
    hands its LLM an empty context."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")
    """``extra="forbid"``: a misspelt field (``workspce=``) is an error, not a silent ask
    of the default workspace."""

    pipeline: Any
    """The :class:`~abstain.Pipeline` to ask (checked by ``checked_pipeline``)."""
    workspace: str | None = None

    def __init__(self, pipeline: Pipeline | None = None, /, **fields: Any) -> None:
        """``AbstainRetriever(pipeline)`` as the other adapters are built, or
        ``AbstainRetriever(pipeline=pipeline)`` as pydantic models are."""
        if pipeline is not None:
            if "pipeline" in fields:
                raise TypeError("AbstainRetriever got the pipeline twice (positionally and "
                                "as pipeline=)")
            fields["pipeline"] = pipeline
        super().__init__(**fields)

    @field_validator("pipeline")
    @classmethod
    def _is_a_pipeline(cls, pipeline: object) -> Pipeline:
        return checked_pipeline(pipeline)

    @field_validator("workspace")
    @classmethod
    def _is_a_workspace(cls, workspace: object) -> str | None:
        return checked_workspace(workspace)

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        try:
            evidence = gated_evidence(self.pipeline, query, self.workspace)
        except base.Refused as refused:
            raise Refused(refused.answer) from None
        return [Document(page_content=ev.text, id=ev.chunk.id,
                         metadata=evidence_metadata(ev, n))
                for n, ev in enumerate(evidence, start=1)]


def answer_runnable(pipeline: Pipeline, *, workspace: str | None = None
                    ) -> RunnableLambda[str, Answer]:
    """``Pipeline.ask`` as a runnable: a question in, abstain's
    :class:`~abstain.answer.Answer` out (answered with citations, or refused with the
    reason, message and suggestions). ``Answer`` is imported at run time, not only for type
    checking: LangChain reads ``ask``'s annotations to build the output schema. Anything but
    a Pipeline (a ConfigError) or an invalid workspace name (an InputError) fails here, where
    it is built."""

    checked, where = checked_pipeline(pipeline), checked_workspace(workspace)

    def ask(question: str) -> Answer:
        return checked.ask(question, workspace=where)

    return RunnableLambda(ask, name="abstain")
