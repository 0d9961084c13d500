"""Reader v3: v2 fine-tuned on documentation pairs mixed with a share of its SQuAD 2.0 data.

``python -m abstain.train fit --recipe docs-cpu --out .data/reader/v3 --threads 2`` builds
the training set (the documentation pairs of :mod:`abstain.train.docpairs` plus the v2 recipe's
pairs from a sample of SQuAD 2.0 train articles), starts from the shipped reader model
(v2 when these recipes were written, then v3, v4 and v5; its int8 weights
dequantized, :mod:`abstain.train.fromonnx`) and trains within a time budget,
checkpointing as it goes; running it again goes on from the last checkpoint.

Validation keeps the two apart: near-miss AUROC on the SQuAD dev articles (as for v2) and on
the held-out documentation projects (each question read against every window of its own
passage, scored as its best window; answerable vs its near misses).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from abstain.train import cache, docpairs, recipes, trainset
from abstain.train.recipes import Recipe

VAL_DOC_QUESTIONS = 500
"""Answerable held-out documentation questions validated (with all their near misses)."""
VAL_WINDOWS = 8
"""Windows of its own passage each validation question is read against."""


def build(data: Path, docs_file: Path, recipe: Recipe, seed: int
          ) -> tuple[list[trainset.Row], list[trainset.Row], dict[str, Any]]:
    """Training rows (documentation + SQuAD/SNLI), validation rows (SQuAD groups first,
    then documentation groups, named ``doc:…``) and a summary."""
    rows, val, summary = trainset.build(data, recipe, seed)
    doc = docpairs.load(docs_file)
    repeat = max(1, int(recipe.extra.get("docs", 1)))  # docs-gpu: each pair three times
    rng = random.Random(seed)
    train_doc = [_row(r) for r in _balance_defaults(
        [r for r in doc if r["split"] == "train"], recipe.extra.get("no_default_per_default"),
        rng)] * repeat
    positives = sorted({r["group"] for r in doc if r["split"] == "val" and r["label"] == 1})
    keep = set(rng.sample(positives, min(VAL_DOC_QUESTIONS, len(positives))))
    seen: Counter[str] = Counter()
    val_doc = []
    for r in doc:
        if r["split"] != "val" or not any(r["group"].startswith(g) and
                                          r["group"][len(g):len(g) + 1] in ("", "n")
                                          for g in _prefixes(r["group"], keep)):
            continue
        if seen[r["group"]] >= VAL_WINDOWS:
            continue
        seen[r["group"]] += 1
        val_doc.append((r["a"], r["b"], r["head"], r["label"], "doc:" + r["group"]))
    share = float(recipe.extra.get("docs_share", 1.0))  # docs-users-cpu: a sample of them
    if share < 1.0:
        train_doc = rng.sample(train_doc, int(share * len(train_doc)))
    train_users: list[trainset.Row] = []
    if recipe.extra.get("users"):  # users' questions of real docs (abstain.train.userpairs)
        from abstain.train import userpairs

        user_rows, users_summary = userpairs.build(context=recipe.in_context)
        seen_share = recipe.extra.get("users_seen_share")  # fine-tuning the shipped reader
        if seen_share is not None:
            user_rows = userpairs.thin_seen(user_rows, float(seen_share), rng)
        train_users = [_row(r) for r in user_rows] * int(recipe.extra["users"])
        summary = summary | {"user_sets": users_summary["sets"]}
    squad_groups = len({r[4] for r in val if r[4]})
    rows = rows + train_doc + train_users
    rng.shuffle(rows)
    summary = summary | {
        "pairs": len(rows), "doc_pairs": len(train_doc), "user_pairs": len(train_users),
        "squad_val_groups": squad_groups,
        "doc_val_groups": len(seen), "val_pairs": len(val) + len(val_doc),
        "kinds": dict(sorted(Counter(f"{r[4]}:{r[3]}" for r in rows).items()))}
    return rows, val + val_doc, summary


def _balance_defaults(doc: list[dict[str, Any]], per_default: float | None,
                      rng: random.Random) -> list[dict[str, Any]]:
    """The templated pairs with at most ``per_default`` "what is the default of X?" near
    misses (``nm-no-default``) per question that does state a default or its values: left
    alone, they outnumber those answerable ones 5.9 to 1 (1,523 to 258), and a reader learns
    that a question about a default is unanswered."""
    if per_default is None:
        return doc
    stated = sum(1 for r in doc if r["label"] == 1 and r["kind"] in ("default", "values"))
    misses = [i for i, r in enumerate(doc) if r["kind"] == "nm-no-default"]
    drop = set(misses) - set(rng.sample(misses, min(len(misses), int(per_default * stated))))
    return [r for i, r in enumerate(doc) if i not in drop]


def _row(pair: dict[str, Any]) -> trainset.Row:
    """A documentation pair (docpairs' or userpairs' JSON row) as a training row."""
    return pair["a"], pair["b"], pair["head"], pair["label"], "doc-" + pair["kind"]


def _prefixes(group: str, keep: set[str]) -> list[str]:
    """The kept question a group belongs to (its own name, or the name its near miss
    extends: ``repo#12`` and ``repo#12nm-swap``)."""
    base = group.split("nm-", 1)[0]
    return [base] if base in keep else []


def write(data: Path, docs_file: Path, recipe: Recipe, seed: int, out: Path) -> dict[str, Any]:
    rows, val, summary = build(data, docs_file, recipe, seed)
    return trainset.write_rows(rows, val, summary, recipe, seed, out)


def split_auroc(ts: cache.TrainSet, logits: np.ndarray) -> dict[str, float]:
    """Near-miss AUROC (best window per question) for the SQuAD and documentation groups."""
    val = ts.val
    picked = logits[np.arange(len(val)), val.head]
    grouped = val.tag >= 0
    groups = val.tag[grouped]
    best = np.full(groups.max() + 1, -np.inf)
    np.maximum.at(best, groups, picked[grouped])
    label = np.zeros(groups.max() + 1, dtype=np.int64)
    label[groups] = val.label[grouped]
    cut = int(ts.meta.get("squad_val_groups", 0))
    out = {"squad_near_miss_auroc": round(cache.auroc(label[:cut], best[:cut]), 4),
           "docs_near_miss_auroc": round(cache.auroc(label[cut:], best[cut:]), 4),
           "squad_groups": cut, "docs_groups": int(len(best) - cut)}
    return out


def measure(onnx: Path, folder: Path, threads: int = 2) -> dict[str, float]:
    """:func:`split_auroc` of an int8 reader file over ``folder``'s validation set."""
    import onnxruntime as ort

    ts = cache.load(folder / cache.FILE)
    recipe = recipes.from_dict(ts.meta["recipe"])
    lengths = recipe.max_lengths()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(onnx), sess_options=options,
                                   providers=["CPUExecutionProvider"])
    order = np.argsort(ts.lengths(ts.val, lengths), kind="stable")
    out = np.zeros((len(ts.val), 3), dtype=np.float32)
    for start in range(0, len(order), 64):
        rows = order[start:start + 64]
        result = session.run(["logits"], cache.collate(ts, ts.val, rows, lengths))[0]
        out[rows, :result.shape[1]] = result
    return split_auroc(ts, out)
