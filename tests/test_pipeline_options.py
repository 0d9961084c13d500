"""Pipeline's options: four typed groups, each field also a keyword of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from abstain.confidence import Calibration
from abstain.embed import Embedder
from abstain.errors import ConfigError, InputError, UnknownWorkspace
from abstain.gate import GateThresholds
from abstain.pipeline import Pipeline
from abstain.pipeline_options import (
    SHORTHANDS,
    GateOptions,
    LLMOptions,
    ObservationOptions,
    Options,
    ReadingOptions,
    grouped,
)
from abstain.stores.sqlite import SQLiteStore
from abstain.verify import Strictness


def test_every_field_of_every_group_has_one_shorthand() -> None:
    groups = Options()
    fields = {(group, name) for group in ("gate", "reading", "llm", "observation")
              for name in getattr(groups, group).__dataclass_fields__}
    assert sorted(SHORTHANDS.values()) == sorted(fields)


def test_shorthands_land_in_their_groups_and_win_over_them() -> None:
    calibration = Calibration(intercept=0.0, coefficients={})
    options = grouped(Options(gate=GateOptions(max_question_chars=10)),
                      {"max_question_chars": 99, "rules": [], "reading_calibration":
                       calibration, "strictness": "strict", "log_queries": False})
    assert options == Options(GateOptions(max_question_chars=99),
                              ReadingOptions(calibration=calibration),
                              LLMOptions(strictness="strict"),
                              ObservationOptions(log_queries=False))
    with pytest.raises(TypeError, match="unexpected keyword argument 'treshold'"):
        grouped(Options(), {"treshold": 1})


def test_groups_and_shorthands_configure_the_same_pipeline(tmp_path: Path,
                                                           hashing: Embedder) -> None:
    strict = GateThresholds(answer_gate=55.0)
    store = SQLiteStore(str(tmp_path / "a.db"))
    try:
        grouped_pipe = Pipeline(store, hashing, gate=GateOptions(strict, max_question_chars=50),
                                llm=LLMOptions(strictness="strict"),
                                observation=ObservationOptions(log_queries=False))
        flat_pipe = Pipeline(store, hashing, thresholds=strict, max_question_chars=50,
                             strictness="strict", log_queries=False)
        for pipe in (grouped_pipe, flat_pipe):
            assert pipe.gate.thresholds == strict and pipe.max_question_chars == 50
            assert pipe.strictness is Strictness.STRICT and pipe.log_queries is False
        assert grouped_pipe.options == flat_pipe.options
        with pytest.raises(ConfigError, match="need an LLM generator"):
            Pipeline(store, hashing, llm=LLMOptions(rewrite_query=True))
    finally:
        store.close()


def test_wrong_parts_and_values_are_clear_errors(tmp_path: Path, hashing: Embedder) -> None:
    """What a newcomer passes by mistake fails at the boundary, in abstain's own errors."""
    from abstain.presets import Preset

    store = SQLiteStore(tmp_path / "kb.db")
    with pytest.raises(ConfigError, match="store must be a store"):
        Pipeline(str(tmp_path / "kb.db"), hashing)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="embedder must be an embedder"):
        Pipeline(store, "minilm")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="max_question_chars"):
        Pipeline(store, hashing, max_question_chars=0)
    with pytest.raises(ConfigError, match="reader must be"):
        Pipeline(store, hashing, reader="yes")
    assert Preset.parse("BALANCED") == Preset.parse(" balanced ") == (Preset.BALANCED, False)
    with Pipeline(store, hashing) as pipe:
        pipe.ingest_text("# Ports\n\nThe API listens on port 8443.", source="ports.md")
        with pytest.raises(InputError, match="must be a string, not int"):
            pipe.ask(123)  # type: ignore[arg-type]
        with pytest.raises(InputError, match="must be a string, not NoneType"):
            pipe.search(None)  # type: ignore[arg-type]
        with pytest.raises(InputError, match="top_k must be at least 1"):
            pipe.search("port", top_k=0)
        with pytest.raises(InputError, match="needs a source"):
            pipe.ingest_text("text", source="")
        with pytest.raises(InputError, match="invalid workspace name ''"):
            pipe.ask("Which port?", workspace="")
        assert pipe.ask(None).refusal is not None  # type: ignore[arg-type]  # a refusal


def test_documents_are_listed_and_deleted_by_id_or_source(tmp_path: Path,
                                                          hashing: Embedder) -> None:
    with Pipeline(SQLiteStore(tmp_path / "kb.db"), hashing) as pipe:
        pipe.ingest_text("# Ports\n\nThe API listens on port 8443.", source="ports.md")
        pipe.ingest_text("# Keys\n\nKeys rotate every 30 days.", source="keys.md")
        pipe.ingest_text("# Keys\n\nKeys rotate every 7 days.", source="keys.md",
                         workspace="staging")
        listed = {d.source: d.id for d in pipe.documents()}
        assert set(listed) == {"ports.md", "keys.md"}
        assert pipe.delete("keys.md") and not pipe.delete("keys.md")
        assert pipe.delete(listed["ports.md"]) and pipe.documents() == []
        assert [d.source for d in pipe.documents(workspace="staging")] == ["keys.md"]
        with pytest.raises(UnknownWorkspace):  # nothing left to answer from
            pipe.ask("How often do keys rotate?")


def test_one_path_is_ingested_as_one_path_and_delete_wants_a_name(tmp_path: Path,
                                                                  hashing: Embedder) -> None:
    """``ingest("docs")`` as ``abstain.ask(docs="docs")`` takes it: one folder, not the
    characters of its name; ``delete(None)`` is an error, not "nothing deleted"."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ports.md").write_text("# Ports\n\nThe API listens on port 8443.")
    with Pipeline(SQLiteStore(tmp_path / "kb.db"), hashing) as pipe:
        assert pipe.ingest(str(folder)).added == [str(folder / "ports.md")]
        assert len(pipe.ingest(folder).unchanged) == 1
        with pytest.raises(InputError, match="must be a string, not NoneType"):
            pipe.delete(None)  # type: ignore[arg-type]


def test_search_names_an_invalid_workspace_as_ask_does(tmp_path: Path, hashing: Embedder) -> None:
    with Pipeline(SQLiteStore(tmp_path / "kb.db"), hashing) as pipe:
        pipe.ingest_text("# Ports\n\nThe API listens on port 8443.", source="ports.md")
        with pytest.raises(InputError, match="invalid workspace name ''"):
            pipe.search("Which port?", workspace="")  # not the default workspace
