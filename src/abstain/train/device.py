"""Train the v2 reader on a lent accelerator machine in one command (``scripts/device_train.sh``).

Such a machine has torch but no network and none of abstain's own dependencies; files reach it
as the git working tree plus a few ignored folders (64 MiB in all), and at most 8 files of
16 MiB each come back from ``$OUT``. So the work is cut in three::

    prepare   (here, CPU)     .data/device/trainset.npz.xz  pairs, tokenized once
                              .data/device/base.npz         MiniLM-L6 weights (int8 words, fp16)
    train     (the machine)   $OUT/checkpoint-*.pt, state.json   every minute, fp16
                              $OUT/reader-minilm-int8.onnx.part*  the int8 model, cut < 15 MiB
                              $OUT/metrics.json                   validation, torch and int8
    assemble  (here)          joins the parts, checks the sha256

``train`` needs torch, numpy, onnx and onnxruntime only (all on the machine's image) and
imports nothing that needs abstain's own dependencies.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from abstain.train import SEED

CARRY = ".data/device"
LIMIT_BYTES = 64 * 2**20
PART_BYTES = 15 * 2**20
INT8_QUESTIONS = 2000
"""Validation questions also measured through the int8 ONNX file (CPU) on the machine."""


def prepare(recipe_name: str, data: Path, out: Path, seed: int,
            reuse: bool = False, from_v2: bool = False) -> dict[str, Any]:
    """Build the carried folder; with ``reuse``, keep a training set already built for the
    same recipe and seed (only the base weights and the size check are redone). With
    ``from_v2`` no weights travel: ``train --from-v2`` rebuilds them from the shipped file."""
    from abstain.train import cache, fit, minibert, recipes, trainset

    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    recipe = recipes.RECIPES[recipe_name]
    meta: dict[str, Any] = {}
    if reuse and (out / cache.FILE).exists():
        meta = cache.load(out / cache.FILE).meta
        if not recipes.same_pairs(recipes.from_dict(meta["recipe"]), recipe) \
                or meta["seed"] != seed:
            meta = {}
    if not meta and recipe.extra.get("docs"):  # v3: documentation pairs in the mix
        from abstain.train import docpairs, v3

        meta = v3.write(data, docpairs.DEFAULT_FILE, recipe, seed, out)
    elif not meta:
        meta = trainset.write(data, recipe, seed, out)
    if from_v2:  # the machine rebuilds the weights from the file in the checkout
        (out / "base.npz").unlink(missing_ok=True)
    else:
        minibert.pack(fit.base_model_dir(), out)
    sizes = {p.name: p.stat().st_size for p in sorted(out.iterdir()) if p.is_file()}
    tree = tree_bytes(Path.cwd())
    report = {"recipe": recipe_name, "seed": seed, "pairs": meta["pairs"],
              "val_pairs": meta["val_pairs"], "kinds": meta["kinds"],
              "train_articles": meta["train_articles"], "tokens": meta["tokens"],
              "files": sizes, "carry_bytes": sum(sizes.values()), "tree_bytes": tree,
              "total_bytes": tree + sum(sizes.values()), "limit_bytes": LIMIT_BYTES,
              "seconds": round(time.perf_counter() - started, 1)}
    (out / "prepare.json").write_text(json.dumps(report, indent=2))
    return report


NOT_READ_THERE = "data/userdocs"
"""Tracked data the machine never reads (a prepared set carries its pairs): the folder to move
out of the working tree for the device call when the tree and the set are too large together."""


def tree_bytes(repo: Path, under: str = "") -> int:
    """Bytes of what travels besides the carried folder: tracked files and untracked ones that
    git does not ignore (those ``under`` a folder only, when given)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                             *([under] if under else [])],
                            cwd=repo, check=True, capture_output=True).stdout
    return sum((repo / name).stat().st_size for name in listed.decode().split("\0")
               if name and (repo / name).is_file())


def run_call(budget_s: float, *, from_v2: bool = False) -> str:
    """The device tool's call that trains the prepared set (``--from-v2`` when it carries no
    weights: the machine rebuilds them from the shipped reader file)."""
    command = "bash scripts/device_train.sh train" + (" --from-v2" if from_v2 else "")
    return json.dumps({"command": command, "carry": [CARRY],
                       "timeout_s": 600}) + f"   (training budget {budget_s:.0f} s)"


