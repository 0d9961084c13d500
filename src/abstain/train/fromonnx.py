"""Float weights of a shipped int8 reader, to fine-tune it further (v2 → v3).

Only the int8 ONNX file of a reader ships. :func:`export.export_model` exported a
:class:`minibert.Reader` with the TorchScript exporter and ``quantize_dynamic`` (per channel):
biases and LayerNorm parameters keep their torch names as fp32 initializers; each linear
weight is an int8 ``MatMulInteger`` input (``[in, out]``, a scale and zero point per output
column) named by the graph, found here from the node's output name
(``/encoder/layer.N/query/…``); embeddings are int8 ``Gather`` tables. Dequantized, they give
the model back to within int8 rounding.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

SHIPPED_V2 = Path(__file__).resolve().parents[1] / "data" / "reader-minilm-int8.onnx"

_LINEAR = {"query": "attention.self.query", "key": "attention.self.key",
           "value": "attention.self.value", "dense": "attention.output.dense",
           "dense_1": "intermediate.dense", "dense_2": "output.dense"}


def _dequantize(q: np.ndarray, scale: np.ndarray, zero: np.ndarray, axis: int) -> np.ndarray:
    shape = [1] * q.ndim
    shape[axis] = -1
    if scale.ndim == 0 or scale.size == 1:
        return (q.astype(np.float32) - zero.astype(np.float32)) * scale.astype(np.float32)
    return ((q.astype(np.float32) - zero.astype(np.float32).reshape(shape))
            * scale.astype(np.float32).reshape(shape))


def state_dict(path: Path) -> dict[str, np.ndarray]:
    """``minibert.Reader`` parameter names → float arrays, from an int8 reader file."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    out: dict[str, np.ndarray] = {}
    for name, value in inits.items():
        if value.dtype == np.float32 and not name.endswith("_scale") and "." in name \
                and not name.startswith("onnx::"):
            out[name] = value
    for suffix in ("word", "position", "token_type"):
        base = f"encoder.embeddings.{suffix}_embeddings.weight"
        if base + "_quantized" in inits:
            out[base] = _dequantize(inits[base + "_quantized"], inits[base + "_scale"],
                                    inits[base + "_zero_point"], axis=0)
        elif base in inits:
            out[base] = inits[base]
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        weight = node.input[1].removesuffix("_quantized")
        if weight == "head.weight":
            target = "head.weight"
        else:
            m = re.match(r"/encoder/layer\.(\d+)/(\w+)/MatMul", node.output[0])
            if not m or m.group(2) not in _LINEAR:
                raise ValueError(f"unexpected MatMulInteger {node.output[0]}")
            target = f"encoder.encoder.layer.{m.group(1)}.{_LINEAR[m.group(2)]}.weight"
        w = _dequantize(inits[weight + "_quantized"], inits[weight + "_scale"],
                        inits[weight + "_zero_point"], axis=1)
        out[target] = w.T.copy()
    return out


def reader(path: Path, seed: int = 0) -> object:
    """A ``minibert.Reader`` (torch, CPU, eval mode) holding the file's weights."""
    import torch

    from abstain.train import minibert

    weights = state_dict(path)
    heads = weights["head.weight"].shape[0]
    torch.manual_seed(seed)
    model = minibert.Reader(dict(minibert.MINILM_L6), heads=heads)
    current = model.state_dict()
    missing = sorted(set(current) - set(weights))
    if missing:
        raise ValueError(f"{path} lacks {missing[:5]}")
    model.load_state_dict({k: torch.from_numpy(np.array(weights[k], dtype=np.float32))
                           .reshape(current[k].shape) for k in current})
    return model.eval()


def init_checkpoint(onnx: Path, out: Path) -> Path:
    """A checkpoint folder (``loop``'s format, step 0) holding ``onnx``'s weights: training
    resumed from it starts from that model with a fresh schedule and optimizer."""
    import torch

    from abstain.train import minibert

    weights = state_dict(onnx)
    out.mkdir(parents=True, exist_ok=True)
    shard = {k: torch.from_numpy(np.array(v, dtype=np.float32)).to(torch.float16)
             for k, v in weights.items() if k != f"encoder.{minibert.WORDS}"}
    torch.save(shard, out / "checkpoint-0.pt")
    (out / "state.json").write_text(json.dumps(
        {"step": 0, "total": None, "seconds": 0.0, "losses": [], "shards": 1,
         "init": str(onnx)}, indent=2))
    return out


def pack_base(onnx: Path, out: Path) -> Path:
    """``out/base.npz`` holding the file's encoder (its word embeddings included): what a
    machine that has only this checkout needs to fine-tune that reader."""
    from abstain.train import minibert

    weights = {name.removeprefix("encoder."): value for name, value in state_dict(onnx).items()
               if name.startswith("encoder.")}
    return minibert.pack_weights(weights, dict(minibert.MINILM_L6), out)
