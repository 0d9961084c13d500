"""``python -m abstain.train`` — build pairs, fine-tune, export, measure.

Examples::

    python -m abstain.train fit --recipe full --out .data/reader/full
    python -m abstain.train export --checkpoint .data/reader/full/checkpoint-epoch2.pt
    python -m abstain.train all --recipe full --data-dir ../shared/data
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
    parser.add_argument("command", choices=["pairs", "fit", "export", "evaluate", "all"])
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
    args = parser.parse_args(argv)
    data = data_dir(args.data_dir)
    out = Path(args.out or f".data/reader/{args.recipe}")
    out.mkdir(parents=True, exist_ok=True)

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


if __name__ == "__main__":
    sys.exit(main())
