"""Terms first: definitions from the vocabulary, alt labels read as preferred labels, and a
clarifying question instead of a guess. The generator is a real OpenAI-compatible client
talking to the scripted server, so "no LLM called" is what the server saw."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from abstain.embed import HashingEmbedder
from abstain.embed.base import Embedder
from abstain.generate.openai_chat import OpenAIChatGenerator
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore
from abstain.testing import ScriptedOpenAIServer
from abstain.vocabulary import open_vocabulary
from tests.vocab_support import CMZ, GRID, build_kb

EN_DEFINITION = "An area of the grid where the operator steers demand to avoid overload."
NL_DEFINITION = "Een gebied van het net waar de netbeheerder de vraag stuurt."


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_kb(tmp_path_factory.mktemp("vocab"), HashingEmbedder())


@pytest.fixture
def llm() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(default="Contracts run for one year [1].") as server:
        yield server


@pytest.fixture
def pipe(kb: Path, llm: ScriptedOpenAIServer) -> Iterator[Pipeline]:
    generator = OpenAIChatGenerator(llm.url, "scripted", max_retries=0)
    with Pipeline(SQLiteStore(kb), HashingEmbedder(), generator=generator) as pipeline:
        yield pipeline


@pytest.mark.parametrize(("question", "text"), [
    ("What is a CMZ?", f"Congestion management zone (CMZ): {EN_DEFINITION} [1]"),
    ("What does congestion management zone mean?",
     f"Congestion management zone: {EN_DEFINITION} [1]"),
    ("what does c.m.z. stand for", f"Congestion management zone (c.m.z.): {EN_DEFINITION} [1]"),
    ("Wat is een congestiebeheergebied?", f"Congestiebeheergebied: {NL_DEFINITION} [1]"),
    ("Wat is een congestiegebied?",
     f"Congestiebeheergebied (congestiegebied): {NL_DEFINITION} [1]"),
])
def test_a_definition_comes_from_the_vocabulary_cited_to_the_concept(
        pipe: Pipeline, llm: ScriptedOpenAIServer, question: str, text: str) -> None:
    answer = pipe.ask(question)
    assert answer.answered and answer.text == text
    assert (answer.tier, answer.confidence, answer.triage) == ("vocabulary", 1.0, "confident")
    [citation] = answer.citations
    assert (citation.source, citation.n) == (CMZ, 1)
    assert citation.quote == (NL_DEFINITION if "Wat" in question else EN_DEFINITION)
    # the documents that name the concept follow its definition, uncited
    assert [(e["source"], e["cited"]) for e in answer.evidence_json()] == [
        (CMZ, True), ("procurement.md", False)]
    [check] = [c for c in answer.checks if c.name == "vocabulary"]
    assert check.passed and CMZ in check.detail
    assert not answer.llm_called and llm.chat_requests == []


def test_an_alt_label_finds_documents_that_only_use_the_preferred_label(
        pipe: Pipeline, llm: ScriptedOpenAIServer, kb: Path) -> None:
    answer = pipe.ask("How long do CMZ contracts run?")
    assert answer.answered and answer.question == "How long do CMZ contracts run?"
    assert [c.source for c in answer.citations] == ["procurement.md"]
    assert answer.tier == "retrieval"
    [check] = [c for c in answer.checks if c.name == "vocabulary"]
    assert check.detail == f"read CMZ -> congestion management zone <{CMZ}>"
    [call] = llm.chat_requests
    assert "congestion management zone" in call.prompt
    with Pipeline(SQLiteStore(kb), HashingEmbedder(), vocabulary=False) as plain:
        refused = plain.ask("How long do CMZ contracts run?")
    assert not refused.answered and "CMZ" in refused.refusal.missing  # type: ignore[union-attr]


def test_an_unknown_term_gets_a_clarifying_question_and_near_concepts_without_an_llm(
        pipe: Pipeline, llm: ScriptedOpenAIServer) -> None:
    answer = pipe.ask("What is a CMQZ?")
    assert not answer.answered and answer.refusal is not None
    assert answer.refusal.reason == "unknown_term" and answer.refusal.missing == ("CMQZ",)
    assert answer.refusal.message.startswith("Could you clarify what you mean by “CMQZ”?")
    assert answer.refusal.suggestions[:2] == ("congestion management zone", "grid congestion")
    [check] = [c for c in answer.checks if c.name == "known_term"]
    assert not check.passed and check.reason == "unknown_term" and CMZ in check.detail
    assert not answer.llm_called and llm.chat_requests == []


def test_the_clarifying_question_is_in_the_questions_language(pipe: Pipeline) -> None:
    answer = pipe.ask("Wat is een congestietariefzone voor de netbeheerder?")
    assert answer.refusal is not None and answer.refusal.reason == "unknown_term"
    assert answer.refusal.message.startswith(
        "Kunt u verduidelijken wat u bedoelt met ‘congestietariefzone voor de netbeheerder’?")


def test_a_multi_word_unknown_term_is_offered_similar_labels(pipe: Pipeline) -> None:
    answer = pipe.ask("What is a congestion tariff zone?")
    assert answer.refusal is not None and answer.refusal.reason == "unknown_term"
    assert answer.refusal.suggestions[0] == "congestion management zone"
    assert "grid tariff" in answer.refusal.suggestions


def test_known_terms_and_identifiers_are_not_turned_into_questions(pipe: Pipeline) -> None:
    undefined = pipe.ask("What is a grid tariff?")  # a concept without a definition
    assert undefined.refusal is None or undefined.refusal.reason != "unknown_term"
    assert any("no definition" in n for n in undefined.notes)
    adr = pipe.ask("What is ADR-0050?")
    assert adr.refusal is not None and adr.refusal.reason != "unknown_term"


def test_a_workspace_without_a_vocabulary_is_unchanged(kb: Path) -> None:
    with Pipeline(SQLiteStore(kb), HashingEmbedder(), workspace="other") as pipe:
        pipe.ingest_text("# Backups\n\nBackups run at night.\n", source="b.md")
        answer = pipe.ask("What is a CMQZ?")
    assert answer.refusal is not None and answer.refusal.reason != "unknown_term"
    assert not any(c.name in ("vocabulary", "known_term") for c in answer.checks)


def test_a_lowercase_word_is_not_read_as_an_acronym_label(tmp_path: Path) -> None:
    from abstain.stores.vocab_base import Concept, LangText, VocabularyInfo

    with Pipeline(SQLiteStore(tmp_path / "it.db"), HashingEmbedder()) as pipe:
        pipe.ingest_text("# Help\n\nRestart it when it hangs.\n", source="h.md")
        open_vocabulary(pipe.store).replace_vocabulary(
            VocabularyInfo("default", "it", "file", "x.ttl", concepts=1),
            [Concept(GRID + "it", (LangText("information technology", "en"),),
                     (LangText("IT", "en"),))])
        answer = pipe.ask("How do I restart it when it hangs?")
    [check] = [c for c in answer.checks if c.name == "vocabulary"]
    assert check.value == 0 and "information technology" not in check.detail



def test_an_alt_label_the_documents_use_is_kept_as_the_user_wrote_it(
        tmp_path: Path, minilm: Embedder) -> None:
    """Found by a newcomer: with "zstd" an alternative label of "Zstandard", a question about
    zstd was refused `unknown_entity: Zstandard` — a word the user never wrote, and the
    documents never use."""
    from abstain.stores.vocab_base import Concept, LangText, VocabularyInfo

    with Pipeline(SQLiteStore(tmp_path / "z.db"), minilm) as pipe:
        pipe.ingest_text("# Compression\n\nNew shelves are compressed with zstd by default, "
                         "at level 3.\n\n# Replication\n\nReplicas follow the leader.\n",
                         source="compression.md")
        open_vocabulary(pipe.store).replace_vocabulary(
            VocabularyInfo("default", "codecs", "file", "x.ttl", concepts=1),
            [Concept(GRID + "zstd", (LangText("Zstandard", "en"),), (LangText("zstd", "en"),))])
        answer = pipe.ask("What level is zstd compression set to by default?")
    assert answer.answered and "level 3" in answer.text, answer.refusal
    assert "vocabulary: 'zstd' kept as written: the documents use it, not its preferred label " \
           "'Zstandard'" in answer.notes
