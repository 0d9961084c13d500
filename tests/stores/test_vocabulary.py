"""The vocabulary store, on every store: concepts round-trip, labels found, tenants apart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from abstain.stores.base import Store
from abstain.stores.vocab_base import (
    Concept,
    LabelKind,
    LabelMatch,
    LangText,
    VocabularyInfo,
    initials,
    label_key,
)
from abstain.vocabulary import open_vocabulary

GRID = "https://vocab.example.org/grid/"
CMZ = Concept(
    GRID + "cmz",
    pref_labels=(LangText("congestion management zone", "en"),
                 LangText("congestiebeheergebied", "nl")),
    alt_labels=(LangText("CMZ", "en"), LangText("congestion zone", "en")),
    hidden_labels=(LangText("congestion-managment zone", "en"),),
    definitions=(LangText("An area of the grid where demand is steered to avoid overload.",
                          "en"),
                 LangText("Een gebied van het net waar de vraag wordt gestuurd.", "nl")),
    scope_notes=(LangText("Used in procurement of flexibility.", "en"),),
    broader=(GRID + "congestion",), related=(GRID + "flex",), notations=("G.7",))
CONGESTION = Concept(GRID + "congestion", pref_labels=(LangText("grid congestion", "en"),),
                     narrower=(GRID + "cmz",))


def _info(workspace: str, name: str = "grid", concepts: int = 2) -> VocabularyInfo:
    return VocabularyInfo(workspace, name, "file", "/tmp/grid.ttl", "", concepts)


def test_keys_fold_case_accents_hyphens_and_dotted_acronyms() -> None:
    assert label_key("Congestion-Management  Zone") == "congestion management zone"
    assert label_key("C.M.Z.") == label_key("CMZ") == "cmz"
    assert label_key("Énergie") == "energie"
    assert initials("congestion management zone") == "cmz" and initials("grid") == ""


def test_concepts_round_trip_in_every_language(store: Store) -> None:
    vocab = open_vocabulary(store)
    vocab.replace_vocabulary(_info("ws"), [CMZ, CONGESTION])
    assert vocab.concepts("ws", [CMZ.uri, CONGESTION.uri, GRID + "none"]) == {
        CMZ.uri: CMZ, CONGESTION.uri: CONGESTION}
    [info] = vocab.vocabularies("ws")
    assert (info.name, info.kind, info.location, info.concepts, info.languages) == (
        "grid", "file", "/tmp/grid.ttl", 2, ("en", "nl"))
    assert info.loaded_at.endswith("Z")


def test_labels_are_found_by_key_of_any_kind_and_language(store: Store) -> None:
    vocab = open_vocabulary(store)
    vocab.replace_vocabulary(_info("ws"), [CMZ, CONGESTION])
    found = vocab.find_labels("ws", ["cmz", "congestiebeheergebied", "congestion managment zone",
                                     "g 7", "unknown"])
    assert sorted((m.key, m.kind, m.lang) for m in found) == [
        ("cmz", LabelKind.ALT, "en"), ("congestiebeheergebied", LabelKind.PREF, "nl"),
        ("congestion managment zone", LabelKind.HIDDEN, "en"),
        ("g 7", LabelKind.NOTATION, "")]
    assert {m.uri for m in found} == {CMZ.uri}
    assert vocab.find_labels("ws", []) == []


def test_similar_labels_by_initials_prefix_and_shared_words(store: Store) -> None:
    vocab = open_vocabulary(store)
    vocab.replace_vocabulary(_info("ws"), [CMZ, CONGESTION])
    by_initials = vocab.similar_labels("ws", "cmz")
    assert LabelMatch("grid", CMZ.uri, "congestion management zone", LabelKind.PREF, "en",
                      "congestion management zone") in by_initials
    by_word = {m.key for m in vocab.similar_labels("ws", "congestion tariff")}
    assert {"grid congestion", "congestion management zone", "congestion zone"} <= by_word
    assert vocab.similar_labels("ws", "100%_x") == []


def test_replacing_a_vocabulary_drops_its_old_concepts_only(store: Store) -> None:
    vocab = open_vocabulary(store)
    vocab.replace_vocabulary(_info("ws"), [CMZ, CONGESTION])
    other = Concept("https://other.example/x", pref_labels=(LangText("tariff", "en"),))
    vocab.replace_vocabulary(_info("ws", "other", 1), [other])
    vocab.replace_vocabulary(_info("ws", concepts=1), [CONGESTION])
    assert vocab.find_labels("ws", ["cmz"]) == []
    assert [m.uri for m in vocab.find_labels("ws", ["tariff", "grid congestion"])] == [
        CONGESTION.uri, other.uri]
    assert vocab.remove_vocabulary("ws", "grid") and not vocab.remove_vocabulary("ws", "grid")
    assert [v.name for v in vocab.vocabularies("ws")] == ["other"]
    assert vocab.concepts("ws", [CONGESTION.uri]) == {}


def test_tenants_never_see_each_others_vocabularies(make_store: Callable[[], Store]) -> None:
    open_vocabulary(make_store()).replace_vocabulary(_info("a"), [CMZ, CONGESTION])
    other = open_vocabulary(make_store())
    assert other.vocabularies("b") == [] and other.find_labels("b", ["cmz"]) == []
    assert other.concepts("b", [CMZ.uri]) == {} and other.similar_labels("b", "cmz") == []
    assert not other.remove_vocabulary("b", "grid")
    assert [m.uri for m in other.find_labels("a", ["cmz"])] == [CMZ.uri]


def test_terms_first_on_every_store(store: Store, tmp_path: Path) -> None:
    """The pipeline's two vocabulary stages read any store the same way."""
    from abstain.embed import HashingEmbedder
    from abstain.pipeline import Pipeline
    from abstain.vocabulary import VocabularySource, load
    from tests.vocab_support import CMZ as CMZ_URI
    from tests.vocab_support import DOCS, write_vocabulary

    pipe = Pipeline(store, HashingEmbedder(), workspace="grid")
    for name, text in DOCS.items():
        pipe.ingest_text(text, source=name)
    load(store, "grid", VocabularySource(str(write_vocabulary(tmp_path))))
    try:
        defined = pipe.ask("What is a CMZ?")
        found = pipe.ask("How long do CMZ contracts run?")
        unknown = pipe.ask("What is a CMQZ?")
    finally:
        pipe.retriever.close()  # the store is the fixture's to close
    assert defined.tier == "vocabulary" and [c.source for c in defined.citations] == [CMZ_URI]
    assert [c.source for c in found.citations] == ["procurement.md"]
    assert unknown.refusal is not None and unknown.refusal.reason == "unknown_term"
    assert unknown.refusal.suggestions[0] == "congestion management zone"
