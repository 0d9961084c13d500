"""The answer confidence: P(this answer is right) from every signal, its fit across domains,
and the recording it is fitted on (``abstain eval --answer-all``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from abstain.answer_confidence import (
    ANSWER_SIGNALS,
    SIGNALS,
    AnswerConfidence,
    answer_signals,
    shipped_answer_confidence,
    signals,
)
from abstain.cli.main import cli
from abstain.errors import ConfigError
from abstain.evaluate.answer_all import GATE_CHECKS, gate_decision
from abstain.evaluate.answer_fit import fit_answer_confidence
from abstain.evaluate.records import QuestionRecord, load_records
from abstain.pipeline import Pipeline
from abstain.question import Question
from abstain.records import Check, CheckName
from abstain.stores.sqlite import SQLiteStore

QUESTIONS = Path(__file__).parent / "data" / "sample_questions.jsonl"


@pytest.fixture(scope="module")
def hashing_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    from tests.conftest import ingest_sample_hashing

    return ingest_sample_hashing(tmp_path_factory.mktemp("answerall"))


def _run(db: str, out: Path, *extra: str) -> None:
    result = CliRunner().invoke(cli, ["eval", str(QUESTIONS), "--db", db, "-q",
                                      "--save-records", str(out), "--json", *extra])
    assert result.exit_code == 0, result.output


def test_answer_all_keeps_the_gates_verdicts_and_gives_the_answer_it_would_have(
        hashing_db: str, tmp_path: Path) -> None:
    _run(hashing_db, tmp_path / "gated.jsonl")
    _run(hashing_db, tmp_path / "all.jsonl", "--answer-all")
    gated = {r.item.question: r for r in load_records(tmp_path / "gated.jsonl")}
    everything = load_records(tmp_path / "all.jsonl")
    refused_by_gate = 0
    for record in everything:
        before = gated[record.item.question]
        # the gate's checks with the same values and verdicts: it decided what it did before
        assert _gate_checks(record) == _gate_checks(before)
        if not before.answered and before.reason in {c.reason for c in before.checks
                                                      if not c.passed}:
            refused_by_gate += 1
        elif before.answered:  # what the gate passed is answered the same way
            assert record.answered and record.answer_text == before.answer_text
    # the refused questions reached the generator: some have an answer now
    assert refused_by_gate
    assert any(r.answered and gate_decision(r) is not None for r in everything)


def _gate_checks(record: QuestionRecord) -> list[tuple[str, bool, float | None]]:
    """The gate's checks but the confidence (the answer-all run records the retrieval
    calibration's there: the one the answer confidence is fitted beside), and but the quote's
    reading, which only a question that reached the answerer has."""
    return [(c.name, c.passed, c.value) for c in record.checks
            if c.name in GATE_CHECKS and c.name not in (CheckName.CALIBRATED_CONFIDENCE,
                                                        CheckName.QUOTE_READING)]


def _checks(**verdicts: tuple[bool, float | str | None]) -> list[Check]:
    return [Check(name, passed, value, None) for name, (passed, value) in verdicts.items()]


def test_signals_read_the_checks_values_and_verdicts_on_a_unit_scale() -> None:
    features = {"top_fused_norm": 1.0, "in_both": 1.0, "best_cosine": 0.7,
                "term_coverage": 0.5}
    values = signals(features, _checks(
        answer_gate=(True, 61.0), informative_coverage=(False, 0.42),
        passage_coverage=(True, 0.8), entity_existence=(False, "ADR-0009"),
        answer_type=(True, "date"), best_distance=(True, 0.3), term_coverage=(True, 0.5)))
    assert values == {**features, "informative_coverage": 0.42, "passage_coverage": 0.8,
                      "chunk_confidence": 0.61, "entity_in_evidence": 0.0,
                      "answer_type_found": 1.0, "checks_passed": pytest.approx(5 / 7)}
    # a check that did not run (switched off) counts as passed; the reading only when read
    assert signals(features, [])["answer_type_found"] == 1.0
    assert "answerability" not in signals(features, [])
    assert signals({**features, "answerability": 0.8}, [])["answerability"] == 0.8


def test_a_model_names_only_known_signals_and_round_trips(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown signals"):
        AnswerConfidence(0.0, {"shoe_size": 1.0}, 0.5)
    with pytest.raises(ConfigError, match="threshold"):
        AnswerConfidence(0.0, {}, 1.5)
    model = AnswerConfidence(-2.0, {"best_cosine": 4.0}, 0.6, report={"x": 1})
    model.save(tmp_path / "m.json")
    again = AnswerConfidence.load(tmp_path / "m.json")
    assert again == model
    assert again.confidence({"best_cosine": 0.5}) == pytest.approx(0.5)
    with pytest.raises(ConfigError, match="cannot read"):
        AnswerConfidence.load(tmp_path / "missing.json")
    # a fit on the quoted answer's signals is for judging: the gate decides before the answer
    judged = AnswerConfidence(-2.0, {"best_cosine": 1.0, "answer_read": 2.0}, 0.5)
    assert judged.confidence({"best_cosine": 1.0, "answer_read": 0.5}) == pytest.approx(0.5)
    judged.save(tmp_path / "judged.json")
    with pytest.raises(ConfigError, match=r"quoted answer \(answer_read\).*judging only"):
        AnswerConfidence.load(tmp_path / "judged.json")


def test_the_quoted_answers_signals() -> None:
    """Whether the answer carries the asked type, holds the asked terms and repeats the
    question's numbers: a near miss from another year repeats none of them."""
    asked = Question.parse("Who won the women's singles Wimbledon in 2019?")
    assert answer_signals(asked, ["Simona Halep won the 2019 Wimbledon women's singles."]) == {
        "answer_typed": 1.0, "answer_terms": 1.0, "answer_numbers": 1.0}
    other_year = answer_signals(asked, ["Angelique Kerber won the 2018 Wimbledon final."])
    assert other_year["answer_numbers"] == 0.0 and other_year["answer_terms"] < 1.0
    when = Question.parse("When was version 2.0 released?")
    assert answer_signals(when, ["Version 2.0 is the current release."])["answer_typed"] == 0.0
    assert answer_signals(when, ["Version 2.0 was released on 3 May 2021."])[
        "answer_typed"] == 1.0
    features = {"answer_read": 0.9, **answer_signals(when, ["It shipped."])}
    assert {k: v for k, v in signals(features, []).items() if k in ANSWER_SIGNALS} == features


