"""PNG plots of an evaluation (needs the ``plots`` extra: matplotlib).

reliability.png      mean confidence vs. share answerable per bin, with counts
risk_coverage.png    selective risk against coverage, abstain and the seeds' scores
scores.png           confidence histogram per category, with the gate threshold
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from abstain.errors import MissingDependency
from abstain.evaluate.baselines import BASELINES
from abstain.evaluate.metrics import ece, risk_coverage
from abstain.evaluate.records import QuestionRecord


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
             _histograms(plt, records, out / "scores.png", threshold, title)]
    return paths


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
    ax.set(xlim=(0, 1), ylim=(0, 1.05), xlabel="calibrated confidence",
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
    ax.set(xlabel="calibrated confidence", ylabel="density",
           title=f"{title} confidence by category".strip())
    ax.legend(fontsize=8)
    return _save(plt, fig, path)


def _save(plt: Any, fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
