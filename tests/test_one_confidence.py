"""One confidence: the number an answer states, its display and its triage agree everywhere,
and no refusal states more than the gate threshold, no answer less."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstain.answer import Answer, triage
from abstain.answer_confidence import confident_at
from abstain.cli.main import cli
from abstain.evaluate.data import read_jsonl
from abstain.presets import ANSWER_CONFIDENCE, Preset
from abstain.records import Check, CheckName
from abstain.stated_confidence import gate_threshold, refusal_rate, stated

QUESTIONS = Path(__file__).parent / "data" / "sample_questions.jsonl"


def _threshold(answer: Answer | dict[str, object]) -> float:
    checks = answer.checks if isinstance(answer, Answer) else [
        Check(c["name"], c["passed"], c["value"], c["threshold"], c["detail"])  # type: ignore[index]
        for c in answer["checks"]]  # type: ignore[attr-defined]
    floor = gate_threshold(checks)
    assert floor is not None
    return floor


@pytest.mark.parametrize("reader", [False, True], ids=["words", "reader"])
@pytest.mark.parametrize("preset", list(Preset))
def test_refusals_state_no_more_than_the_gate_threshold_and_answers_no_less(
        sample_db: str, minilm: object, preset: Preset, reader: bool) -> None:
    """Over the sample corpus's labelled questions, at each preset, with and without the
    reader: a refusal states at most the gate threshold and is triaged no_match; an answer
    states at least it and is triaged by that number (uncertain below confident_at(),
    confident from it)."""
    from abstain.embed.base import Embedder
    from abstain.pipeline import Pipeline
    from abstain.stores.sqlite import SQLiteStore

    assert isinstance(minilm, Embedder)
    seen: set[str] = set()
    tiers: set[str] = set()
    with Pipeline(SQLiteStore(sample_db), minilm, thresholds=preset.thresholds(),
                  reader=reader) as pipe:
        for item in read_jsonl(QUESTIONS).questions:
            answer = pipe.ask(item.question)
            assert answer.display_confidence == round(100 * answer.confidence, 1)
            tiers.add(answer.triage)
            if not any(c.name == CheckName.CALIBRATED_CONFIDENCE for c in answer.checks):
                assert not answer.answered  # settled before the gate: validate
                assert answer.triage == "no_match"
                continue
            floor = _threshold(answer)
            assert answer.triage == triage(answer.confidence, floor, answered=answer.answered)
            if answer.answered:
                assert answer.confidence >= floor, item.question
                assert answer.triage == ("confident" if answer.confidence >= max(
                    floor, confident_at()) else "uncertain"), item.question
            else:
                assert answer.confidence <= floor, item.question
                assert answer.triage == "no_match", item.question
                seen.add(answer.refusal.reason if answer.refusal else "")
    assert {"no_evidence", "unknown_entity"} <= seen
    assert "confident" in tiers and "no_match" in tiers


@pytest.mark.parametrize("question", [
    "What is the default value of storage.cache_mb?",  # answered
    "What does ADR-0050 decide?",  # unknown_entity
    "How do I bake sourdough bread?",  # no_evidence or another refusal
    "",  # invalid_question
])
def test_ask_json_confidence_display_and_triage_agree(sample_db: str, question: str) -> None:
    result = CliRunner().invoke(cli, ["ask", question, "--db", sample_db, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    confidence = payload["confidence"]
    assert payload["display_confidence"] == pytest.approx(100 * confidence, abs=0.06)
    refused = payload["refusal"] is not None
    floor = None if refused and payload["refusal"]["reason"] == "invalid_question" else (
        _threshold(payload))
    assert payload["triage"] == triage(confidence, floor, answered=not refused)
    text = CliRunner().invoke(cli, ["ask", question, "--db", sample_db]).output
    assert f"confidence {payload['display_confidence']:.1f}/100" in text
    if refused:
        assert payload["triage"] == "no_match"
        assert floor is None or confidence <= floor
    else:
        assert payload["triage"] in ("confident", "uncertain") and confidence >= floor
        assert f"Answer ({payload['triage']}, confidence" in text


def test_a_refusal_by_a_check_states_what_its_refusals_were_worth() -> None:
    gate = Check(CheckName.CALIBRATED_CONFIDENCE, True, 0.95, 0.5, "", "low_confidence")
    entity = Check(CheckName.ENTITY_EXISTENCE, False, "ADR-0050", "all present", "",
                   "unknown_entity")
    confidence = stated(0.95, [entity, gate], answered=False, reason="unknown_entity")
    assert confidence == pytest.approx(refusal_rate(CheckName.ENTITY_EXISTENCE))
    assert confidence < 0.5 and triage(confidence, 0.5, answered=False) == "no_match"
    # refused by the calibrated confidence itself: that confidence, below the threshold
    low = Check(CheckName.CALIBRATED_CONFIDENCE, False, 0.3, 0.5, "", "low_confidence")
    assert stated(0.3, [low], answered=False, reason="low_confidence") == 0.3
    # an answer (a curated match exempt from the check) never states less than the threshold
    curated = Check(CheckName.CALIBRATED_CONFIDENCE, True, 0.3, 0.5, "", "low_confidence")
    assert stated(0.3, [curated], answered=True) == 0.5
    # an LLM failure says nothing about the evidence: the confidence, capped at the threshold
    llm = Check(CheckName.GENERATION, False, None, None, "", "llm_error")
    assert stated(0.9, [gate, llm], answered=False, reason="llm_error") == 0.5


def test_triage_is_a_function_of_the_confidence_the_threshold_and_the_outcome() -> None:
    balanced = 0.3186
    assert confident_at() == ANSWER_CONFIDENCE["strict"]
    assert triage(confident_at(), balanced) == "confident"
    assert triage(confident_at() - 1e-9, balanced) == "uncertain"
    assert triage(balanced, balanced) == "uncertain"  # answered at the threshold
    assert triage(balanced - 1e-9, balanced) == "no_match"  # what the gate refuses
    assert triage(balanced, balanced, answered=False) == "no_match"  # a refusal at it
    assert triage(0.0, 0.0) == "uncertain" and triage(0.0, 0.0, answered=False) == "no_match"
    assert triage(0.5, 0.6) == "no_match"  # a stricter gate: below its threshold
    assert triage(0.6, 0.6) == "confident"  # at a threshold above confident_at()
    assert triage(0.99, balanced, verification_failed=True) == "verification_failed"
