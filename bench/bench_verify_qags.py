"""Precision and recall of the sentences a verifier removes, on QAGS.

QAGS (Wang et al., ACL 2020) has summary sentences labelled by three annotators
as supported or not by their source article. For each sentence the verifier
scores ``check(sentence, [article])``; a sentence scored below the verifier's
threshold is one abstain would remove. A removed sentence is a true positive
when the 2-of-3 majority said it is *not* supported.

    .venv/bin/python bench/bench_verify_qags.py [--data ../shared/data/qags] [--json out.json]

Also reports AUROC of (1 - support) for "unsupported", and precision/recall over
a few thresholds, so a threshold can be chosen knowingly.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

from abstain.verify import LexicalVerifier, Verifier, support_threshold

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qags"
SWEEP = (0.3, 0.4, 0.5, 0.6, 0.7)


def detokenize(text: str) -> str:
    """Undo the data set's tokenised numbers: ``3, 800`` -> ``3,800``, ``98. 7`` -> ``98.7``."""
    return re.sub(r"(\d)([.,]) (\d)", r"\1\2\3", text)


def load(path: Path) -> list[tuple[str, str, bool]]:
    """(article, sentence, unsupported) triples; majority of three votes."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        item["article"] = detokenize(item["article"])
        for s in item["summary_sentences"]:
            noes = sum(r["response"] == "no" for r in s["responses"])
            rows.append((item["article"], s["sentence"], noes * 2 > len(s["responses"])))
    return rows


def auroc(scores: list[float], labels: list[bool]) -> float:
    """Probability that a random positive scores above a random negative (ties ½)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def removal_stats(support: list[float], labels: list[bool], threshold: float) -> dict[str, Any]:
    removed = [s < threshold for s in support]
    tp = sum(r and y for r, y in zip(removed, labels, strict=True))
    n_removed, n_bad = sum(removed), sum(labels)
    precision = tp / n_removed if n_removed else float("nan")
    recall = tp / n_bad if n_bad else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if tp else 0.0
    return {"threshold": threshold, "removed": n_removed, "true_positives": tp,
            "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}


def run(verifier: Verifier, data: Path) -> dict[str, Any]:
    results: dict[str, Any] = {}
    threshold = support_threshold(verifier)
    for name in ("cnndm", "xsum"):
        rows = load(data / f"mturk_{name}.jsonl")
        started = time.perf_counter()
        support = [verifier.check(sentence, [article]) for article, sentence, _ in rows]
        elapsed = time.perf_counter() - started
        labels = [bad for _, _, bad in rows]
        results[name] = {
            "sentences": len(rows), "unsupported": sum(labels),
            "base_rate": round(sum(labels) / len(rows), 3),
            "auroc": round(auroc([1 - s for s in support], labels), 3),
            "at_threshold": removal_stats(support, labels, threshold),
            "sweep": [removal_stats(support, labels, t) for t in SWEEP],
            "ms_per_sentence": round(1000 * elapsed / len(rows), 2),
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    results = run(LexicalVerifier(), args.data)
    for name, r in results.items():
        t = r["at_threshold"]
        print(f"{name}: {r['sentences']} sentences, {r['unsupported']} unsupported "
              f"(base rate {r['base_rate']}); AUROC {r['auroc']}; at threshold "
              f"{t['threshold']}: removed {t['removed']}, precision {t['precision']}, "
              f"recall {t['recall']}, F1 {t['f1']}; {r['ms_per_sentence']} ms/sentence")
        for s in r["sweep"]:
            print(f"    t={s['threshold']}: removed {s['removed']:4d}  P {s['precision']:.3f}  "
                  f"R {s['recall']:.3f}  F1 {s['f1']:.3f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
