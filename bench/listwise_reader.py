"""Fine-tune a reader to *choose* the answering window among its page's siblings: a listwise
term (softmax over one question's windows, the answering ones as targets) beside the usual
pointwise BCE, on the users' questions of ``data/userdocs`` (``train`` sets only).

An experiment of issue 21 (docs/EXPERIMENTS.md, "Choosing among siblings: a listwise
fine-tune on the CPU"), not a shipped recipe: the training loop of :mod:`abstain.train.loop`
batches pairs by length, where this needs a question's windows in one batch.

    python bench/listwise_reader.py groups /tmp/lw/groups.jsonl
    python bench/listwise_reader.py train /tmp/lw/groups.jsonl --out /tmp/lw/a --budget 1200
    python bench/probe_reader_windows.py /tmp/lw/a/reader-minilm-int8.onnx /tmp/lw/probe.json …

Needs the ``train`` extra (torch).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from abstain.train import userpairs


def _set_groups(folder: Path) -> list[dict[str, Any]]:
    """One group per question of a set: the windows that answer it and those that do not
    (with their kind), read in context as the shipped reader reads."""
    rows, _ = userpairs.set_rows(folder, context=True)
    groups: dict[str, dict[str, Any]] = {}
    for r in rows:
        g = groups.setdefault(r["a"], {"set": folder.name, "q": r["a"], "pos": [], "neg": []})
        if r["label"]:
            g["pos"].append(r["b"])
        else:
            g["neg"].append([r["b"], r["kind"]])
    return list(groups.values())


def groups(out: Path) -> None:
    with Pool(2) as pool:
        found = [g for gs in pool.map(_set_groups, userpairs.sets(role="train"), chunksize=4)
                 for g in gs]
    out.write_text("".join(json.dumps(g) + "\n" for g in found))
    print(f"{sum(1 for g in found if g['pos'])} answerable and "
          f"{sum(1 for g in found if not g['pos'])} near-miss questions -> {out}")


def _pick(g: dict[str, Any], rng: random.Random) -> tuple[list[str], list[str]]:
    """Up to two answering windows; the page's siblings, two windows of the answering
    passage and one other page's window as the alternatives."""
    pos = rng.sample(g["pos"], min(2, len(g["pos"])))
    by: dict[str, list[str]] = {}
    for text, kind in g["neg"]:
        by.setdefault(kind, []).append(text)
    same = by.get("user-window", [])
    neg = (by.get("user-sibling", [])[:6] + rng.sample(same, min(2, len(same)))
           + by.get("user-mined", [])[:1])
    return pos, neg[:9]


def train(args: argparse.Namespace) -> None:
    import torch
    from tokenizers import Tokenizer
    from torch import nn

    from abstain.embed.minilm import tokenizer_file
    from abstain.rerank.reader import MAX_LENGTH
    from abstain.train import fromonnx
    from abstain.train.export import SHIPPED, export_model

    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    found = [json.loads(line) for line in Path(args.groups).read_text().splitlines()]
    answerable = [g for g in found if g["pos"] and g["neg"]]
    near = [g for g in found if not g["pos"]]
    rng.shuffle(answerable)
    rng.shuffle(near)
    tok = Tokenizer.from_file(str(tokenizer_file()))
    tok.enable_truncation(max_length=MAX_LENGTH, strategy="longest_first")
    tok.no_padding()
    model: Any = fromonnx.reader(Path(args.start or SHIPPED))
    model.train()
    model.encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    head = list(model.head.parameters())
    body = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("head")]
    optim = torch.optim.AdamW([{"params": body, "lr": args.lr},
                               {"params": head, "lr": args.lr * 5}], weight_decay=0.01)
    base = [g["lr"] for g in optim.param_groups]
    total = int(args.budget / args.seconds_per_step)
    bce = nn.BCEWithLogitsLoss()

    def feeds(pairs: list[tuple[str, str]]) -> dict[str, Any]:
        enc = tok.encode_batch(pairs)
        width = max(len(e.ids) for e in enc)
        arrays = {k: np.zeros((len(enc), width), np.int64)
                  for k in ("input_ids", "attention_mask", "token_type_ids")}
        for i, e in enumerate(enc):
            arrays["input_ids"][i, :len(e.ids)] = e.ids
            arrays["attention_mask"][i, :len(e.ids)] = e.attention_mask
            arrays["token_type_ids"][i, :len(e.ids)] = e.type_ids
        return {k: torch.from_numpy(v) for k, v in arrays.items()}

    started, step, losses = time.time(), 0, []
    while step < total and time.time() - started < args.budget * 1.05:
        pairs: list[tuple[str, str]] = []
        labels: list[float] = []
        spans = []
        for k in range(args.questions):
            g = answerable[(step * args.questions + k) % len(answerable)]
            pos, neg = _pick(g, rng)
            spans.append((len(pairs), len(pos), len(pos) + len(neg)))
            pairs += [(g["q"], b) for b in pos + neg]
            labels += [1.0] * len(pos) + [0.0] * len(neg)
        g = near[step % len(near)]  # a near miss read against its closest windows: BCE only
        pairs += [(g["q"], text) for text, _ in g["neg"][:4]]
        labels += [0.0] * min(4, len(g["neg"]))
        scale = min(1.0, (step + 1) / 50) * max(0.0, (total - step) / total)
        for group, lr in zip(optim.param_groups, base, strict=True):
            group["lr"] = lr * scale
        logits = model(**feeds(pairs))[:, 0]
        pointwise = bce(logits, torch.tensor(labels))
        listwise = torch.stack([torch.logsumexp(logits[s:s + n], 0)
                                - torch.logsumexp(logits[s:s + npos], 0)
                                for s, npos, n in spans]).mean()
        loss = pointwise + args.listwise * listwise
        optim.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        losses.append((pointwise.item(), listwise.item()))
        step += 1
        if step % 50 == 0:
            mean = np.mean(losses[-50:], axis=0)
            print(f"step {step}/{total} bce {mean[0]:.4f} listwise {mean[1]:.4f} "
                  f"{time.time() - started:.0f} s", flush=True)
    print(f"{step} steps, {step * args.questions} questions, {time.time() - started:.0f} s")
    model.eval()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    example = feeds([("When did the Normans conquer England?",
                      "In 1066 the Normans conquered England.")])
    export_model(model, example, out, int8_tolerance=None,
                 metadata={"abstain.reads": "in-context"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("groups", help="each train set's questions with their windows")
    g.add_argument("out", type=Path)
    t = sub.add_parser("train", help="fine-tune on the groups, export int8 ONNX")
    t.add_argument("groups", type=Path)
    t.add_argument("--out", required=True)
    t.add_argument("--start", help="the int8 reader to start from [the shipped one]")
    t.add_argument("--budget", type=float, default=1200.0, help="seconds of training")
    t.add_argument("--seconds-per-step", type=float, default=1.8,
                   help="to plan the linear decay (1.8 on two CPU cores)")
    t.add_argument("--lr", type=float, default=2e-5)
    t.add_argument("--listwise", type=float, default=1.0, help="weight of the listwise term")
    t.add_argument("--questions", type=int, default=3, help="answerable questions per step")
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.command == "groups":
        groups(args.out)
    else:
        train(args)


if __name__ == "__main__":
    main()
