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

A Haystack pipeline with these components serialises (``to_dict``, ``dumps``, ``dump``)
when its abstain pipeline was opened by name, ``abstain.Pipeline.preset(name, store=…,
workspace=…)``: the file keeps that recipe (:class:`~abstain.presets.Recipe`) and loading
opens the pipeline again. One built from objects cannot be written down, and says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from abstain.errors import MissingDependency
from abstain.integrations.base import (
    Refused,
    answer_metadata,
    checked_pipeline,
    checked_workspace,
    evidence_metadata,
    gated_evidence,
)

try:
    from haystack import Document, component, default_from_dict, default_to_dict
    from haystack.core.errors import SerializationError
    from haystack.dataclasses import GeneratedAnswer
except ImportError as exc:
    raise MissingDependency("haystack-ai", "haystack") from exc

if TYPE_CHECKING:
    from abstain.evidence import Evidence
    from abstain.pipeline import Pipeline

__all__ = ["AbstainAnswerer", "AbstainRetriever"]

Component = TypeVar("Component", "AbstainRetriever", "AbstainAnswerer")


def _documents(evidence: tuple[Evidence, ...]) -> list[Document]:
    return [Document(id=ev.chunk.id, content=ev.text, score=ev.hit.fused_score,
                     meta=evidence_metadata(ev, n))
            for n, ev in enumerate(evidence, start=1)]


def _to_dict(component: AbstainRetriever | AbstainAnswerer) -> dict[str, Any]:
    """The component as Haystack writes it: its pipeline's recipe and its workspace."""
    name = type(component).__name__
    recipe = component.pipeline.recipe
    if recipe is None:
        raise SerializationError(
            f"{name}'s abstain pipeline was built from objects, which a pipeline file cannot "
            f"hold: to save it, open the pipeline by name, {name}(abstain.Pipeline.preset("
            "'balanced', store='PATH or postgresql://URL', workspace='…')), with plain "
            "values for its other options")
    if recipe.store == ":memory:":
        raise SerializationError(f"{name}'s abstain store is in memory: its documents "
                                 "would not be there on loading; use a file or a URL")
    if recipe.store is not None and urlsplit(recipe.store).password:
        raise SerializationError(
            f"{name}'s store URL holds a password, which a pipeline file would keep in "
            "plain text: give the URL without it and the password by PGPASSWORD or "
            "~/.pgpass")
    return default_to_dict(component, pipeline=recipe.to_json(),
                           workspace=component.workspace)


def _from_dict(cls: type[Component], data: dict[str, Any]) -> Component:
    """The component again, its pipeline opened from the recipe. ``create_store=False``:
    a SQLite file that is not there (a relative path loaded from another folder) is an
    error, not a new empty store that would refuse every question."""
    from abstain.pipeline import Pipeline
    from abstain.presets import Recipe

    params = data["init_parameters"]
    recipe = Recipe(**params["pipeline"])
    pipeline = Pipeline.preset(recipe.preset, store=recipe.store, create_store=False,
                               **recipe.options)
    return default_from_dict(cls, {**data, "init_parameters": {**params,
                                                               "pipeline": pipeline}})


@component
class AbstainRetriever:
    """The gate's evidence as ``documents``, or the refusal (``Refusal.to_json()``) as
    ``refusal``."""

    def __init__(self, pipeline: Pipeline, workspace: str | None = None) -> None:
        self.pipeline = checked_pipeline(pipeline)
        self.workspace = checked_workspace(workspace)

    @component.output_types(documents=list[Document], refusal=dict[str, Any])
    def run(self, query: str) -> dict[str, Any]:
        try:
            evidence = gated_evidence(self.pipeline, query, self.workspace)
        except Refused as refused:
            assert refused.answer.refusal is not None
            return {"refusal": refused.answer.refusal.to_json()}
        return {"documents": _documents(evidence)}

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AbstainRetriever:
        return _from_dict(cls, data)


@component
class AbstainAnswerer:
    """``Pipeline.ask`` as a component: one ``GeneratedAnswer`` (its ``documents`` the
    evidence handed to the answerer, ``meta["abstain"]`` the Answer's JSON) as ``answers``,
    or the refusal as ``refusal``."""

    def __init__(self, pipeline: Pipeline, workspace: str | None = None) -> None:
        self.pipeline = checked_pipeline(pipeline)
        self.workspace = checked_workspace(workspace)

    @component.output_types(answers=list[GeneratedAnswer], refusal=dict[str, Any])
    def run(self, query: str) -> dict[str, Any]:
        answer = self.pipeline.ask(query, workspace=self.workspace)
        if answer.refusal is not None:
            return {"refusal": answer.refusal.to_json()}
        return {"answers": [GeneratedAnswer(data=answer.text, query=query,
                                            documents=_documents(answer.evidence),
                                            meta={"abstain": answer_metadata(answer)})]}

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AbstainAnswerer:
        return _from_dict(cls, data)
