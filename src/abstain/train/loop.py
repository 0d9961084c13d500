"""Train the three-head reader on a tokenized set (:mod:`abstain.train.cache`), on CUDA or CPU.

* Length-bucketed batches in a seeded order; bf16 autocast and fused AdamW on CUDA.
* A time budget: after a few timed steps the number of steps that fit is fixed and the
  learning rate decays linearly to zero at that step, so a run cut short still ends cooled
  (``Recipe.fit_schedule``); or each run stops at the budget and the next resumes (CPU).
* Checkpoints every ``checkpoint_every_s``: the weights that train, in fp16, split into files
  under 15 MiB (``checkpoint-0.pt`` …) and ``state.json`` (step, schedule, losses); written
  atomically, so a run killed at any moment leaves the last whole one.
* Resume from such a folder: same order of batches, continued at the saved step (with a fresh
  optimizer unless ``optimizer.pt`` lies beside it).
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from abstain.train import cache, minibert
from abstain.train.recipes import Recipe

SHARD_BYTES = 15 * 2**20
PROBE_FROM = 300
"""Steps before the timing probe: the first few hundred meet each batch shape for the first time
(kernel selection), several times slower than the rest (seen on an H100: 182 ms vs 18 ms)."""
PROBE_STEPS = 200
LISTWISE_KINDS = ("user", "user-window", "user-sibling", "user-mined")
"""The users' pairs (:mod:`abstain.train.userpairs`) that form a question's list: its answering
windows and the other windows of its pages and of other pages (named with a ``doc-`` prefix in a
documentation set, :mod:`abstain.train.v3`)."""
LISTWISE_WINDOWS = (2, 8)
"""Answering and other windows of one question read in one list (at most)."""


def question_groups(ts: cache.TrainSet) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each users' question of the training set with its windows, as (answering rows, other
    rows) of ``ts.train``: each (question, window) once (the mix repeats the users' pairs), and
    only questions with both."""
    raw = ts.meta["kinds"]  # a list of names, or (in a documentation set) "name:label" counts
    names = sorted({k.rsplit(":", 1)[0] for k in raw}) if isinstance(raw, dict) else list(raw)
    tags = [i for i, name in enumerate(names) if name.removeprefix("doc-") in LISTWISE_KINDS]
    table = ts.train
    rows = np.flatnonzero(np.isin(table.tag, tags) & (table.head == cache.ANSWERS))
    key = table.a[rows].astype(np.int64) << 32 | table.b[rows].astype(np.int64)
    _, first = np.unique(key, return_index=True)
    rows = rows[np.sort(first)]
    rows = rows[np.argsort(table.a[rows], kind="stable")]
    found = []
    for group in np.split(rows, np.flatnonzero(np.diff(table.a[rows])) + 1):
        positive = group[table.label[group] == 1]
        if len(positive) and len(positive) < len(group):
            found.append((positive, group[table.label[group] == 0]))
    return found


