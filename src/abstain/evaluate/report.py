"""Turn recorded questions into the numbers `abstain eval` prints: a JSON summary and tables."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from abstain.evaluate.baselines import BASELINES, baseline
from abstain.evaluate.metrics import (
    _clean,
    auroc,
    ece,
    gate_metrics,
    ndcg_at_k,
    recall_at_k,
    risk_coverage,
)
from abstain.evaluate.records import QuestionRecord, gold_ranking

RECALL_KS = (1, 5, 10, 100)
LOWER_IS_BETTER = frozenset({"best_distance"})


def summarize(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """Everything `abstain eval --json` prints (NaN becomes null)."""
    pos = [r.should_answer for r in records]
    cats = [r.item.category for r in records]
    conf = [r.confidence for r in records]
    rc = risk_coverage(conf, [not p for p in pos])
    ece_value, table = ece(conf, pos)
    gates = {}
    for b in BASELINES:
        metrics = gate_metrics([b.decide(r) for r in records], pos, cats).to_json()
        metrics["auroc"] = _clean(auroc([b.score(r) for r in records], pos))
        metrics["description"] = b.description
        gates[b.name] = metrics
    answered_pos = [r for r in records if r.answered and r.should_answer]
    judged = [r.correct for r in answered_pos if r.correct is not None]
    given = sum(r.answered for r in records)
    right = sum(r.right for r in records)
    labelled = [r for r in records if r.should_answer and _judgeable(r)]
    can_judge = bool(labelled)
    # an answer to an answerable question nothing can judge is neither right nor wrong: it
    # is left out of precision (and its question out of recall), and counted
    unjudged = sum(1 for r in answered_pos if not _judgeable(r))
    judged_given = given - unjudged
    latency = np.asarray([r.latency_ms for r in records] or [math.nan])
    summary: dict[str, Any] = {
        "n": len(records),
        "auroc": _clean(auroc(conf, pos)),
        "ece": _clean(ece_value),
        "aurc": _clean(rc.aurc),
        **gates["abstain"],
        "answers_given": given,
        "answers_unjudged": unjudged,
        "right_answers": right if can_judge else None,
        "right_answer_recall": _clean(right / len(labelled) if can_judge else math.nan),
        "answer_precision": _clean(right / judged_given if can_judge and judged_given
                                   else math.nan),
        "answered_correct": _clean(sum(judged) / len(judged) if judged else math.nan),
        "correctness": {"answered_answerable": len(answered_pos), "judged": len(judged),
                        "correct": sum(judged), "wrong": len(judged) - sum(judged)},
        "wrong_answers": [_wrong(r) for r in answered_pos if r.correct is False],
        "answered_should_refuse": [
            {"question": r.item.question, "category": r.item.category,
             "cited_sources": list(r.cited_sources), "answer": r.answer_text[:300]}
            for r in records if r.answered and not r.should_answer],
        "reliability": [{"low": b.low, "high": b.high, "count": b.count,
                         "confidence": _clean(b.confidence), "accuracy": _clean(b.accuracy)}
                        for b in table],
        "risk_coverage": _curve(rc.coverage, rc.risk, rc.thresholds),
        "refusal_reasons": _counts(r.reason or "answered" for r in records),
        "baselines": {k: v for k, v in gates.items() if k != "abstain"},
        "retrieval": retrieval_metrics(records),
        "latency_ms": {"p50": _clean(float(np.nanpercentile(latency, 50))),
                       "p95": _clean(float(np.nanpercentile(latency, 95)))},
        "errors": sum(r.error is not None for r in records),
    }
    return summary


def _judgeable(r: QuestionRecord) -> bool:
    """Whether the labels can tell a right answer to this question from a wrong one."""
    return bool(r.item.answer_keys or r.item.gold_answer or r.item.gold_sources)


def _wrong(r: QuestionRecord) -> dict[str, Any]:
    return {"question": r.item.question, "cited_sources": list(r.cited_sources),
            "gold_sources": list(r.item.gold_sources), "gold_answer": r.item.gold_answer,
            "answer_keys": list(r.item.answer_keys), "answer": r.answer_text[:300]}


def retrieval_metrics(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """nDCG@10 and recall@k per arm, over questions with gold sources and recorded rankings."""
    with_gold = [r for r in records if r.item.gold_sources and r.rankings]
    out: dict[str, Any] = {"questions": len(with_gold)}
    if not with_gold:
        return out
    for arm in ("vector", "keyword", "hybrid"):
        lists = [(gold_ranking(r.rankings.get(arm, ()), r.item.gold_sources),
                  r.item.gold_sources) for r in with_gold]
        row: dict[str, Any] = {"ndcg@10": _mean([ndcg_at_k(rk, g, 10) for rk, g in lists])}
        for k in RECALL_KS:
            row[f"recall@{k}"] = _mean([recall_at_k(rk, g, k) for rk, g in lists])
        out[arm] = row
    return out


def _mean(values: list[float]) -> float | None:
    vals = [v for v in values if not math.isnan(v)]
    return round(sum(vals) / len(vals), 4) if vals else None


def _curve(coverage: np.ndarray, risk: np.ndarray, thresholds: np.ndarray,
           points: int = 21) -> list[dict[str, float]]:
    """The risk–coverage curve thinned to about ``points`` operating points."""
    if len(coverage) == 0:
        return []
    idx = sorted({int(i) for i in np.linspace(0, len(coverage) - 1, points)})
    return [{"coverage": round(float(coverage[i]), 4), "risk": round(float(risk[i]), 4),
             "threshold": round(float(thresholds[i]), 4)} for i in idx]


def _counts(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


@dataclass(frozen=True, slots=True)
class SweepRow:
    threshold: float
    answered: int
    missed: int
    """Answerable questions refused ("missed")."""
    hallucinated: int
    """Should-refuse questions answered ("hallucinations")."""


def signal_values(records: Sequence[QuestionRecord], name: str) -> list[float | None]:
    try:
        b = baseline(name)
    except KeyError:
        return [r.signal(name) for r in records]
    return [b.score(r) for r in records]


def sweep(records: Sequence[QuestionRecord], name: str, *, steps: int = 11,
          at: Sequence[float] | None = None) -> tuple[str, list[SweepRow]]:
    """Gate on one signal alone at each threshold; returns the direction and the rows.

    Higher passes (``>=``) except for distances, where lower passes (``<=``). A question
    without the signal is refused.
    """
    values = signal_values(records, name)
    known = [v for v in values if v is not None]
    if not known:
        raise KeyError(f"no recorded signal named {name!r}")
    lower = name in LOWER_IS_BETTER
    if at:
        grid = sorted(at)
    else:
        grid = sorted({round(float(q), 4) for q in np.quantile(known, np.linspace(0, 1, steps))})
    rows = []
    for t in grid:
        passed = [v is not None and (v <= t if lower else v >= t) for v in values]
        rows.append(SweepRow(
            t, sum(passed),
            sum(1 for p, r in zip(passed, records, strict=True) if not p and r.should_answer),
            sum(1 for p, r in zip(passed, records, strict=True) if p and not r.should_answer)))
    return ("<=" if lower else ">="), rows


def signal_names(records: Sequence[QuestionRecord]) -> list[str]:
    names: dict[str, None] = {"confidence": None}
    for r in records[:50]:
        names.update(dict.fromkeys(r.features))
        names.update(dict.fromkeys(c.name for c in r.checks if c.value is not None))
    names.update(dict.fromkeys(b.name for b in BASELINES if b.name != "abstain"))
    return list(names)


def format_table(summary: dict[str, Any]) -> str:
    """The readable report: outcome, calibration, the baseline gates side by side, retrieval."""
    lines = [f"{summary['n']} questions  AUROC {_f(summary['auroc'])}  ECE {_f(summary['ece'])}"
             f"  AURC {_f(summary['aurc'])}  latency p50 {_f(summary['latency_ms']['p50'], 1)}"
             f" ms, p95 {_f(summary['latency_ms']['p95'], 1)} ms"]
    if summary.get("right_answers") is not None:
        unjudged = summary.get("answers_unjudged") or 0
        judged = summary["answers_given"] - unjudged
        lines.append(f"answer precision {_f(summary['answer_precision'])} "
                     f"({summary['right_answers']} right of {judged} answers "
                     f"given{' and judged' if unjudged else ''})  right-answer recall "
                     f"{_f(summary['right_answer_recall'])}  "
                     f"answerable answered {_f(summary['answer_rate'])}")
        if unjudged:
            lines.append(f"  ({unjudged} more answer{'s' if unjudged > 1 else ''} to answerable "
                         "questions without answer_keys, gold_answer or gold_sources could not "
                         "be judged: left out of both)")
    cats = list(summary["counts_by_category"])
    header = f"{'gate':<10}{'answer rate':>12}{'false acc.':>11}{'refusal acc':>12}" + "".join(
        f"{c[:18]:>20}" for c in cats) + f"{'AUROC':>8}"
    lines += ["", "answered share by category (answerable: higher is better; others: lower)",
              header, "-" * len(header)]
    rows = {"abstain": summary, **summary["baselines"]}
    for name, m in rows.items():
        lines.append(f"{name:<10}{_f(m['answer_rate']):>12}{_f(m['false_acceptance']):>11}"
                     f"{_f(m['refusal_accuracy']):>12}"
                     + "".join(f"{_f(m['answered_by_category'].get(c)):>20}" for c in cats)
                     + f"{_f(m['auroc']):>8}")
    lines.append("counts: " + ", ".join(f"{c} {n}" for c, n in
                                        summary["counts_by_category"].items()))
    lines += _correctness_lines(summary)
    lines += ["", "reliability (confidence vs. should-answer)",
              f"{'bin':<12}{'n':>6}{'confidence':>12}{'accuracy':>10}"]
    for b in summary["reliability"]:
        if b["count"]:
            lines.append(f"{b['low']:.1f}–{b['high']:.1f}{'':<5}{b['count']:>6}"
                         f"{_f(b['confidence']):>12}{_f(b['accuracy']):>10}")
    retrieval = summary["retrieval"]
    if retrieval.get("questions"):
        lines += ["", f"retrieval over {retrieval['questions']} questions with gold sources",
                  f"{'arm':<10}{'nDCG@10':>9}" + "".join(f"{'R@' + str(k):>8}"
                                                         for k in RECALL_KS)]
        for arm in ("vector", "keyword", "hybrid"):
            m = retrieval[arm]
            lines.append(f"{arm:<10}{_f(m['ndcg@10']):>9}"
                         + "".join(f"{_f(m[f'recall@{k}']):>8}" for k in RECALL_KS))
    lines += ["", "refusal reasons: " + ", ".join(f"{k} {v}" for k, v in
                                                  summary["refusal_reasons"].items())]
    if summary["errors"]:
        lines.append(f"{summary['errors']} questions failed with an error (counted as refused); "
                     "see --save-records")
    return "\n".join(lines)


def _correctness_lines(summary: dict[str, Any]) -> list[str]:
    """Whether the answers were right: a gold source cited and an answer key (else the gold
    answer) contained."""
    c = summary.get("correctness")
    if not c or not c["answered_answerable"]:
        return []
    if not c["judged"]:
        return ["", f"answered correctly: - ({c['answered_answerable']} answers to answerable "
                    "questions; no gold_sources / gold_answer to judge them by)"]
    lines = ["", f"answered correctly: {c['correct']} of {c['judged']} judged answers "
                 f"({_f(summary['answered_correct'])}); wrong answers: {c['wrong']}"]
    for w in summary.get("answered_should_refuse") or []:
        lines.append(f"  answered, should refuse ({w['category']}): {w['question']}")
    for w in summary["wrong_answers"]:
        lines.append(f"  wrong: {w['question']}")
        lines.append(f"         cited {', '.join(w['cited_sources']) or '-'}; gold "
                     f"{', '.join(w['gold_sources']) or '-'}"
                     + (f"; keys {w['answer_keys']!r}" if w["answer_keys"] else
                        f"; gold answer {w['gold_answer']!r}" if w["gold_answer"] else ""))
    return lines


def format_sweep(name: str, direction: str, rows: Sequence[SweepRow]) -> str:
    lines = [f"sweep of {name} (answer when {name} {direction} threshold)",
             f"{'threshold':>10}{'answered':>10}{'missed':>8}{'hallucinated':>14}"]
    lines += [f"{r.threshold:>10.4g}{r.answered:>10}{r.missed:>8}{r.hallucinated:>14}"
              for r in rows]
    return "\n".join(lines)


def _f(value: object, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float | int):
        return f"{value:.{digits}f}"
    return str(value)