def train(folder: Path, out: Path, *, device: str, budget_s: float | None,
          resume: Path | None, max_steps: int | None,
          save_optimizer: bool = False, recipe_name: str | None = None,
          from_v2: bool = False, seed: int | None = None) -> dict[str, Any]:
    import dataclasses

    import numpy as np
    import torch

    from abstain.train import cache, export, loop, recipes

    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    ts = cache.load(folder / cache.FILE)
    recipe = recipes.for_set(ts.meta["recipe"])
    if recipe_name is not None:  # another recipe of the same pairs (e.g. a longer schedule)
        named = recipes.RECIPES[recipe_name]
        if not recipes.same_pairs(named, recipe):
            raise SystemExit(f"{recipe_name} builds other pairs than the set's {recipe.name}")
        recipe = named
    if budget_s is not None:
        recipe = dataclasses.replace(recipe, time_budget_s=budget_s)
    if max_steps is not None:
        recipe = dataclasses.replace(recipe, max_steps=max_steps)
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if from_v2:  # fine-tune the shipped reader: its weights from the file in the checkout
        from abstain.train import fromonnx

        fromonnx.pack_base(fromonnx.SHIPPED_V2, folder)
        resume = fromonnx.init_checkpoint(fromonnx.SHIPPED_V2, folder / "init")
    info = {"device": device, "torch_version": torch.__version__,
            "gpu": torch.cuda.get_device_name() if device.startswith("cuda") else None}
    print(json.dumps(info), flush=True)
    if device.startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = True
    seed = ts.meta["seed"] if seed is None else seed  # another seed: another run of the pairs
    model, state = loop.train(ts, recipe, folder / "base.npz", out, seed=seed,
                              device=device, resume=resume,
                              log=lambda s: print(s, flush=True),
                              save_optimizer=save_optimizer)
    metrics: dict[str, Any] = {"recipe": recipe.name, "seed": seed, **info, "steps": state["step"],
                               "planned_steps": state.get("total"),
                               "train_seconds": state["seconds"],
                               "pairs_seen": state["pairs_seen"],
                               "train_pairs": len(ts.train), "losses": state["losses"][-5:]}
    lengths = recipe.max_lengths()
    val_logits = loop.logits(model, ts, ts.val, lengths, device)
    metrics["torch"] = loop.validate(ts, val_logits)
    print(json.dumps({"torch": metrics["torch"]}), flush=True)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))

    model = model.to("cpu").float().eval()
    example = np.arange(min(8, len(ts.val)))
    feeds = {k: torch.from_numpy(v) for k, v in cache.collate(ts, ts.val, example,
                                                              lengths).items()}
    metadata = {}
    if recipe.in_context:  # abstain reads windows the way this model was trained to
        from abstain.rerank.modelfile import IN_CONTEXT, READS_KEY

        metadata[READS_KEY] = IN_CONTEXT
    int8 = export.export_model(model, feeds, out, int8_tolerance=None,  # judged below
                               metadata=metadata)
    (out / "reader-minilm-fp32.onnx").unlink()
    metrics["int8"] = _onnx_validation(int8, ts, lengths)
    metrics["onnx_bytes"] = int8.stat().st_size
    metrics["onnx_sha256"] = hashlib.sha256(int8.read_bytes()).hexdigest()
    metrics["onnx_parts"] = split(int8)
    metrics["seconds"] = round(time.perf_counter() - started, 1)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    print(json.dumps(metrics, indent=2), flush=True)
    return metrics


def _onnx_validation(path: Path, ts: Any, lengths: tuple[int, int, int]) -> dict[str, float]:
    """The int8 file on CPU over the first validation questions (all their windows) and the
    other validation pairs: same AUROCs as the torch ones, on that subset."""
    import dataclasses

    import numpy as np
    import onnxruntime as ort

    from abstain.train import cache, loop

    val = ts.val
    pair_level = np.flatnonzero(val.tag < 0)
    keep = (val.tag >= 0) & (val.tag < INT8_QUESTIONS)
    rng = np.random.default_rng(0)
    keep[rng.permutation(pair_level)[:INT8_QUESTIONS]] = True
    sub = cache.PairTable(*(getattr(val, f.name)[keep] for f in dataclasses.fields(val)))
    small = dataclasses.replace(ts, val=sub)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    order = np.argsort(ts.lengths(sub, lengths), kind="stable")
    out = np.zeros((len(sub), 3), dtype=np.float32)
    for start in range(0, len(order), 64):
        rows = order[start:start + 64]
        result = session.run(["logits"], cache.collate(ts, sub, rows, lengths))[0]
        out[rows] = result
    return loop.validate(small, out)


