"""Metrics on small cases computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abstain.evaluate.logistic import (
    cross_validate,
    fit_logistic,
    fit_offset,
)
from abstain.evaluate.metrics import (
    auroc,
    ece,
    gate_metrics,
    ndcg_at_k,
    recall_at_k,
    risk_coverage,
)


def test_auroc_counts_correctly_ordered_pairs() -> None:
    # positives 0.9, 0.7; negatives 0.8, 0.6: pairs (0.9>0.8, 0.9>0.6, 0.7<0.8, 0.7>0.6) = 3/4
    assert auroc([0.9, 0.8, 0.7, 0.6], [True, False, True, False]) == 0.75


def test_auroc_ties_count_half_and_one_class_is_nan() -> None:
    assert auroc([0.5, 0.5], [True, False]) == 0.5
    assert auroc([0.2, 0.5, 0.5], [False, True, False]) == 0.75  # (1 + ½) / 2
    assert math.isnan(auroc([0.1, 0.2], [True, True]))


def test_ece_and_reliability_table() -> None:
    # bin [0.1, 0.2): conf 0.1, acc 0.5 -> 0.4 × ½ ; bin [0.9, 1.0]: conf 0.9, acc 1 -> 0.1 × ½
    value, table = ece([0.1, 0.1, 0.9, 0.9], [False, True, True, True])
    assert value == pytest.approx(0.25)
    filled = [(b.low, b.count, b.confidence, b.accuracy) for b in table if b.count]
    assert filled == [(pytest.approx(0.1), 2, pytest.approx(0.1), 0.5),
                      (pytest.approx(0.9), 2, pytest.approx(0.9), 1.0)]
    assert len(table) == 10


def test_ece_puts_one_in_the_last_bin_and_is_zero_when_calibrated() -> None:
    value, table = ece([1.0, 0.0], [True, False])
    assert value == 0.0
    assert table[-1].count == 1 and table[0].count == 1


def test_risk_coverage_and_aurc() -> None:
    rc = risk_coverage([0.9, 0.8, 0.7, 0.6], [False, True, False, True])
    assert list(rc.coverage) == [0.25, 0.5, 0.75, 1.0]
    assert list(rc.risk) == pytest.approx([0.0, 0.5, 1 / 3, 0.5])
    assert rc.aurc == pytest.approx((0 + 0.5 + 1 / 3 + 0.5) / 4)


def test_aurc_takes_tied_scores_together() -> None:
    # the two 0.9s enter at once: risk ½ at coverage ⅔, then ⅓ at coverage 1
    rc = risk_coverage([0.9, 0.9, 0.5], [True, False, False])
    assert list(rc.coverage) == pytest.approx([2 / 3, 1.0])
    assert rc.aurc == pytest.approx((2 * 0.5 + 1 * (1 / 3)) / 3)


def test_ndcg_and_recall() -> None:
    ranked = ["a", "x", "b", "y"]
    dcg = 1.0 + 1.0 / math.log2(4)
    ideal = 1.0 + 1.0 / math.log2(3)
    assert ndcg_at_k(ranked, {"a", "b"}, 10) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(ranked, {"a", "b"}, 1) == 1.0
    assert ndcg_at_k(["x", "a"], {"a"}, 10) == pytest.approx(1 / math.log2(3))
    assert recall_at_k(ranked, {"a", "b"}, 1) == 0.5
    assert recall_at_k(ranked, {"a", "b"}, 3) == 1.0
    assert math.isnan(ndcg_at_k(ranked, set(), 10))


def test_gate_metrics_follow_seed_002_definitions() -> None:
    answered = [True, True, False, True, False, False]
    should = [True, True, True, False, False, False]
    cats = ["answerable"] * 3 + ["near_miss", "near_miss", "off_topic"]
    m = gate_metrics(answered, should, cats)
    assert m.answer_rate == pytest.approx(2 / 3)
    assert m.false_refusal == pytest.approx(1 / 3)
    assert m.refusal_accuracy == pytest.approx(2 / 3)
    assert m.false_acceptance == pytest.approx(1 / 3)
    assert m.false_acceptance_by_category == {"near_miss": 0.5, "off_topic": 0.0}
    assert m.risk_among_answered == pytest.approx(1 / 3)
    assert m.coverage == 0.5


def test_logistic_regression_recovers_known_coefficients() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20_000, 2))
    p = 1 / (1 + np.exp(-(0.5 + 2.0 * x[:, 0] - 1.0 * x[:, 1])))
    y = rng.random(20_000) < p
    model = fit_logistic(x, y, l2=1e-6)
    assert model.intercept == pytest.approx(0.5, abs=0.08)
    assert model.coefficients == pytest.approx((2.0, -1.0), abs=0.08)


def test_logistic_gradient_is_zero_at_the_penalised_optimum() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 3)) * [1.0, 10.0, 0.1]
    y = rng.random(300) < 0.4
    model = fit_logistic(x, y, l2=0.0 + 1e-9)
    p = model.predict(x)
    grad = np.hstack([[np.sum(p - y)], x.T @ (p - y)])
    assert np.max(np.abs(grad)) < 1e-5


def test_cross_validation_reports_out_of_fold_metrics() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(400, 1))
    y = rng.random(400) < 1 / (1 + np.exp(-3 * x[:, 0]))
    cv = cross_validate(x, y, folds=5)
    assert cv.folds == 5
    assert 0.8 < cv.auroc < 1.0
    assert cv.ece < 0.1
    assert set(cv.by_l2) == {0.01, 0.1, 1.0, 10.0, 100.0}


def test_an_offset_recovers_the_shift_and_its_prior_holds_few_labels_back() -> None:
    rng = np.random.default_rng(3)
    z = rng.normal(size=2000)
    y = rng.random(2000) < 1 / (1 + np.exp(-(z + 1.5)))  # the model is 1.5 too low
    assert abs(fit_offset(z, y) - 1.5) < 0.15
    few = fit_offset(z[:8], np.ones(8, dtype=bool))  # 8 right answers: pulled up, held back
    assert 0 < few < fit_offset(z[:8], np.ones(8, dtype=bool), prior_sd=10.0)
    assert fit_offset([], []) == 0.0



@pytest.mark.parametrize("gold", ["reference/configuration.md", "/reference/configuration.md",
                                  "./reference/configuration.md", "configuration.md"])
def test_a_gold_source_matches_as_a_path_suffix_however_it_starts(gold: str) -> None:
    from abstain.evaluate.records import is_gold

    assert is_gold("/srv/kb/reference/configuration.md", [gold])
    assert not is_gold("/srv/kb/reference/my-configuration.md", [gold])


def test_gold_sources_that_name_no_stored_document_are_found() -> None:
    from abstain.evaluate.data import LabelledQuestion
    from abstain.evaluate.harness import unknown_gold_sources

    questions = [LabelledQuestion("a", "answer", "answerable",
                                  ("/qa/ports.md", "qa/nowhere.md")),
                 LabelledQuestion("b", "answer", "answerable", ("guides/setup.md",))]
    stored = ["/srv/kb/qa/ports.md", "/srv/kb/guides/setup.md"]
    assert unknown_gold_sources(questions, stored) == ["qa/nowhere.md"]


def test_a_question_asked_again_is_named_with_its_first_line() -> None:
    from abstain.evaluate.data import LabelledQuestion, repeated

    questions = [LabelledQuestion("Which port?", "answer", "answerable", line=1),
                 LabelledQuestion("which  port?", "answer", "answerable", line=2),
                 LabelledQuestion("Which port?", "refuse", "near_miss", line=3),
                 LabelledQuestion("Who?", "refuse", "off_topic", line=4)]
    assert repeated(questions) == ["line 2 = line 1", "line 3 = line 1, labelled both ways"]
