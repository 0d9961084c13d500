"""`abstain calibrate`: a loadable file that the pipeline uses, and certified thresholds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from abstain.cli.main import cli
from abstain.confidence import AnswerFeatures, Calibration
from abstain.embed import HashingEmbedder
from abstain.errors import ConfigError
from abstain.evaluate.calibrate import FEATURES, fit_calibration
from abstain.evaluate.data import LabelledQuestion
from abstain.evaluate.records import CheckValue, QuestionRecord
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore

QUESTIONS = Path(__file__).parent / "data" / "sample_questions.jsonl"
ANSWERABLE = "What is the default value of storage.cache_mb?"


@pytest.fixture(scope="module")
def hashing_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    from tests.conftest import ingest_sample_hashing

    return ingest_sample_hashing(tmp_path_factory.mktemp("cal"))


@pytest.fixture(scope="module")
def fitted(hashing_db: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("calfile") / "calibration.json"
    # 60 questions are too few to beat the shipped calibration: written only with --force
    result = CliRunner().invoke(cli, ["calibrate", str(QUESTIONS), "--db", hashing_db,
                                      "-q", "-o", str(out), "--force"])
    assert result.exit_code == 0, result.output
    assert "5-fold CV" in result.output and f"wrote {out}" in result.output
    assert "worse than the current calibration (seed)" in result.output
    assert "(written: --force)" in result.output
    return out


def _ask(db: str, question: str, *extra: str) -> dict[str, object]:
    result = CliRunner().invoke(cli, ["ask", question, "--db", db, "--json", *extra])
    assert result.exit_code == 0, result.output
    payload: dict[str, object] = json.loads(result.stdout)
    return payload


def test_calibrate_writes_a_versioned_file_with_its_data_and_metrics(fitted: Path) -> None:
    raw = json.loads(fitted.read_text())
    assert raw["version"] == 1 and raw["gate_threshold"] is None
    assert set(raw["coefficients"]) == set(FEATURES)
    assert raw["fit_on"]["questions"] == 60 and raw["fit_on"]["answerable"] == 30
    assert raw["fit_on"]["source"] == "sample_questions.jsonl"
    assert raw["fit_on"]["embedder"].startswith("hashing")
    cv = raw["metrics"]["cross_validation"]
    assert cv["folds"] == 5 and 0.5 < cv["auroc"] <= 1 and cv["ece"] is not None
    cal = Calibration.load(fitted)
    assert cal.coefficients == raw["coefficients"] and cal.intercept == raw["intercept"]


def test_ask_with_the_file_uses_the_fitted_confidence(hashing_db: str, fitted: Path) -> None:
    seed = _ask(hashing_db, ANSWERABLE, "--debug")
    refit = _ask(hashing_db, ANSWERABLE, "--debug", "--calibration", str(fitted))
    assert seed["confidence"] != refit["confidence"]
    features = AnswerFeatures(**refit["features"])  # type: ignore[arg-type]
    assert refit["confidence"] == pytest.approx(Calibration.load(fitted).confidence(features),
                                                abs=1e-4)


def test_a_gate_threshold_in_the_file_changes_answers(hashing_db: str, fitted: Path,
                                                      tmp_path: Path) -> None:
    before = _ask(hashing_db, ANSWERABLE, "--calibration", str(fitted))
    assert before["answered"] is True
    strict = json.loads(fitted.read_text())
    strict["gate_threshold"] = min(0.9999, float(before["confidence"]) + 1e-3)  # type: ignore[arg-type]
    path = tmp_path / "strict.json"
    path.write_text(json.dumps(strict))
    after = _ask(hashing_db, ANSWERABLE, "--calibration", str(path))
    assert after["answered"] is False
    assert after["refusal"]["reason"] == "low_confidence"  # type: ignore[index]
    check = next(c for c in after["checks"]  # type: ignore[attr-defined]
                 if c["name"] == "calibrated_confidence")
    assert check["threshold"] == pytest.approx(strict["gate_threshold"], abs=1e-4)
    assert check["detail"].endswith("threshold from the calibration's certified gate_threshold")


def test_too_few_questions_refuse_to_certify(hashing_db: str, tmp_path: Path) -> None:
    out = tmp_path / "never.json"
    result = CliRunner().invoke(cli, ["calibrate", str(QUESTIONS), "--db", hashing_db, "-q",
                                      "-o", str(out), "--max-false-accept", "0.01",
                                      "--confidence", "0.95"])
    assert result.exit_code == 1
    assert "cannot certify" in result.output and "labelled questions in all" in result.output
    assert not out.exists()


def _synthetic(n: int, seed: int) -> list[QuestionRecord]:
    """Records whose best_cosine separates answerable from should-refuse questions."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        pos = bool(rng.random() < 0.6)
        cos = float(np.clip(rng.normal(0.75 if pos else 0.45, 0.08), 0, 1))
        features = {"top_fused_norm": float(rng.random()), "in_both": float(rng.random() < .5),
                    "best_cosine": cos, "term_coverage": float(rng.random())}
        item = LabelledQuestion(f"q{i}", "answer" if pos else "refuse",
                                "answerable" if pos else "near_miss", group=f"g{i // 5}")
        checks = (CheckValue("evidence", True, 5.0, 1.0),
                  CheckValue("calibrated_confidence", True, 0.9, 0.5))
        out.append(QuestionRecord(item, True, None, 0.9, features, checks, ()))
    return out