def split(path: Path) -> list[str]:
    """Cut ``path`` into ``path.part0`` … (each under 15 MiB, what comes back from a lent
    machine) and remove it; the part names."""
    data = path.read_bytes()
    names = []
    for i, start in enumerate(range(0, len(data), PART_BYTES)):
        part = path.with_name(f"{path.name}.part{i}")
        part.write_bytes(data[start:start + PART_BYTES])
        names.append(part.name)
    path.unlink()
    return names


def assemble(folder: Path, to: Path | None) -> Path:
    """Join ``reader-minilm-int8.onnx.part*`` of ``folder``; checked against metrics.json."""
    metrics = json.loads((folder / "metrics.json").read_text())
    data = b"".join((folder / name).read_bytes() for name in metrics["onnx_parts"])
    if hashlib.sha256(data).hexdigest() != metrics["onnx_sha256"]:
        raise SystemExit("the joined parts do not match metrics.json's sha256")
    target = to or folder.parent / "reader-minilm-int8.onnx"
    target.write_bytes(data)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m abstain.train.device", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["prepare", "train", "assemble"])
    parser.add_argument("--recipe", default=None,
                        help="prepare: the recipe (default squad2-full); train: another recipe "
                             "of the same pairs to train the prepared set with")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--seed", type=int, default=None,
                        help=f"prepare: the pairs' seed (default {SEED}); train: the run's "
                        "(batch order, head), default the set's")
    parser.add_argument("--cache", default=CARRY, help="the prepared folder")
    parser.add_argument("--out", default=None, help="train: default $OUT or .data/reader/device")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--budget", type=float, default=None, help="training seconds")
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--resume", default=None, help="a checkpoint folder to go on from")
    parser.add_argument("--save-optimizer", action="store_true",
                        help="train: keep optimizer.pt beside the checkpoint (~90 MB) so a "
                             "resumed run continues exactly; not for $OUT")
    parser.add_argument("--reuse", action="store_true",
                        help="prepare: keep a training set already built for this recipe")
    parser.add_argument("--from-v2", action="store_true",
                        help="prepare: carry no weights; train: start from the shipped reader "
                             "file (v5 since 2026-11-27, v4, v3 and v2 before; dequantized, "
                             "its words included) instead of base MiniLM; v5 was started "
                             "from v3's file put in its place for the call")
    parser.add_argument("--to", default=None, help="assemble: where the .onnx goes")
    args = parser.parse_args(argv)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if args.command == "prepare":
        from abstain.train import data_dir

        args.recipe = args.recipe or "squad2-full"
        report = prepare(args.recipe, data_dir(args.data_dir), Path(args.cache),
                         SEED if args.seed is None else args.seed,
                         reuse=args.reuse, from_v2=args.from_v2)
        print(json.dumps(report, indent=2))
        mib = report["total_bytes"] / 2**20
        print(f"\ncarry {report['carry_bytes'] / 2**20:.1f} MiB + working tree "
              f"{report['tree_bytes'] / 2**20:.1f} MiB = {mib:.1f} MiB of 64 MiB")
        if report["total_bytes"] > LIMIT_BYTES:
            spare = tree_bytes(Path.cwd(), NOT_READ_THERE)
            if report["total_bytes"] - spare > LIMIT_BYTES:
                print("too large to travel: ship less (a smaller recipe) or shrink the tree")
                return 1
            print(f"too large to travel with {NOT_READ_THERE}/ ({spare / 2**20:.1f} MiB), which "
                  f"the machine never reads: move it out of the working tree for the call "
                  f"(mv {NOT_READ_THERE} /tmp/) and back after it "
                  f"({(report['total_bytes'] - spare) / 2**20:.1f} MiB without it)")
        from abstain.train import recipes

        print("then call the device tool's run with:\n  "
              + run_call(recipes.RECIPES[args.recipe].time_budget_s, from_v2=args.from_v2))
        return 0
    if args.command == "train":
        out = Path(args.out or os.environ.get("OUT") or ".data/reader/device")
        train(Path(args.cache), out, device=args.device, budget_s=args.budget,
              resume=Path(args.resume) if args.resume else None, max_steps=args.max_steps,
              save_optimizer=args.save_optimizer, recipe_name=args.recipe,
              from_v2=args.from_v2, seed=args.seed)
        return 0
    print(assemble(Path(args.out or "."), Path(args.to) if args.to else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
