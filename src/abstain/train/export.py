"""Export a checkpoint to ONNX (opset 17), quantize it to int8, check it against torch."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "reader-minilm-int8.onnx"
INT8_TOLERANCE = 0.5
"""Largest logit difference int8 may show against torch on the check pairs when shipping."""
CHECK_PAIRS = [
    ("When did the Normans conquer England?", "In 1066 the Normans conquered England."),
    ("Who wrote the report?", "The weather was mild in the spring of that year."),
    ("The drug lowers blood pressure.", "Patients on the drug had lower blood pressure."),
]


def export(checkpoint: Path, out: Path, *, ship: bool = False, max_length: int = 128) -> Path:
    """``reader-minilm-fp32.onnx`` and ``reader-minilm-int8.onnx`` in ``out``; the int8 path."""
    from abstain.train import fit

    model = fit.load_model(checkpoint)
    tok = fit.tokenizer(max_length)
    a, b = zip(*CHECK_PAIRS, strict=True)
    feeds = fit.collate(fit.encode(tok, a, b))
    outputs = ["logits", "span_logits"] if model.span is not None else ["logits"]
    return export_model(model, feeds, out, outputs=outputs, ship=ship)


def export_model(model: Any, feeds: dict[str, torch.Tensor], out: Path, *,
                 outputs: list[str] | None = None, ship: bool = False,
                 int8_tolerance: float | None = INT8_TOLERANCE,
                 metadata: dict[str, str] | None = None) -> Path:
    """Export ``model`` (CPU, eval mode) with ``feeds`` as the example and the check: the
    fp32 file must match torch to 1e-4, the int8 one to ``int8_tolerance`` logits (None: the
    difference is only printed; the caller measures the int8 file's quality itself). The int8
    path. ``metadata`` is written into both files (how abstain must read with the model)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    outputs = outputs or ["logits"]
    fp32 = out / "reader-minilm-fp32.onnx"
    with torch.no_grad():
        result = model(**feeds)
    reference = (result[0] if isinstance(result, tuple) else result).numpy()
    with warnings.catch_warnings():  # the TorchScript exporter, chosen on purpose, is "legacy"
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model, (feeds["input_ids"], feeds["attention_mask"], feeds["token_type_ids"]),
            str(fp32), input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=outputs, opset_version=17, dynamo=False,
            dynamic_axes={name: {0: "batch", 1: "sequence"} for name in
                          ("input_ids", "attention_mask", "token_type_ids", *outputs[1:])}
            | {"logits": {0: "batch"}})
    model.eval()  # the exporter can leave the module in training mode
    int8 = out / "reader-minilm-int8.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    if metadata:
        for path in (fp32, int8):
            mark(path, metadata)
    for path, tolerance in ((fp32, 1e-4), (int8, int8_tolerance)):
        got = _run(path, feeds)
        diff = float(np.abs(got - reference).max())
        print(f"{path.name}: max |logit - torch| = {diff:.2e} ({path.stat().st_size / 1e6:.1f} MB)")
        if tolerance is not None and diff > tolerance:
            raise SystemExit(f"{path.name} disagrees with torch by {diff}")
    if ship:
        shutil.copyfile(int8, SHIPPED)
        print(f"shipped {SHIPPED}")
    return int8


def mark(path: Path, metadata: dict[str, str]) -> None:
    """Write ``metadata`` into the ONNX file's properties (kept entries of other keys)."""
    import onnx

    model = onnx.load(str(path))
    kept = {p.key: p.value for p in model.metadata_props} | metadata
    onnx.helper.set_model_props(model, kept)
    onnx.save(model, str(path))


def _run(path: Path, feeds: dict[str, torch.Tensor]) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    result = session.run(["logits"], {k: v.numpy() for k, v in feeds.items()})[0]
    return np.asarray(result)
