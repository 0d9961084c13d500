"""Model-level measurements of an exported ONNX reader (onnxruntime only, no torch)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from abstain.rerank.reader import OnnxReader
from abstain.train import evaluate


def measure(data: Path, onnx_path: Path, *, threads: int = 2,
            limit: int | None = None) -> dict[str, Any]:
    reader = OnnxReader(onnx_path, threads=threads)
    questions = evaluate.heldout_questions(data, limit)
    started = time.perf_counter()
    metrics: dict[str, Any] = {"model": onnx_path.name,
                               "size_mb": round(onnx_path.stat().st_size / 1e6, 1)}
    metrics.update(evaluate.near_miss(reader.pair_logits, questions))
    if (data / "qags").is_dir():
        metrics.update(evaluate.qags(reader.pair_logits, data))
    metrics.update(evaluate.begin(reader.pair_logits, data))
    metrics["seconds"] = round(time.perf_counter() - started, 1)
    return metrics
