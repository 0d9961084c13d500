"""Evaluation harness: labelled questions through the real pipeline, metrics, calibration.

    data      the labelled JSONL format (bad lines reported by number, the run goes on)
    loaders   built-in benchmarks (SQuAD 2.0, BEIR SciFact, RGB, QAGS)
    runner    ask every question via Pipeline.ask and record every signal
    metrics   AUROC, ECE, risk–coverage / AURC, nDCG, recall, refusal rates (numpy only)
    baselines four earlier gate designs (seed000–003), on the same recorded signals
    report    the summary, tables and threshold sweeps
    logistic  L2 logistic regression (IRLS) and cross-validation
    calibrate fit the confidence coefficients; certify a threshold
    risk      Learn-then-Test with an exact binomial bound
    plots     PNG figures (the ``plots`` extra)
"""

from __future__ import annotations

from abstain.evaluate.data import LabelledQuestion, LabelledSet, LineProblem, read_jsonl
from abstain.evaluate.records import QuestionRecord, load_records, save_records
from abstain.evaluate.report import summarize, sweep
from abstain.evaluate.risk import RiskControl, control_risk

__all__ = [
    "LabelledQuestion",
    "LabelledSet",
    "LineProblem",
    "QuestionRecord",
    "RiskControl",
    "control_risk",
    "load_records",
    "read_jsonl",
    "save_records",
    "summarize",
    "sweep",
]