def test_certified_threshold_goes_into_the_file_and_the_pipeline(tmp_path: Path) -> None:
    fit = fit_calibration(_synthetic(3000, 0), source="synthetic", holdout=0.5, alpha=0.02,
                          delta=0.05)
    assert fit.risk is not None and fit.risk.certified, fit.risk
    cal = fit.calibration
    assert cal.gate_threshold == fit.risk.threshold
    assert cal.metrics["risk_control"]["certified_on"] == "holdout"
    assert fit.risk.upper_bound is not None and fit.risk.upper_bound <= 0.02
    assert 0.5 < fit.risk.answer_rate <= 1
    assert cal.metrics["holdout"]["ece"] < 0.1
    path = tmp_path / "certified.json"
    cal.save(path)
    loaded = Calibration.load(path)
    assert loaded.gate_threshold == cal.gate_threshold
    pipe = Pipeline(SQLiteStore(tmp_path / "x.db"), HashingEmbedder(), calibration=loaded)
    try:
        assert pipe.calibration.gate_threshold == cal.gate_threshold
    finally:
        pipe.close()


def test_the_reading_calibration_learns_the_answerability_feature() -> None:
    """Near misses look like answerable questions to retrieval; only the reader's
    answerability tells them apart, and the reading calibration weighs it accordingly."""
    from dataclasses import replace

    from abstain.evaluate.calibrate import READING_FEATURES, read_records

    rng = np.random.default_rng(3)
    records = []
    for r in _synthetic(200, seed=4):
        p = float(np.clip(rng.normal(0.8 if r.should_answer else 0.2, 0.15), 0, 1))
        retrieval = {**r.features, "best_cosine": float(rng.normal(0.6, 0.1))}
        records.append(replace(r, features={**retrieval, "answerability": p}))
    unread = replace(records[0], features=dict(_synthetic(1, seed=5)[0].features))
    assert read_records([*records, unread]) == records
    plain = fit_calibration(records, source="t").calibration
    read = fit_calibration(records, source="t", features=READING_FEATURES).calibration
    assert "answerability" not in plain.coefficients
    assert read.coefficients["answerability"] > 3
    assert read.metrics["cross_validation"]["auroc"] > plain.metrics["cross_validation"][
        "auroc"] + 0.2
    # the reading calibration needs the feature; the plain one ignores it
    with pytest.raises(ConfigError, match="answerability"):
        read.confidence(AnswerFeatures(0.5, 1.0, 0.6, 0.5))
    assert plain.confidence(AnswerFeatures(0.5, 1.0, 0.6, 0.5, answerability=0.9)) == \
        plain.confidence(AnswerFeatures(0.5, 1.0, 0.6, 0.5))


