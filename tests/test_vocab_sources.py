"""Vocabulary sources: SKOS files in three RDF syntaxes, a SKOSMOS server over real HTTP
(the scripted one), and the `abstain vocab` commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstain.cli import cli
from abstain.errors import MissingDependency, VocabularyError
from abstain.stores.sqlite import SQLiteStore
from abstain.testing.skosmos_server import ScriptedSkosmosServer
from abstain.vocabulary import VocabularySource, load, open_vocabulary, refresh
from abstain.vocabulary.skos import parse, read_file
from tests.vocab_support import CMZ, GRID, TURTLE, write_vocabulary


@pytest.fixture
def skosmos() -> Iterator[ScriptedSkosmosServer]:
    with ScriptedSkosmosServer({"grid": TURTLE}) as server:
        yield server


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    st = SQLiteStore(tmp_path / "kb.db")
    yield st
    st.close()


def test_a_concept_keeps_every_label_note_relation_and_language(tmp_path: Path) -> None:
    concepts = {c.uri: c for c in read_file(write_vocabulary(tmp_path))}
    assert sorted(concepts) == [GRID + n for n in ("cmz", "congestion", "flex", "tariff")]
    cmz = concepts[CMZ]
    assert [(t.text, t.lang) for t in cmz.pref_labels] == [
        ("congestion management zone", "en"), ("congestiebeheergebied", "nl")]
    assert [(t.text, t.lang) for t in cmz.alt_labels] == [("CMZ", "en"), ("congestiegebied", "nl")]
    assert [t.text for t in cmz.hidden_labels] == ["congestion managment zone"]
    assert [t.lang for t in cmz.definitions] == ["en", "nl"]
    assert [t.text for t in cmz.scope_notes] == ["Used when procuring flexibility."]
    assert (cmz.broader, cmz.related, cmz.notations) == ((GRID + "congestion",),
                                                         (GRID + "flex",), ("G.7",))
    # stated once (tariff's skos:broader), completed the other way
    assert concepts[GRID + "congestion"].narrower == (CMZ, GRID + "tariff")


@pytest.mark.parametrize(("suffix", "fmt"), [(".rdf", "xml"), (".jsonld", "json-ld"),
                                              (".nt", "nt")])
def test_rdf_xml_json_ld_and_n_triples_read_the_same(tmp_path: Path, suffix: str,
                                                     fmt: str) -> None:
    import rdflib

    graph = rdflib.Graph().parse(data=TURTLE, format="turtle")
    path = tmp_path / f"grid{suffix}"
    path.write_text(graph.serialize(format=fmt), encoding="utf-8")
    assert read_file(path) == parse(TURTLE, "turtle", where="turtle")


def test_bad_files_are_clear_errors_and_change_nothing(tmp_path: Path,
                                                       store: SQLiteStore) -> None:
    load(store, "ws", VocabularySource(str(write_vocabulary(tmp_path))))
    broken = tmp_path / "broken.ttl"
    broken.write_text("@prefix skos: <nope", encoding="utf-8")
    with pytest.raises(VocabularyError, match="not readable as turtle"):
        load(store, "ws", VocabularySource(str(broken), name="grid"))
    empty = tmp_path / "empty.ttl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(VocabularyError, match="no SKOS concepts"):
        load(store, "ws", VocabularySource(str(empty), name="grid"))
    (tmp_path / "grid.txt").write_text(TURTLE, encoding="utf-8")
    with pytest.raises(VocabularyError, match="RDF format"):
        read_file(tmp_path / "grid.txt")
    [info] = open_vocabulary(store).vocabularies("ws")
    assert (info.name, info.concepts) == ("grid", 4)


def test_without_rdflib_the_error_names_the_extra(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rdflib", None)
    with pytest.raises(MissingDependency, match=r"pip install 'abstain\[vocab\]'"):
        read_file(write_vocabulary(tmp_path))


@pytest.mark.parametrize("whole", [True, False])
def test_a_skosmos_vocabulary_is_read_over_rest(tmp_path: Path, store: SQLiteStore,
                                                whole: bool) -> None:
    with ScriptedSkosmosServer({"grid": TURTLE}, whole_data=whole) as server:
        info = load(store, "ws", VocabularySource(f"{server.url}/rest/v1/grid/"))
        asked, url = list(server.requests), server.url
    assert (info.name, info.kind, info.location, info.vocid, info.concepts) == (
        "grid", "skosmos", url, "grid", 4)
    expected = {c.uri: c for c in read_file(write_vocabulary(tmp_path))}
    assert open_vocabulary(store).concepts("ws", list(expected)) == expected
    if whole:
        assert asked == ["/rest/v1/grid/data?format=text%2Fturtle"]
    else:
        assert any(p.startswith("/rest/v1/search?vocab=grid") for p in asked)
        assert sum("uri=" in p for p in asked) == 4


def test_skosmos_ids_refresh_and_failures(store: SQLiteStore,
                                          skosmos: ScriptedSkosmosServer) -> None:
    info = load(store, "ws", VocabularySource(skosmos.url))  # the server's only vocabulary
    assert info.vocid == "grid"
    skosmos.set_vocabulary("other", TURTLE)
    with pytest.raises(VocabularyError, match=r"2 vocabularies \(grid, other\).*--vocid"):
        load(store, "ws", VocabularySource(skosmos.url))
    skosmos.set_vocabulary("grid", TURTLE.replace('"CMZ"@en', '"CMZ"@en , "C-zone"@en'))
    [again] = refresh(store, "ws")
    assert again.loaded_at > info.loaded_at
    assert [m.uri for m in open_vocabulary(store).find_labels("ws", ["c zone"])] == [CMZ]
    skosmos.fail_with = 503
    with pytest.raises(VocabularyError, match="HTTP 503"):
        refresh(store, "ws")
    assert open_vocabulary(store).find_labels("ws", ["c zone"])  # unchanged
    skosmos.stop()
    with pytest.raises(VocabularyError, match="cannot reach the SKOSMOS server"):
        refresh(store, "ws", ["grid"], timeout=2)
    with pytest.raises(VocabularyError, match="no vocabulary 'nope'"):
        refresh(store, "ws", ["nope"])


def test_the_vocab_commands(tmp_path: Path, skosmos: ScriptedSkosmosServer,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "kb.db")
    runner = CliRunner()
    added = runner.invoke(cli, ["vocab", "add", f"{skosmos.url}/rest/v1/grid", "--db", db,
                                "-w", "grid", "--name", "terms"])
    assert added.exit_code == 0, added.output
    assert added.output.startswith("loaded terms  4 concepts  [en,nl]  skosmos")
    write_vocabulary(tmp_path)
    (tmp_path / "abstain.toml").write_text(
        '[vocabularies.local]\nsource = "grid.ttl"\nworkspace = "grid"\n', encoding="utf-8")
    refreshed = runner.invoke(cli, ["vocab", "refresh", "--db", db, "-w", "grid"])
    assert refreshed.exit_code == 0, refreshed.output
    assert [line.split()[1] for line in refreshed.output.splitlines()] == ["local", "terms"]
    listed = runner.invoke(cli, ["vocab", "list", "--db", db, "-w", "grid", "--json"])
    rows = json.loads(listed.output)
    assert [(r["name"], r["kind"], r["concepts"]) for r in rows] == [
        ("local", "file", 4), ("terms", "skosmos", 4)]
    assert rows[0]["location"] == str(tmp_path / "grid.ttl")
    removed = runner.invoke(cli, ["vocab", "remove", "terms", "--db", db, "-w", "grid"])
    assert removed.exit_code == 0 and "removed vocabulary 'terms'" in removed.output
    again = runner.invoke(cli, ["vocab", "remove", "terms", "--db", db, "-w", "grid"])
    assert again.exit_code == 1
    missing = runner.invoke(cli, ["vocab", "add", "nope.ttl", "--db", db])
    assert missing.exit_code == 1 and "Error: cannot read" in missing.output
    empty = runner.invoke(cli, ["vocab", "list", "--db", db])
    assert empty.output == "no vocabularies in workspace 'default'\n"


def test_abstain_toml_declares_vocabularies_beside_the_ask_options(tmp_path: Path) -> None:
    from abstain.errors import ConfigError
    from abstain.options import resolve
    from abstain.vocabulary import configured

    path = tmp_path / "abstain.toml"
    path.write_text('preset = "strict"\n[vocabularies.grid]\nsource = "terms/grid.ttl"\n'
                    '[vocabularies.remote]\nsource = "https://skosmos.example.org/rest/v1/g"\n'
                    'workspace = "other"\n', encoding="utf-8")
    assert resolve({}, config=str(path), environ={}).options.preset == "strict"
    assert configured(path, "default") == [
        VocabularySource(str(tmp_path / "terms" / "grid.ttl"), "grid")]
    assert [s.kind for s in configured(path, "other")] == ["skosmos"]
    path.write_text('[vocabularies.grid]\nsource = "g.ttl"\nlang = "en"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown key\(s\) lang"):
        configured(path, "default")
    path.write_text('[vocabularies.grid]\nworkspace = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="needs source"):
        configured(path, "default")
