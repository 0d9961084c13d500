#!/usr/bin/env bash
# Train a reader on a lent accelerator machine in one command: v2 from base MiniLM (recipe
# squad2-full), or v3 from the shipped v2 (recipe docs-gpu, both steps with --from-v2).
#
#   here:        bash scripts/device_train.sh prepare [--recipe R] [--from-v2]  # .data/device/
#   the machine: bash scripts/device_train.sh train       # the device tool's run, carry .data/device
#   here again:  bash scripts/device_train.sh assemble DIR   # DIR: where $OUT's files came back
#
# The machine has no network: train installs nothing, and uses its own python3 (torch, numpy,
# onnx, onnxruntime are on its image) with this checkout's src/ on PYTHONPATH. See
# docs/EXPERIMENTS.md ("v2: training on SQuAD 2.0 train").
set -euo pipefail
cd "$(dirname "$0")/.."
step="${1:-}"
shift || true
case "$step" in
  prepare)
    py=.venv/bin/python
    [ -x "$py" ] || py=python3
    exec nice -n 19 "$py" -m abstain.train.device prepare --threads 1 "$@"
    ;;
  train)
    export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
    out="${OUT:-.data/reader/device}"
    mkdir -p "$out"
    python3 - <<'PY' || { echo "this machine's python3 lacks torch, numpy, onnx, onnxruntime or lzma: nothing can be installed here (no network)"; exit 3; }
import lzma, numpy, onnx, onnxruntime, torch
print("torch", torch.__version__, "cuda", torch.cuda.is_available(),
      torch.cuda.get_device_name() if torch.cuda.is_available() else "-",
      "onnxruntime", onnxruntime.__version__, "onnx", onnx.__version__, "numpy", numpy.__version__)
if not torch.cuda.is_available():
    raise SystemExit("no CUDA device: this step is for the lent GPU machine "
                     "(on a CPU: python -m abstain.train fit --recipe squad2-cpu)")
PY
    [ -f .data/device/trainset.npz.xz ] && { [ -f .data/device/base.npz ] || [[ " $* " == *" --from-v2 "* ]]; } || {
      echo ".data/device is missing: run 'bash scripts/device_train.sh prepare' here and carry it"
      exit 2; }
    set -o pipefail
    python3 -m abstain.train.device train --cache .data/device --out "$out" "$@" 2>&1 \
      | tee "$out/train.log"
    ;;
  assemble)
    py=.venv/bin/python
    [ -x "$py" ] || py=python3
    exec "$py" -m abstain.train.device assemble --out "$@"
    ;;
  *)
    sed -n '2,10p' "$0"
    exit 1
    ;;
esac