def test_the_shipped_model_carries_its_leave_one_domain_out_report() -> None:
    model = shipped_answer_confidence()
    assert set(model.coefficients) <= set(SIGNALS)
    report = model.report
    assert len(report["data"]) >= 5
    for domain, judged in report["leave_one_domain_out"].items():
        assert domain in report["data"]
        assert 0 <= judged["answer_confidence"]["ece"] <= 1
    assert report["risk_control"]["certified"] is True
    assert model.threshold == pytest.approx(report["risk_control"]["threshold"], abs=1e-4)


def test_the_fit_judges_each_domain_on_a_model_that_did_not_see_it(
        hashing_db: str, tmp_path: Path) -> None:
    _run(hashing_db, tmp_path / "all.jsonl", "--answer-all")
    records = load_records(tmp_path / "all.jsonl")
    # two halves of the sample questions stand in for two domains
    runs = {"a": records[::2], "b": records[1::2]}
    model = fit_answer_confidence(runs, alphas={"balanced": 0.5})
    lodo = model.report["leave_one_domain_out"]
    assert set(lodo) == {"a", "b"}
    assert lodo["a"]["questions"] == 30 and lodo["b"]["questions"] == 30
    for half in ("a", "b"):
        judged = lodo[half]["answer_confidence"]
        assert 0 <= judged["ece"] <= 1 and judged["auroc"] is not None
    assert set(model.report["outcomes"]["before"]) == {"a", "b"}
    assert model.report["preset_thresholds"]["balanced"] == model.threshold


def test_the_gate_decides_on_the_answer_confidence(sample_db: str, minilm: object) -> None:
    """Without the reader (with it, the reading calibration decides: docs/MODEL_CARD.md)."""
    from abstain.embed.base import Embedder

    assert isinstance(minilm, Embedder)
    model = shipped_answer_confidence()
    with Pipeline(SQLiteStore(sample_db), minilm, reader=False) as pipe:
        answer = pipe.ask("What is the default value of storage.cache_mb?")
        refused = pipe.ask("How many engineers maintain the qsctl admin reset-password "
                           "command?")
    check = next(c for c in answer.checks if c.name == CheckName.CALIBRATED_CONFIDENCE)
    assert answer.answered and check.passed
    assert check.threshold == model.threshold
    assert check.value == pytest.approx(answer.confidence, abs=1e-4)
    assert check.detail.startswith("P(right) from answer-confidence")
    # a check that fails still refuses, and the answer confidence is below the threshold
    assert refused.refusal is not None and refused.refusal.reason == "answer_type_missing"
    assert refused.confidence < model.threshold


