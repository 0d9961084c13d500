"""PNG plots of an evaluation (needs the ``plots`` extra: matplotlib).

reliability.png      mean confidence vs. share answerable per bin, with counts
risk_coverage.png    selective risk against coverage, abstain and the baseline gates' scores
scores.png           confidence histogram per category, with the gate threshold
histogram.png        the two confidence histograms (should answer / should refuse), the gate
                     marked and where the distributions cross (the write-ups' tuning picture)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from abstain.errors import MissingDependency
from abstain.evaluate.baselines import BASELINES
from abstain.evaluate.metrics import ece, risk_coverage
from abstain.evaluate.records import CONFIDENCE_CHECK, QuestionRecord


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingDependency("matplotlib", "plots") from exc
    return plt


def write_plots(records: Sequence[QuestionRecord], out_dir: str | Path, *,
                threshold: float | None = None, title: str = "") -> list[Path]:
    """Write the three PNGs into ``out_dir``; returns their paths."""
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    conf = np.asarray([r.confidence for r in records])
    pos = np.asarray([r.should_answer for r in records])
    paths = [_reliability(plt, conf, pos, out / "reliability.png", title),
             _risk_coverage(plt, records, out / "risk_coverage.png", title),
             _histograms(plt, records, out / "scores.png", threshold, title),
             confidence_histograms(records, out / "histogram.png", threshold=threshold,
                                   title=title)[0]]
    return paths


def gate_threshold(records: Sequence[QuestionRecord]) -> float | None:
    """The calibrated-confidence threshold the records were gated with (the most common)."""
    seen: dict[float, int] = {}
    for r in records:
        check = r.check(CONFIDENCE_CHECK)
        if check is not None and check.threshold is not None:
            seen[check.threshold] = seen.get(check.threshold, 0) + 1
    return max(seen, key=lambda t: seen[t]) if seen else None


def crossing(records: Sequence[QuestionRecord]) -> float | None:
    """Where the two distributions cross: the threshold with the fewest labelled mistakes,
    each class weighted equally (missed answerable share + answered should-refuse share)."""
    pos = np.asarray([r.confidence for r in records if r.should_answer])
    neg = np.asarray([r.confidence for r in records if not r.should_answer])
    if not len(pos) or not len(neg):
        return None
    values = np.unique(np.concatenate([pos, neg]))
    candidates = np.concatenate([[values[0]], (values[:-1] + values[1:]) / 2, [values[-1] + 1e-9]])
    cost = [(pos < t).mean() + (neg >= t).mean() for t in candidates]
    return float(candidates[int(np.argmin(cost))])


def confidence_histograms(records: Sequence[QuestionRecord], path: str | Path, *,
                          threshold: float | None = None, title: str = ""
                          ) -> tuple[Path, float | None]:
    """Confidence of should-answer vs should-refuse questions, the gate (``threshold``, else
    the one the records ran with) and the crossing point; returns the path and the crossing."""
    plt = _pyplot()
    gate = threshold if threshold is not None else gate_threshold(records)
    cross = crossing(records)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    bins = np.linspace(0, 1, 26)
    for label, want, color in (("should answer", True, "C2"), ("should refuse", False, "C3")):
        vals = [r.confidence for r in records if r.should_answer is want]
        ax.hist(vals, bins=bins, alpha=0.55, color=color, label=f"{label} ({len(vals)})")
    if gate is not None:
        ax.axvline(gate, color="black", linestyle="--", linewidth=1.5, label=f"gate {gate:.3f}")
    if cross is not None:
        ax.axvline(cross, color="grey", linestyle=":", linewidth=1.5,
                   label=f"distributions cross {cross:.3f}")
    ax.set(xlim=(0, 1), xlabel="confidence", ylabel="questions",
           title=f"{title} confidence of labelled questions".strip())
    ax.legend(fontsize=8, loc="upper center")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    return _save(plt, fig, out), cross


def _reliability(plt: Any, conf: np.ndarray, pos: np.ndarray, path: Path, title: str) -> Path:
    value, table = ece(conf, pos)
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="perfect")
    rows = [b for b in table if b.count]
    ax.bar([(b.low + b.high) / 2 for b in rows], [b.accuracy for b in rows], width=0.09,
           alpha=0.6, label="share answerable")
    ax.plot([b.confidence for b in rows], [b.accuracy for b in rows], marker="o", color="C1",
            label="bin mean confidence")
    for b in rows:
        ax.annotate(str(b.count), ((b.low + b.high) / 2, b.accuracy), ha="center",
                    va="bottom", fontsize=7)
    ax.set(xlim=(0, 1), ylim=(0, 1.05), xlabel="confidence",
           ylabel="share of questions the documents answer",
           title=f"{title} reliability (ECE {value:.3f})".strip())
    ax.legend(loc="upper left", fontsize=8)
    return _save(plt, fig, path)


def _risk_coverage(plt: Any, records: Sequence[QuestionRecord], path: Path, title: str
                   ) -> Path:
    errors = [not r.should_answer for r in records]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for b in BASELINES:
        rc = risk_coverage([b.score(r) for r in records], errors)
        label = "abstain confidence" if b.name == "abstain" else f"{b.name} score"
        ax.plot(rc.coverage, rc.risk, label=f"{label} (AURC {rc.aurc:.3f})",
                linewidth=2 if b.name == "abstain" else 1)
    ax.set(xlim=(0, 1), ylim=(0, None), xlabel="coverage (share answered)",
           ylabel="risk (should-refuse among answered)", title=f"{title} risk–coverage".strip())
    ax.legend(fontsize=7)
    return _save(plt, fig, path)


def _histograms(plt: Any, records: Sequence[QuestionRecord], path: Path,
                threshold: float | None, title: str) -> Path:
    fig, ax = plt.subplots(figsize=(6, 4.5))
    bins = np.linspace(0, 1, 41)
    for cat in dict.fromkeys(r.item.category for r in records):
        vals = [r.confidence for r in records if r.item.category == cat]
        ax.hist(vals, bins=bins, alpha=0.5, label=f"{cat} ({len(vals)})", density=True)
    if threshold is not None:
        ax.axvline(threshold, color="black", linestyle="--", label=f"threshold {threshold:.3f}")
    ax.set(xlabel="confidence", ylabel="density",
           title=f"{title} confidence by category".strip())
    ax.legend(fontsize=8)
    return _save(plt, fig, path)


def _save(plt: Any, fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
