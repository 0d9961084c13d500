"""Training abstain's reading-level model (needs ``pip install 'abstain[train]'``).

``python -m abstain.train all --data-dir ../shared/data`` builds the pairs,
fine-tunes MiniLM-L6 as a two-head cross-encoder, exports it to int8 ONNX and
measures it on held-out articles. The stages, one module each::

    squad / scifact / perturb  -> pairs      (data: split by article, hard negatives)
    fit                        -> checkpoint (torch)
    export                     -> reader-minilm-int8.onnx (onnx + onnxruntime quantize)
    evaluate                   -> metrics.json (onnxruntime only)

The v2 recipes (``squad2-*``: SQuAD 2.0 train + SNLI, three heads) run a second path, built
to train on a lent GPU machine with nothing but torch (``scripts/device_train.sh``)::

    recipes                    -> what a v2 recipe builds and how it trains
    trainset                   -> trainset.npz.xz  (pairs, tokenized once; cache.py reads it)
    minibert                   -> base.npz + the encoder in plain torch
    loop                       -> checkpoint-*.pt (time budget, resume), validation AUROCs
    device                     -> prepare / train (+ int8 ONNX via export) / assemble

v3 (issue 21) adds documentation: ``python -m abstain.train docs`` builds question × window
pairs from public projects' docs, and the ``docs-cpu`` recipe fine-tunes the shipped model on
them with a share of the v2 data::

    docsource / docrst         -> pages of git snapshots (Markdown, HTML, reStructuredText)
    docquestions / docpairs    -> data/docpairs.jsonl.gz (questions, near misses, the split)
    fromonnx / v3              -> the shipped int8 weights as a starting checkpoint; the set

Training data is read from ``--data-dir`` (or ``$ABSTAIN_DATA_DIR``, default
``../shared/data``); it is never copied into the package.
"""

from __future__ import annotations

import os
from pathlib import Path

SEED = 13
ENV_DATA_DIR = "ABSTAIN_DATA_DIR"


def data_dir(explicit: str | Path | None = None) -> Path:
    """Where the public training and evaluation data lie."""
    raw = explicit or os.environ.get(ENV_DATA_DIR) or "../shared/data"
    path = Path(raw).expanduser().resolve()
    if not path.is_dir():
        raise SystemExit(f"data directory {path} does not exist; pass --data-dir or set "
                         f"{ENV_DATA_DIR}")
    return path