def _lists(groups: list[tuple[np.ndarray, np.ndarray]], count: int,
           rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """``count`` questions' lists: their rows and, per list, (start, answering, windows)."""
    rows: list[np.ndarray] = []
    spans = []
    start = 0
    for g in rng.choice(len(groups), size=min(count, len(groups)), replace=False):
        positive, negative = groups[int(g)]
        pos = rng.choice(positive, size=min(LISTWISE_WINDOWS[0], len(positive)), replace=False)
        neg = rng.choice(negative, size=min(LISTWISE_WINDOWS[1], len(negative)), replace=False)
        rows += [pos, neg]
        spans.append((start, len(pos), len(pos) + len(neg)))
        start += len(pos) + len(neg)
    return np.concatenate(rows), spans


def listwise_loss(logits: torch.Tensor, spans: list[tuple[int, int, int]]) -> torch.Tensor:
    """Mean over the lists of −log(softmax mass on the answering windows)."""
    return torch.stack([torch.logsumexp(logits[s:s + n], 0) - torch.logsumexp(logits[s:s + k], 0)
                        for s, k, n in spans]).mean()


def _save_checkpoint(model: minibert.Reader, out: Path, state: dict[str, Any],
                     optimizer: torch.optim.Optimizer | None) -> None:
    weights = {k: v.detach().to("cpu", torch.float16) for k, v in model.state_dict().items()
               if k != f"encoder.{minibert.WORDS}"}
    shards: list[dict[str, torch.Tensor]] = [{}]
    size = 0
    for k, v in weights.items():
        if size + v.numel() * 2 > SHARD_BYTES and shards[-1]:
            shards.append({})
            size = 0
        shards[-1][k] = v
        size += v.numel() * 2
    for i, shard in enumerate(shards):
        torch.save(shard, out / f".checkpoint-{i}.pt.tmp")
        os.replace(out / f".checkpoint-{i}.pt.tmp", out / f"checkpoint-{i}.pt")
    if optimizer is not None:
        torch.save(optimizer.state_dict(), out / ".optimizer.pt.tmp")
        os.replace(out / ".optimizer.pt.tmp", out / "optimizer.pt")
    (out / ".state.json.tmp").write_text(json.dumps(state | {"shards": len(shards)}, indent=2))
    os.replace(out / ".state.json.tmp", out / "state.json")


def load_checkpoint(model: minibert.Reader, folder: Path) -> dict[str, Any]:
    """Put a checkpoint folder's weights into ``model`` (base word embeddings kept); its state."""
    state: dict[str, Any] = json.loads((folder / "state.json").read_text())
    weights: dict[str, torch.Tensor] = {}
    for i in range(state["shards"]):
        weights.update(torch.load(folder / f"checkpoint-{i}.pt", map_location="cpu"))
    current = model.state_dict()
    model.load_state_dict({k: weights[k].float() if k in weights else v
                           for k, v in current.items()})
    return state


def train(ts: cache.TrainSet, recipe: Recipe, base: Path, out: Path, *, seed: int,
          device: str, resume: Path | None = None, log: Callable[[str], None] = print,
          save_optimizer: bool = False) -> tuple[minibert.Reader, dict[str, Any]]:
    """The trained model (on ``device``, eval mode) and the run's state."""
    random.seed(seed)
    np.random.seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    model = minibert.new_reader(base, seed)
    state: dict[str, Any] = {"step": 0, "total": None, "seconds": 0.0, "losses": []}
    if resume is not None:
        state.update(load_checkpoint(model, resume))
        log(f"resumed from {resume} at step {state['step']}")
    encoder = model.encoder
    encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    if recipe.freeze_layers:
        encoder.embeddings.requires_grad_(False)
        for layer in encoder.encoder.layer[:recipe.freeze_layers]:
            layer.requires_grad_(False)
    model.to(device).train()
    cuda = device.startswith("cuda")
    head = list(model.head.parameters())
    body = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("head")]
    optim = torch.optim.AdamW([{"params": body, "lr": recipe.lr},
                               {"params": head, "lr": recipe.lr * 20}], weight_decay=0.01,
                              fused=True if cuda else None)
    base_lrs = [g["lr"] for g in optim.param_groups]  # the recipe's, not a saved step's
    if resume is not None and (resume / "optimizer.pt").exists():
        optim.load_state_dict(torch.load(resume / "optimizer.pt", map_location=device))
    lengths = ts.lengths(ts.train, recipe.max_lengths())
    epochs = [cache.buckets(lengths, recipe.batch_size, random.Random(seed + e))
              for e in range(recipe.epochs)]
    order = [(e, b) for e, batches in enumerate(epochs) for b in batches]
    planned = len(order) if recipe.max_steps is None else min(len(order), recipe.max_steps)
    total: int = state["total"] or planned
    warmup = max(1, int(0.06 * total))
    heads = torch.from_numpy(ts.train.head.astype(np.int64))
    labels = torch.from_numpy(ts.train.label.astype(np.float32))
    loss_fn = nn.BCEWithLogitsLoss()
    groups = question_groups(ts) if recipe.listwise else []
    if recipe.listwise:
        log(f"listwise: {len(groups)} users' questions, {recipe.listwise_questions} a step, "
            f"weight {recipe.listwise}")
    list_rng = np.random.default_rng(seed + state["step"])
    started = time.perf_counter() - state["seconds"]
    last_save, probe_at = time.perf_counter(), None
    running = torch.zeros((), device=device)
    seen = 0
    step = state["step"]
    run_started = time.perf_counter()
    fitted = not recipe.fit_schedule or state["total"] is not None
    while step < total:
        epoch, batch = order[step]
        rows = np.asarray(batch)
        if groups:  # the lists ride in the same forward pass as the pointwise batch
            lrows, spans = _lists(groups, recipe.listwise_questions, list_rng)
            read = np.concatenate([rows, lrows])
        else:
            read = rows
        feeds = {k: torch.from_numpy(v).to(device, non_blocking=True)
                 for k, v in cache.collate(ts, ts.train, read, recipe.max_lengths()).items()}
        scale = (step / warmup if step < warmup
                 else max(0.0, (total - step) / max(1, total - warmup)))
        for group, lr in zip(optim.param_groups, base_lrs, strict=True):
            group["lr"] = lr * scale
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=cuda):
            logits = model(**feeds).float()
        index = torch.from_numpy(rows)
        picked = logits[:len(rows)].gather(1, heads[index].to(device).unsqueeze(1)).squeeze(1)
        loss = loss_fn(picked, labels[index].to(device))
        if groups:
            listed = logits[len(rows):, cache.ANSWERS]
            loss = loss + recipe.listwise * listwise_loss(listed, spans)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        running += loss.detach()
        seen += 1
        step += 1
        now = time.perf_counter()
        if not fitted and step - state["step"] == PROBE_FROM:
            probe_at = (step, now)
        if not fitted and probe_at and step - probe_at[0] == PROBE_STEPS:
            fitted = True
            per_step = (now - probe_at[1]) / PROBE_STEPS
            fits = step + int((recipe.time_budget_s - (now - started)) / per_step)
            total = max(step + 1, min(planned, fits))
            warmup = min(warmup, max(1, total // 10))
            state["total"] = total
            log(f"{per_step * 1000:.1f} ms/step: {total} of {planned} planned steps fit "
                f"{recipe.time_budget_s:.0f} s")
        if step % 100 == 0 or step == total:
            mean = float(running) / max(1, seen)
            running.zero_()
            seen = 0
            state["losses"].append([step, round(mean, 4)])
            log(f"epoch {epoch + 1} step {step}/{total} loss {mean:.4f} "
                f"{step * recipe.batch_size / (now - started):.0f} pairs/s")
        # a fitted schedule may overrun its estimate a little; a hard stop at +10 %
        out_of_time = now - run_started > recipe.time_budget_s * (1.1 if recipe.fit_schedule
                                                                  else 1.0)
        if now - last_save > recipe.checkpoint_every_s or step == total or out_of_time:
            state.update(step=step, total=total, seconds=round(now - started, 1),
                         epoch=epoch + 1)
            _save_checkpoint(model, out, state, optim if save_optimizer else None)
            last_save = now
        if out_of_time and step < total:
            log(f"time budget spent at step {step}/{total}: resume from {out}")
            break
    state["pairs_seen"] = step * recipe.batch_size
    return model.eval(), state


@torch.no_grad()
def logits(model: minibert.Reader, ts: cache.TrainSet, table: cache.PairTable,
           max_lengths: tuple[int, int, int], device: str, batch_size: int = 256) -> np.ndarray:
    """All head logits of every pair of ``table``, shape ``(n, heads)``."""
    model.eval()
    lengths = ts.lengths(table, max_lengths)
    order = np.argsort(lengths, kind="stable")
    out = np.zeros((len(table), model.head.out_features), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        rows = order[start:start + batch_size]
        feeds = {k: torch.from_numpy(v).to(device)
                 for k, v in cache.collate(ts, table, rows, max_lengths).items()}
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda")):
            out[rows] = model(**feeds).float().cpu().numpy()
    return out


def validate(ts: cache.TrainSet, all_logits: np.ndarray) -> dict[str, float]:
    """AUROC per head on the validation pairs: answers as the best window per question
    (answerable vs impossible, own paragraph), relevance and supports per pair."""
    val = ts.val
    picked = all_logits[np.arange(len(val)), val.head]
    result: dict[str, float] = {}
    grouped = val.tag >= 0
    if grouped.any():
        groups = val.tag[grouped]
        best = np.full(groups.max() + 1, -np.inf)
        np.maximum.at(best, groups, picked[grouped])
        label = np.zeros(groups.max() + 1, dtype=np.int64)
        label[groups] = val.label[grouped]
        result["val_near_miss_auroc"] = round(cache.auroc(label.tolist(), best), 4)
        result["val_questions"] = int(groups.max() + 1)
    for h, name in ((cache.RELEVANCE, "relevance"), (cache.SUPPORTS, "supports")):
        keep = (val.head == h) & ~grouped
        if keep.any() and 0 < val.label[keep].sum() < keep.sum():
            result[f"val_{name}_auroc"] = round(
                cache.auroc(val.label[keep].tolist(), picked[keep]), 4)
    if not math.isfinite(sum(result.values())):
        raise ValueError(f"validation is not finite: {result}")
    return result
