"""Held-out measurements; every function takes a pair scorer, so torch checkpoints and the
shipped ONNX file are measured by the same code.

A *pair scorer* maps ``(a_texts, b_texts, head)`` to one logit per pair.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from abstain.rerank.windows import sentence_windows
from abstain.train import squad

PairScorer = Callable[[Sequence[str], Sequence[str], int], np.ndarray]


def auroc(labels: Sequence[int], scores: Sequence[float] | np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney U, ties counted half); labels first."""
    from abstain.evaluate.metrics import auroc as _auroc

    return _auroc([float(x) for x in np.asarray(scores, dtype=np.float64)],
                  [bool(x) for x in labels])


def heldout_questions(data: Path, limit: int | None = None, seed: int = 0
                      ) -> list[squad.Question]:
    questions = [q for a in squad.split(squad.load_articles(data), "heldout") for q in a.questions]
    if limit and limit < len(questions):
        questions = random.Random(seed).sample(questions, limit)
    return questions


def max_over_windows(scorer: PairScorer, queries: Sequence[str],
                     passages: Sequence[list[str]], head: int) -> np.ndarray:
    """For each (query, windows) the best window's logit."""
    a = [q for q, ws in zip(queries, passages, strict=True) for _ in ws]
    b = [w for ws in passages for w in ws]
    logits = scorer(a, b, head)
    out, at = np.zeros(len(queries), dtype=np.float32), 0
    for i, ws in enumerate(passages):
        out[i] = logits[at:at + len(ws)].max()
        at += len(ws)
    return out


def near_miss(scorer: PairScorer, questions: Sequence[squad.Question]) -> dict[str, float]:
    """AUROC answerable (1) vs impossible (0), each question read against its own paragraph."""
    windows = [sentence_windows(q.context) for q in questions]
    scores = max_over_windows(scorer, [q.text for q in questions], windows, 0)
    labels = [0 if q.impossible else 1 for q in questions]
    return {"near_miss_auroc": round(auroc(labels, scores), 4), "n": len(questions)}


def qags(scorer: PairScorer, data: Path, threshold_logit: float = 0.0) -> dict[str, float]:
    """Sentence support on QAGS (CNN/DM + XSum): AUROC and balanced accuracy at a fixed
    threshold (logit 0 = probability 0.5)."""
    result: dict[str, float] = {}
    all_labels: list[int] = []
    all_scores: list[float] = []
    for name in ("cnndm", "xsum"):
        sentences, windows, labels = [], [], []
        for line in (data / "qags" / f"mturk_{name}.jsonl").read_text().splitlines():
            row = json.loads(line)
            article = sentence_windows(_detokenize(row["article"]), max_windows=200)
            for s in row["summary_sentences"]:
                yes = sum(r["response"] == "yes" for r in s["responses"])
                sentences.append(_detokenize(s["sentence"]))
                windows.append(article)
                labels.append(1 if yes * 2 > len(s["responses"]) else 0)
        scores = max_over_windows(scorer, sentences, windows, 1)
        result[f"qags_{name}_auroc"] = round(auroc(labels, scores), 4)
        result[f"qags_{name}_bacc"] = round(balanced_accuracy(labels, scores, threshold_logit), 4)
        all_labels += labels
        all_scores += scores.tolist()
    result["qags_auroc"] = round(auroc(all_labels, all_scores), 4)
    result["qags_bacc"] = round(balanced_accuracy(all_labels, all_scores, threshold_logit), 4)
    return result


BEGIN_TEST = ("support-nli", "begin", "begin_test_wow.tsv.gz")


def begin(scorer: PairScorer, data: Path) -> dict[str, float]:
    """BEGIN's test split (Wizard of Wikipedia dialogue responses): is the response fully
    attributable to its knowledge snippet? AUROC of the supports head, response × the
    snippet's windows; balanced accuracy at probability 0.5."""
    import gzip

    path = data.joinpath(*BEGIN_TEST)
    if not path.exists():
        return {}
    responses, windows, labels = [], [], []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        for line in fh:
            row = dict(zip(header, line.rstrip("\n").split("\t"), strict=False))
            if row.get("response") and row.get("knowledge"):
                responses.append(row["response"])
                windows.append(sentence_windows(row["knowledge"]))
                labels.append(int(row.get("begin_label") == "Fully attributable"))
    scores = max_over_windows(scorer, responses, windows, 1)
    return {"begin_test_auroc": round(auroc(labels, scores), 4),
            "begin_test_bacc": round(balanced_accuracy(labels, scores, 0.0), 4),
            "begin_test_n": len(labels)}


def _detokenize(text: str) -> str:
    """QAGS text is tokenised: rejoin numbers (``3, 800`` -> ``3,800``), as
    bench/bench_verify_qags.py does."""
    return re.sub(r"(\d)([.,]) (\d)", r"\1\2\3", text)


def balanced_accuracy(labels: Sequence[int], scores: Sequence[float] | np.ndarray,
                      threshold: float) -> float:
    y = np.asarray(labels, dtype=bool)
    pred = np.asarray(scores) >= threshold
    tpr = (pred & y).sum() / max(1, y.sum())
    tnr = (~pred & ~y).sum() / max(1, (~y).sum())
    return float((tpr + tnr) / 2)