def test_a_refit_from_enough_labels_is_compared_and_written(tmp_path: Path) -> None:
    """3,000 labelled questions whose best cosine alone tells the labels apart: the new fit
    ranks and calibrates them better than the shipped seed, so it is written."""
    from abstain.evaluate.records import save_records

    records = tmp_path / "run.jsonl"
    save_records(_synthetic(3000, 1), records)
    out = tmp_path / "cal.json"
    result = CliRunner().invoke(cli, ["calibrate", "--records", str(records), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "at least as good as the current calibration (seed) on the same 3000" in result.output
    compared = json.loads(out.read_text())["metrics"]["compared_with_current"]
    assert compared["worse"] is False and compared["labels_needed"] is None
    assert compared["new"]["auroc"] >= compared["current_scores"]["auroc"] - 0.01
    assert compared["new"]["ece"] < compared["current_scores"]["ece"]
    assert len(compared["per_fold"]) == 5


def test_a_worse_refit_is_refused_with_the_reason(tmp_path: Path) -> None:
    """Judged against a calibration fit on the same signal, a fit on 30 noisy questions is
    worse: refused, saying by how much and how many labels a stable fit needs."""
    from abstain.evaluate.records import save_records

    good = fit_calibration(_synthetic(3000, 2), source="many").calibration
    current = tmp_path / "current.json"
    good.save(current)
    few = tmp_path / "few.jsonl"
    save_records(_synthetic(30, 3), few)
    out = tmp_path / "never.json"
    result = CliRunner().invoke(cli, ["calibrate", "--records", str(few), "-o", str(out),
                                      "--calibration", str(current)])
    assert result.exit_code == 1
    assert "worse than the current calibration (fit:many) on the same 30" in result.output
    assert "cross-validated AUROC" in result.output and "ECE" in result.output
    assert "more, at least 10 of each label per coefficient" in result.output
    assert "--force" in result.output and not out.exists()


def test_auto_refits_every_coefficient_only_with_enough_of_each_label() -> None:
    """The shipped answer confidence has seven coefficients: 80 of the rarer label each way
    for a full refit; below that, an offset of its intercept."""
    from abstain.answer_confidence import shipped_answer_confidence
    from abstain.evaluate.answer_refit import auto_refit

    shipped = shipped_answer_confidence()
    assert len(shipped.coefficients) == 7
    assert auto_refit(_synthetic(400, 4), shipped)[0] == "all"  # about 160 should-refuse
    assert auto_refit(_synthetic(150, 4), shipped)[0] == "offset"  # about 60


def test_an_offset_moves_the_stated_confidence_to_the_share_of_right_answers() -> None:
    """150 questions, 60% right, every other check passed: the shifted model keeps the
    shipped coefficients, and its mean P(right) moves to about 0.6."""
    from abstain.answer_confidence import shipped_answer_confidence
    from abstain.evaluate.answer_refit import shift_answer_confidence, values

    shipped = shipped_answer_confidence()
    records = _synthetic(150, 5)
    share = np.mean([r.should_answer for r in records])
    before = np.mean([shipped.confidence(values(r)) for r in records])
    out = shift_answer_confidence(records, shipped, source="synthetic")
    after = np.mean([out.model.confidence(values(r)) for r in records])
    assert abs(before - share) > 0.1 and abs(after - share) < 0.03
    assert out.model.coefficients == shipped.coefficients
    assert out.model.intercept == pytest.approx(shipped.intercept + (out.offset or 0), abs=1e-5)
    assert out.model.report["shift_of"]["model"] == shipped.name
    assert out.fit.fit_on["decided_by_confidence"] == 150


def test_a_refit_says_how_many_false_acceptances_it_makes_surer() -> None:
    from types import SimpleNamespace

    from abstain.cli.evaluate import _raised_should_refuse
    from abstain.evaluate.data import LabelledQuestion
    from abstain.evaluate.records import QuestionRecord

    def record(expected: str, answered: bool, confidence: float) -> QuestionRecord:
        item = LabelledQuestion("q", expected, "x")
        return QuestionRecord(item, answered=answered, reason=None, confidence=confidence,
                              features={"top_fused_norm": 1.0}, checks=(), chunks=())

    records = [record("refuse", True, 0.4), record("refuse", True, 0.9),
               record("refuse", False, 0.1), record("answer", True, 0.4)]
    assert _raised_should_refuse(records, SimpleNamespace(confidence=lambda r: 0.6)) == 1
