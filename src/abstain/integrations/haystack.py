"""Haystack: components over a :class:`~abstain.Pipeline`
(``pip install 'abstain[haystack]'``, which installs ``haystack-ai``).

Both components have two outputs and send exactly one of them: ``documents`` /
``answers`` when abstain answers, ``refusal`` when it refuses. A component connected to the
output that was not sent does not run, so a refusal never reaches a prompt builder or an
LLM as an empty context; connect ``refusal`` to whatever tells the user::

    from haystack import Pipeline as HaystackPipeline
    from abstain.integrations.haystack import AbstainAnswerer, AbstainRetriever

    p = HaystackPipeline()
    p.add_component("retriever", AbstainRetriever(pipeline))
    p.add_component("prompt", PromptBuilder(template, required_variables=["documents"]))
    p.connect("retriever.documents", "prompt.documents")
    result = p.run({"retriever": {"query": q}, "prompt": {"query": q}})
    result.get("retriever", {}).get("refusal")       # {"reason", "message", "suggestions", …}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from abstain.errors import MissingDependency
from abstain.integrations.base import (
    Refused,
    answer_metadata,
    checked_pipeline,
    evidence_metadata,
    gated_evidence,
)

try:
    from haystack import Document, component
    from haystack.dataclasses import GeneratedAnswer
except ImportError as exc:
    raise MissingDependency("haystack-ai", "haystack") from exc

if TYPE_CHECKING:
    from abstain.evidence import Evidence
    from abstain.pipeline import Pipeline

__all__ = ["AbstainAnswerer", "AbstainRetriever"]


def _documents(evidence: tuple[Evidence, ...]) -> list[Document]:
    return [Document(id=ev.chunk.id, content=ev.text, score=ev.hit.fused_score,
                     meta=evidence_metadata(ev, n))
            for n, ev in enumerate(evidence, start=1)]


@component
class AbstainRetriever:
    """The gate's evidence as ``documents``, or the refusal (``Refusal.to_json()``) as
    ``refusal``."""

    def __init__(self, pipeline: Pipeline, workspace: str | None = None) -> None:
        self.pipeline = checked_pipeline(pipeline)
        self.workspace = workspace

    @component.output_types(documents=list[Document], refusal=dict[str, Any])
    def run(self, query: str) -> dict[str, Any]:
        try:
            evidence = gated_evidence(self.pipeline, query, self.workspace)
        except Refused as refused:
            assert refused.answer.refusal is not None
            return {"refusal": refused.answer.refusal.to_json()}
        return {"documents": _documents(evidence)}


@component
class AbstainAnswerer:
    """``Pipeline.ask`` as a component: one ``GeneratedAnswer`` (its ``documents`` the
    evidence handed to the answerer, ``meta["abstain"]`` the Answer's JSON) as ``answers``,
    or the refusal as ``refusal``."""

    def __init__(self, pipeline: Pipeline, workspace: str | None = None) -> None:
        self.pipeline = checked_pipeline(pipeline)
        self.workspace = workspace

    @component.output_types(answers=list[GeneratedAnswer], refusal=dict[str, Any])
    def run(self, query: str) -> dict[str, Any]:
        answer = self.pipeline.ask(query, workspace=self.workspace)
        if answer.refusal is not None:
            return {"refusal": answer.refusal.to_json()}
        return {"answers": [GeneratedAnswer(data=answer.text, query=query,
                                            documents=_documents(answer.evidence),
                                            meta={"abstain": answer_metadata(answer)})]}
