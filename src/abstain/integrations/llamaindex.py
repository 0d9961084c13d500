"""LlamaIndex: a retriever and a query engine over a :class:`~abstain.Pipeline`
(``pip install 'abstain[llamaindex]'``, which installs ``llama-index-core`` only).

::

    from abstain.integrations.llamaindex import AbstainQueryEngine, AbstainRetriever

    engine = AbstainQueryEngine(pipeline)
    response = engine.query("How do I reset the admin password?")
    response.answer.answered, response.refusal, response.source_nodes

    retriever = AbstainRetriever(pipeline)      # for your own synthesiser / RetrieverQueryEngine
    nodes = retriever.retrieve("…")             # raises Refused when the documents do not answer
    tool = AbstainRetrieverTool.from_defaults(retriever, name="kb")   # an agent's tool:
    tool.call("…").content                      # a refusal is its output, "reason: message"
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from abstain.errors import MissingDependency
from abstain.integrations.base import (
    READER_METADATA,
    Refused,
    answer_metadata,
    checked_pipeline,
    checked_workspace,
    evidence_metadata,
    gated_evidence,
    relevance,
)
from abstain.validate import question_text

try:
    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.base.response.schema import RESPONSE_TYPE, Response
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.schema import NodeWithScore, QueryBundle, QueryType, TextNode
    from llama_index.core.tools import RetrieverTool, ToolOutput
except ImportError as exc:
    raise MissingDependency("llama-index-core", "llamaindex") from exc

if TYPE_CHECKING:
    from abstain.answer import Answer, Refusal
    from abstain.evidence import Evidence
    from abstain.pipeline import Pipeline

__all__ = ["AbstainQueryEngine", "AbstainResponse", "AbstainRetriever", "AbstainRetrieverTool",
           "Refused"]


def _nodes(evidence: tuple[Evidence, ...]) -> list[NodeWithScore]:
    """The evidence as nodes, best score (:func:`~abstain.integrations.base.relevance`)
    first as LlamaIndex's retrievers give them; ties keep the evidence's order, and
    ``metadata["n"]`` keeps each one's number in it (an answer's citation ``[n]``). Only
    :data:`~abstain.integrations.base.READER_METADATA` reaches the LLM's prompt and the
    embeddings."""
    nodes = []
    for n, ev in enumerate(evidence, start=1):
        metadata = evidence_metadata(ev, n)
        hidden = [key for key in metadata if key not in READER_METADATA]
        nodes.append(NodeWithScore(
            node=TextNode(id_=ev.chunk.id, text=ev.text, metadata=metadata,
                          excluded_llm_metadata_keys=hidden,
                          excluded_embed_metadata_keys=hidden),
            score=relevance(ev)))
    return sorted(nodes, key=lambda node: -node.get_score())


def _asked(query: QueryType | None) -> QueryType:
    """A query as ``Pipeline.ask`` takes a question (None refused as empty, a non-string an
    InputError), checked before LlamaIndex's own query event, which would fail it with a
    pydantic error (or, for bytes, an AttributeError) that says nothing of the question."""
    return query if isinstance(query, QueryBundle) else question_text(query)


class AbstainRetriever(BaseRetriever):
    """The gate's evidence as nodes, best first (score: the passage's own confidence on 0 to
    1, :func:`~abstain.integrations.base.relevance`); raises :class:`Refused` when abstain
    refuses, so no synthesiser is handed an empty context."""

    def __init__(self, pipeline: Pipeline, *, workspace: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pipeline = checked_pipeline(pipeline)
        self.workspace = checked_workspace(workspace)

    def retrieve(self, str_or_query_bundle: QueryType) -> list[NodeWithScore]:
        return super().retrieve(_asked(str_or_query_bundle))

    async def aretrieve(self, str_or_query_bundle: QueryType) -> list[NodeWithScore]:
        return await super().aretrieve(_asked(str_or_query_bundle))

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return _nodes(gated_evidence(self.pipeline, query_bundle.query_str, self.workspace))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await asyncio.to_thread(self._retrieve, query_bundle)


class AbstainRetrieverTool(RetrieverTool):
    """LlamaIndex's ``RetrieverTool`` whose refusal is the tool's output, not an exception:
    ``AbstainRetrieverTool.from_defaults(AbstainRetriever(pipeline), name=…, description=…)``.

    An agent asks a tool and reads what it says; "the documents do not answer this"
    (``"reason: message"``, the refused Answer as ``raw_output``) is such an answer, and
    the agent can say so or ask otherwise. A plain ``RetrieverTool`` raises :class:`Refused`
    out of ``call`` (an agent then reports it as a failed tool call)."""

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        try:
            return super().call(*args, **kwargs)
        except Refused as refused:
            return self._refusal(refused)

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        try:
            return await super().acall(*args, **kwargs)
        except Refused as refused:
            return self._refusal(refused)

    def _refusal(self, refused: Refused) -> ToolOutput:
        return ToolOutput(content=str(refused), tool_name=self.metadata.get_name(),
                          raw_input={"input": refused.answer.question},
                          raw_output=refused.answer)


@dataclass
class AbstainResponse(Response):
    """A LlamaIndex ``Response`` that carries abstain's :class:`~abstain.answer.Answer`.

    ``response`` is the answer text, or for a refusal the refusal's message; ``refusal``
    is None for an answer; ``metadata["abstain"]`` is the Answer's JSON (docs/SCHEMA.md)."""

    answer: Answer | None = None

    @property
    def refusal(self) -> Refusal | None:
        return None if self.answer is None else self.answer.refusal


class AbstainQueryEngine(BaseQueryEngine):
    """``Pipeline.ask`` as a query engine: the answer with its cited sources as
    ``source_nodes``, or the refusal (``response.refusal``, no source nodes)."""

    def __init__(self, pipeline: Pipeline, *, workspace: str | None = None,
                 callback_manager: CallbackManager | None = None) -> None:
        super().__init__(callback_manager=callback_manager)
        self.pipeline = checked_pipeline(pipeline)
        self.workspace = checked_workspace(workspace)

    def query(self, str_or_query_bundle: QueryType) -> RESPONSE_TYPE:
        return super().query(_asked(str_or_query_bundle))

    async def aquery(self, str_or_query_bundle: QueryType) -> RESPONSE_TYPE:
        return await super().aquery(_asked(str_or_query_bundle))

    def _query(self, query_bundle: QueryBundle) -> AbstainResponse:
        answer = self.pipeline.ask(query_bundle.query_str, workspace=self.workspace)
        refusal = answer.refusal
        return AbstainResponse(
            response=answer.text if refusal is None else refusal.message,
            source_nodes=_nodes(answer.evidence) if answer.given_to_generator else [],
            metadata={"abstain": answer_metadata(answer)}, answer=answer)

    async def _aquery(self, query_bundle: QueryBundle) -> AbstainResponse:
        return await asyncio.to_thread(self._query, query_bundle)

    def _get_prompt_modules(self) -> dict[str, Any]:
        return {}
