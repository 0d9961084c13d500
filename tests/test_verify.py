"""Verification: the lexical verifier, citation checks, correction, faithfulness, strictness."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from abstain.embed import HashingEmbedder
from abstain.embed.base import Embedder
from abstain.errors import ConfigError
from abstain.generate import Sentence
from abstain.generate.openai_chat import OpenAIChatGenerator
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore
from abstain.testing import Reply, ScriptedOpenAIServer
from abstain.verify import (
    LexicalVerifier,
    Strictness,
    Verifier,
    check_sentence,
    faithfulness,
)
from tests.llm_support import FABRICATED, FAITHFUL, KEYS_Q, pipeline

SOURCE = ("API keys are rotated every 30 days. Rotation is done with the qsctl keys rotate "
          "command. Admins can change the interval in storage.key_rotation_days.")
OTHER = "Backups run every night at 02:00 UTC and are kept for 14 days."


@pytest.mark.parametrize(("sentence", "supported"), [
    ("API keys rotate every 30 days.", True),                      # paraphrase, same facts
    ("Admins can change the rotation interval.", True),
    ("API keys rotate every 90 days.", False),                     # wrong number
    ("Admins set it in storage.key_interval.", False),             # unknown identifier
    ("The rotation was designed by Alice Smith in 1998.", False),  # invented name and year
    ("Backups are kept for 14 days.", False),                      # true, but elsewhere
])
def test_lexical_verifier(sentence: str, supported: bool) -> None:
    verifier = LexicalVerifier()
    assert (verifier.check(sentence, [SOURCE]) >= verifier.threshold) is supported


def test_a_word_the_source_writes_apart_is_supported() -> None:
    """An LLM that writes "WiFi", "setup" or "logins" of a source's "Wi-Fi", "set up" and
    "log-ins" says what the source says; a word the source holds in no form is not."""
    source = ["The office Wi-Fi is CORP-SECURE. Set up a laptop after five failed log-ins."]
    verifier = LexicalVerifier()
    for sentence in ("The office WiFi is CORP-SECURE.", "The wifi is CORP-SECURE.",
                     "Setup of a laptop is after five failed logins."):
        assert verifier.check(sentence, source) >= verifier.threshold, sentence
    assert verifier.check("The office Bluetooth is CORP-SECURE.", source) < verifier.threshold


def test_a_number_absent_from_the_source_fails_the_sentence() -> None:
    analysis = LexicalVerifier().analyse("API keys rotate every 90 days.", [SOURCE])
    assert analysis.coverage == 1.0 and analysis.missing_numbers == ("90",)
    assert analysis.support == 0.0
    word = LexicalVerifier().analyse("API keys rotate every 30 weeks.", [SOURCE])
    assert word.missing_words == ("week",) and word.support < LexicalVerifier.threshold
    negated = LexicalVerifier().analyse("API keys are never rotated.", [SOURCE])
    assert negated.negation_mismatch and negated.support < 1.0


def test_citation_checks_and_quotes() -> None:
    verifier = LexicalVerifier()
    texts = [SOURCE, OTHER]
    ok = check_sentence(Sentence("API keys rotate every 30 days.", (1,)), texts, verifier)
    assert ok.supported and ok.cites == (1,) and not ok.citation_failed
    assert ok.quotes == ((1, "API keys are rotated every 30 days."),)

    outside = check_sentence(Sentence("API keys rotate every 30 days.", (9,)), texts, verifier)
    assert outside.outside == (9,) and outside.citation_failed
    assert outside.supported and outside.auto_cited and outside.cites == (1,)

    wrong = check_sentence(Sentence("API keys rotate every 30 days.", (2,)), texts, verifier)
    assert not wrong.supported and wrong.not_found == (2,)

    extra = check_sentence(Sentence("API keys rotate every 30 days.", (1, 2)), texts, verifier)
    assert extra.supported and extra.cites == (1,) and extra.not_found == (2,)

    question = check_sentence(Sentence("Which keys do you mean?", ()), texts, verifier)
    assert question.question and not question.supported


def test_faithfulness_formula() -> None:
    score, parts = faithfulness(1.0, 0.6, None, 1.0)
    assert score == pytest.approx((0.5 * 1.0 + 0.3 * 0.6) / 0.8, abs=1e-4)
    assert parts["generation"] is None and parts["kept_share"] == 1.0
    score, parts = faithfulness(0.8, 0.6, math.log(0.5), 0.5)
    assert parts["generation"] == pytest.approx(0.5)
    assert score == pytest.approx((0.5 * 0.8 + 0.3 * 0.6 + 0.2 * 0.5) * 0.75, abs=1e-4)


def test_strictness_levels() -> None:
    assert [s.threshold for s in Strictness] == [0.0, 0.5, 0.7, 0.9]
    assert [s.value for s in Strictness if s.needs_verifier] == ["strict", "paranoid"]
    assert Strictness.parse("Strict") is Strictness.STRICT
    with pytest.raises(ConfigError, match="unknown strictness"):
        Strictness.parse("lenient")


@pytest.mark.parametrize("level", ["strict", "paranoid"])
def test_strict_without_a_verifier_raises_at_construction(tmp_path: Path, level: str) -> None:
    with pytest.raises(ConfigError, match="needs a verifier"):
        Pipeline(SQLiteStore(tmp_path / "x.db"), HashingEmbedder(), strictness=level,
                 verifier=None)


def test_auto_verifier_and_balanced_without_one(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "x.db")
    with Pipeline(store, HashingEmbedder()) as pipe:
        assert pipe.verifier is None  # extractive answers quote the evidence verbatim
    with Pipeline(SQLiteStore(tmp_path / "y.db"), HashingEmbedder(),
                  strictness="strict") as pipe:
        assert isinstance(pipe.verifier, LexicalVerifier)
    with Pipeline(SQLiteStore(tmp_path / "z.db"), HashingEmbedder(),
                  generator=OpenAIChatGenerator("http://127.0.0.1:9/v1", "m")) as pipe:
        assert isinstance(pipe.verifier, LexicalVerifier)
    with pytest.raises(ConfigError, match="need an LLM generator"):
        Pipeline(SQLiteStore(tmp_path / "w.db"), HashingEmbedder(), rewrite_query=True)


PARTIAL = f"API keys are rotated every 30 days [1]. {FABRICATED} [1]"


@pytest.mark.parametrize(("level", "answered", "text"), [
    ("loose", True, f"API keys are rotated every 30 days. [1] {FABRICATED} [1]"),
    ("balanced", True, "API keys are rotated every 30 days. [1]"),
    ("paranoid", False, ""),
])
def test_strictness_decides_correction_and_refusal(kb: Path, minilm: Embedder,
                                                   server: ScriptedOpenAIServer, level: str,
                                                   answered: bool, text: str) -> None:
    server.script(Reply(PARTIAL, logprob=-0.05))
    generator = OpenAIChatGenerator(server.url, "m")
    with pipeline(kb, minilm, generator=generator, strictness=level) as pipe:
        answer = pipe.ask(KEYS_Q)
    assert answer.answered is answered
    assert answer.text == text
    assert answer.unsupported_claims == (FABRICATED,)
    # loose keeps the fabricated sentence (support 0), so its faithfulness is lowest
    assert answer.faithfulness is not None and 0.4 < answer.faithfulness < 0.9
    if not answered:
        assert answer.refusal is not None and answer.refusal.reason == "low_faithfulness"
        check = next(c for c in answer.checks if c.name == "faithfulness")
        assert not check.passed and check.threshold == 0.9


class AlwaysDoubtful:
    """A stand-in for a trained scorer: the protocol is one method."""

    name = "doubtful"

    def check(self, sentence: str, evidence_texts: Sequence[str]) -> float:
        return 0.1


def test_any_verifier_plugs_into_the_seam(kb: Path, minilm: Embedder,
                                          server: ScriptedOpenAIServer) -> None:
    assert isinstance(AlwaysDoubtful(), Verifier)
    server.script(FAITHFUL)
    generator = OpenAIChatGenerator(server.url, "m")
    with pipeline(kb, minilm, generator=generator, verifier=AlwaysDoubtful(),
                  strictness="strict") as pipe:
        answer = pipe.ask(KEYS_Q)
    assert not answer.answered and answer.refusal is not None
    assert answer.refusal.reason == "unsupported"
    assert len(answer.unsupported_claims) == 2
    assert "doubtful verifier" in next(c.detail for c in answer.checks if c.name == "support")
    assert not any(n.startswith("lexical verifier") for n in answer.notes)


def test_extractive_answers_verify_cleanly(kb: Path, minilm: Embedder) -> None:
    with pipeline(kb, minilm, verifier=LexicalVerifier(), strictness="strict") as pipe:
        answer = pipe.ask(KEYS_Q)
    assert answer.answered and answer.unsupported_claims == ()
    assert answer.faithfulness is not None and answer.faithfulness >= 0.7
    assert answer.llm_called is False