def test_presets_take_their_certified_thresholds() -> None:
    from abstain.presets import ANSWER_CONFIDENCE, Preset

    certified = shipped_answer_confidence().report["preset_thresholds"]
    assert {p: t for p, t in certified.items() if p != "balanced"} == ANSWER_CONFIDENCE
    assert Preset.STRICT.thresholds().min_answer_confidence == certified["strict"]
    assert Preset.LENIENT.thresholds().min_answer_confidence == certified["lenient"]
    assert Preset.BALANCED.thresholds().min_answer_confidence is None  # the model's own
    assert shipped_answer_confidence().threshold == certified["balanced"]
    assert certified["lenient"] <= certified["balanced"] <= certified["strict"]


def test_a_calibration_file_keeps_the_retrieval_confidence(sample_db: str, minilm: object
                                                           ) -> None:
    from abstain.confidence import default_calibration
    from abstain.embed.base import Embedder

    assert isinstance(minilm, Embedder)
    with Pipeline(SQLiteStore(sample_db), minilm, calibration=default_calibration()) as pipe:
        answer = pipe.ask("What is the default value of storage.cache_mb?")
    check = next(c for c in answer.checks if c.name == CheckName.CALIBRATED_CONFIDENCE)
    assert check.detail.startswith("logistic over") and check.threshold == 0.5


def test_calibrate_refuses_answer_all(hashing_db: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["calibrate", str(QUESTIONS), "--db", hashing_db, "-q",
                                      "-o", str(tmp_path / "c.json"), "--answer-all"])
    assert result.exit_code != 0 and "--answer-all records" in result.output
    assert not (tmp_path / "c.json").exists()


def test_an_answer_confidence_file_is_a_typed_option(hashing_db: str, tmp_path: Path) -> None:
    """The Python API, abstain.toml and --answer-confidence load a model other than the
    shipped one; it decides at its own threshold; with a calibration it is an error."""
    from dataclasses import replace

    from abstain.confidence import default_calibration
    from abstain.embed import HashingEmbedder
    from abstain.options import AskOptions
    from abstain.pipeline_options import GateOptions
    from abstain.presets import Preset

    demanding = replace(shipped_answer_confidence(), name="demanding", threshold=0.999)
    path = tmp_path / "demanding.json"
    demanding.save(path)
    question = "What is the default value of storage.cache_mb?"
    with Pipeline(SQLiteStore(hashing_db), HashingEmbedder(), reader=False,
                  gate=GateOptions(Preset.STRICT.thresholds(),
                                   answer_confidence=AnswerConfidence.load(path))) as pipe:
        answer = pipe.ask(question)
        assert pipe.confidence_name == "demanding"
    check = next(c for c in answer.checks if c.name == CheckName.CALIBRATED_CONFIDENCE)
    assert check.threshold == 0.999 and not check.passed  # not the strict preset's
    assert answer.refusal is not None and answer.refusal.reason == "low_confidence"

    options = AskOptions(store=hashing_db, embedder="hashing", answer_confidence=str(path))
    assert options.pipeline_options()["gate"].answer_confidence == demanding
    (tmp_path / "abstain.toml").write_text('answer_confidence = "demanding.json"\n')
    shown = CliRunner().invoke(cli, ["config", "show", "--json", "--config",
                                     str(tmp_path / "abstain.toml")])
    assert shown.exit_code == 0, shown.output
    assert str(path) in shown.output

    with pytest.raises(ConfigError, match="not both"):
        Pipeline(SQLiteStore(hashing_db), HashingEmbedder(), calibration=default_calibration(),
                 answer_confidence=demanding)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = CliRunner().invoke(cli, ["ask", question, "--db", hashing_db, "--embedder",
                                      "hashing", "--answer-confidence", str(bad)])
    assert result.exit_code == 1 and "cannot read answer confidence file" in result.output
    assert "Traceback" not in result.output


def test_a_calibration_file_passed_for_the_other_kind_says_which_flag_takes_it(
        tmp_path: Path) -> None:
    from abstain.confidence import Calibration

    answer = tmp_path / "answer.json"
    shipped_answer_confidence().save(answer)
    retrieval = tmp_path / "cal.json"
    Calibration.load().save(retrieval)
    with pytest.raises(ConfigError, match=r"is a retrieval calibration .* --calibration"):
        AnswerConfidence.load(retrieval)
    with pytest.raises(ConfigError, match=r"is an answer confidence .* --answer-confidence"):
        Calibration.load(answer)
