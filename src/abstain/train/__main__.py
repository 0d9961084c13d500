"""``python -m abstain.train`` — build pairs, fine-tune, export, measure.

Examples::

    python -m abstain.train fit --recipe full --out .data/reader/full
    python -m abstain.train export --checkpoint .data/reader/full/checkpoint-epoch2.pt
    python -m abstain.train all --recipe full --data-dir ../shared/data
    python -m abstain.train all --recipe squad2-smoke      # v2: SQuAD 2.0 train, three heads
    python -m abstain.train fit --recipe squad2-cpu --out .data/reader/cpu   # again to resume
    python -m abstain.train docs --mirror /work/.mirror      # v3: documentation pairs

The v2 recipes (``squad2-*``) tokenize their pairs once into OUT/trainset.npz.xz and train
from it; ``fit`` goes on from OUT's checkpoint when there is one. For one GPU run, see
``scripts/device_train.sh``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from abstain.train import SEED, data_dir


def _threads(n: int) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", str(n))
    os.environ.setdefault("MKL_NUM_THREADS", str(n))
    import torch

    torch.set_num_threads(n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m abstain.train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["pairs", "fit", "export", "evaluate", "all", "docs"])
    parser.add_argument("--recipe", default="full")
    parser.add_argument("--data-dir", default=None, help="default: $ABSTAIN_DATA_DIR or "
                        "../shared/data")
    parser.add_argument("--out", default=None, help="default: .data/reader/RECIPE")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--eval-questions", type=int, default=0,
                        help="held-out questions measured after each epoch (0: none)")
    parser.add_argument("--checkpoint", default=None, help="for export: the .pt to export")
    parser.add_argument("--onnx", default=None, help="for evaluate: the .onnx to measure")
    parser.add_argument("--ship", action="store_true",
                        help="export: also copy the int8 file into src/abstain/data/")
    parser.add_argument("--mirror", default="/work/.mirror",
                        help="docs: the folder of git snapshots (OWNER+NAME/repo)")
    args = parser.parse_args(argv)
    if args.command == "docs":
        from abstain.train import docpairs

        target = Path(args.out or docpairs.DEFAULT_FILE)
        summary = docpairs.build(Path(args.mirror), target, args.seed)
        print(json.dumps(summary["counts"], indent=2))
        return 0
    data = data_dir(args.data_dir)
    out = Path(args.out or f".data/reader/{args.recipe}")
    out.mkdir(parents=True, exist_ok=True)
    from abstain.train import recipes

    if args.recipe in recipes.RECIPES:
        return _v2(args.command, args.recipe, data, out, args.seed, args.threads)

    if args.command in ("pairs", "fit", "all"):
        from dataclasses import replace

        from abstain.train import pairs

        recipe = pairs.RECIPES[args.recipe]
        if args.epochs:
            recipe = replace(recipe, epochs=args.epochs)
        built = pairs.build(data, recipe, args.seed)
        (out / "pairs-summary.json").write_text(json.dumps(
            {"recipe": recipe.name, "n": len(built), "kinds": pairs.summary(built)}, indent=2))
        print(f"{len(built)} pairs: {pairs.summary(built)}", flush=True)
        if args.command == "pairs":
            return 0
        _threads(args.threads)
        from abstain.train import fit

        on_epoch = None
        if args.eval_questions:
            from abstain.train import evaluate

            questions = evaluate.heldout_questions(data, args.eval_questions)
            tok = fit.tokenizer(recipe.max_length)

            def on_epoch(model: fit.ReaderModel, epoch: int) -> dict[str, float]:
                return evaluate.near_miss(
                    lambda a, b, h: fit.predict(model, tok, a, b, h), questions)

        history = fit.train(built, recipe, out, args.seed, on_epoch,
                            log=lambda s: print(s, flush=True))
        (out / "history.json").write_text(json.dumps(history, indent=2))
        args.checkpoint = str(out / f"checkpoint-epoch{recipe.epochs}.pt")
    if args.command in ("export", "all"):
        _threads(args.threads)
        from abstain.train import export

        checkpoint = Path(args.checkpoint or out / "checkpoint-epoch2.pt")
        args.onnx = str(export.export(checkpoint, out, ship=args.ship))
    if args.command in ("evaluate", "all"):
        from abstain.train import report

        metrics = report.measure(data, Path(args.onnx or out / "reader-minilm-int8.onnx"),
                                 threads=args.threads)
        (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
        print(json.dumps(metrics, indent=2))
    return 0


def _v2(command: str, recipe: str, data: Path, out: Path, seed: int, threads: int) -> int:
    """pairs: build the tokenized set; fit / all: build it unless there, then train (going on
    from OUT's checkpoint), export int8 ONNX and validate; export / evaluate: part of fit."""
    from abstain.train import cache, device, fit, minibert, recipes, trainset

    docs = bool(recipes.RECIPES[recipe].extra.get("docs"))
    if not (out / cache.FILE).exists() or command == "pairs":
        if docs:
            from abstain.train import docpairs, v3

            meta = v3.write(data, docpairs.DEFAULT_FILE, recipes.RECIPES[recipe], seed, out)
        else:
            meta = trainset.write(data, recipes.RECIPES[recipe], seed, out)
        print(json.dumps({k: meta[k] for k in ("pairs", "val_pairs", "kinds", "bytes")},
                         indent=2), flush=True)
    if command == "pairs":
        return 0
    if command not in ("fit", "all"):
        raise SystemExit(f"{command}: v2 recipes export and validate within fit/all")
    if not (out / "base.npz").exists():
        minibert.pack(fit.base_model_dir(), out)
    _threads(threads)
    resume = out / "run" if (out / "run" / "state.json").exists() else None
    if resume is None and docs:  # the docs recipes start from the shipped reader model
        from abstain.train import fromonnx

        resume = fromonnx.init_checkpoint(fromonnx.SHIPPED_V2, out / "init")
    device.train(out, out / "run", device="auto", budget_s=None, resume=resume,
                 max_steps=None, save_optimizer=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
