"""The Haystack components with the real haystack-ai: an answer goes out on one socket,
a refusal on another, so a prompt builder (and the LLM after it) never runs on a refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("haystack", reason="needs the haystack extra")

from haystack import Pipeline as HaystackPipeline
from haystack.components.builders import PromptBuilder
from haystack.core.errors import SerializationError

from abstain.errors import NoDatabase
from abstain.integrations.haystack import AbstainAnswerer, AbstainRetriever
from abstain.pipeline import Pipeline
from abstain.presets import Recipe
from tests.integrations.conftest import ANSWERED, REFUSED

TRUSTED = "abstain.integrations.haystack"
"""Haystack loads classes only from modules on its allowlist; the user names abstain's."""


def test_answerer_answers_or_refuses(adapters_pipeline: Pipeline) -> None:
    answerer = AbstainAnswerer(adapters_pipeline)
    answered = answerer.run(query=ANSWERED)
    assert set(answered) == {"answers"}
    [answer] = answered["answers"]
    assert "[1]" in answer.data and answer.query == ANSWERED
    assert answer.documents and answer.meta["abstain"]["answered"] is True
    refused = answerer.run(query=REFUSED)
    assert set(refused) == {"refusal"}
    assert refused["refusal"]["reason"] == "unknown_entity"
    assert "ADR-0012" in refused["refusal"]["suggestions"]


def test_a_refusal_does_not_reach_the_prompt(adapters_pipeline: Pipeline) -> None:
    pipe = HaystackPipeline()
    pipe.add_component("retriever", AbstainRetriever(adapters_pipeline))
    pipe.add_component("prompt", PromptBuilder(
        "{% for d in documents %}{{ d.content }}\n{% endfor %}Q: {{ query }}",
        required_variables=["documents", "query"]))
    pipe.connect("retriever.documents", "prompt.documents")

    answered = pipe.run({"retriever": {"query": ANSWERED}, "prompt": {"query": ANSWERED}})
    assert "qsctl admin reset-password" in answered["prompt"]["prompt"]
    assert "refusal" not in answered.get("retriever", {})

    refused = pipe.run({"retriever": {"query": REFUSED}, "prompt": {"query": REFUSED}})
    assert "prompt" not in refused
    assert refused["retriever"]["refusal"]["reason"] == "unknown_entity"


def test_a_pipeline_opened_by_name_saves_and_loads(adapters_pipeline: Pipeline) -> None:
    store = str(adapters_pipeline.store)  # the SQLite file's path
    with Pipeline.preset("strict", store=store, workspace="docs") as pipeline:
        assert pipeline.recipe == Recipe("strict", store, {"workspace": "docs"})
        pipe = HaystackPipeline()
        pipe.add_component("retriever", AbstainRetriever(pipeline))
        pipe.add_component("answerer", AbstainAnswerer(pipeline, workspace="docs"))
        before = pipe.run({"retriever": {"query": ANSWERED}, "answerer": {"query": REFUSED}})
        saved = pipe.dumps()
    assert "strict" in saved and store in saved

    loaded = HaystackPipeline.loads(saved, allowed_modules=[TRUSTED])
    assert loaded.dumps() == saved
    retriever, answerer = loaded.get_component("retriever"), loaded.get_component("answerer")
    assert isinstance(retriever, AbstainRetriever) and isinstance(answerer, AbstainAnswerer)
    assert retriever.pipeline.recipe == Recipe("strict", store, {"workspace": "docs"})
    assert answerer.workspace == "docs"
    after = loaded.run({"retriever": {"query": ANSWERED}, "answerer": {"query": REFUSED}})
    assert after == before
    retriever.pipeline.close()
    answerer.pipeline.close()


def test_a_pipeline_built_from_objects_says_how_to_save_it(
        adapters_pipeline: Pipeline) -> None:
    pipe = HaystackPipeline()
    pipe.add_component("retriever", AbstainRetriever(adapters_pipeline))
    with pytest.raises(SerializationError, match=r"built from objects.*Pipeline\.preset\("):
        pipe.dumps()


def test_a_store_password_is_not_written_down(adapters_pipeline: Pipeline) -> None:
    adapters_pipeline.recipe = Recipe("balanced", "postgresql://kb:secret@db/kb")
    try:
        with pytest.raises(SerializationError, match="PGPASSWORD"):
            AbstainRetriever(adapters_pipeline).to_dict()
    finally:
        adapters_pipeline.recipe = None


def test_a_preset_given_objects_has_no_recipe(adapters_pipeline: Pipeline) -> None:
    with Pipeline.preset("balanced", store=str(adapters_pipeline.store),
                         observers=[print]) as pipeline:
        assert pipeline.recipe is None
        with pytest.raises(SerializationError, match="built from objects"):
            AbstainAnswerer(pipeline).to_dict()


def test_loading_never_opens_an_empty_store(tmp_path: Path) -> None:
    saved = {"type": f"{TRUSTED}.AbstainRetriever", "init_parameters": {
        "pipeline": Recipe("balanced", str(tmp_path / "moved.db")).to_json(),
        "workspace": None}}
    with pytest.raises(NoDatabase):
        AbstainRetriever.from_dict(saved)
    assert not (tmp_path / "moved.db").exists()
