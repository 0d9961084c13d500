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


def cosine_anchor(data: Path, limit: int | None = None) -> dict[str, float]:
    """The retrieval-only anchor on the same questions: MiniLM cosine(question, own paragraph),
    and the best cosine over the paragraph's sentence windows."""
    import numpy as np

    from abstain.embed import embed_texts
    from abstain.embed.minilm import MiniLMEmbedder
    from abstain.rerank.windows import sentence_windows

    questions = evaluate.heldout_questions(data, limit)
    embedder = MiniLMEmbedder()
    contexts = sorted({q.context for q in questions})
    ctx_vec = dict(zip(contexts, embed_texts(embedder, contexts), strict=True))
    windows = {c: sentence_windows(c) for c in contexts}
    flat = [w for c in contexts for w in windows[c]]
    win_vec = dict(zip(flat, embed_texts(embedder, flat), strict=True))
    q_vec = embed_texts(embedder, [q.text for q in questions])
    labels = [0 if q.impossible else 1 for q in questions]
    para = [float(v @ ctx_vec[q.context]) for q, v in zip(questions, q_vec, strict=True)]
    best = [max(float(v @ win_vec[w]) for w in windows[q.context])
            for q, v in zip(questions, q_vec, strict=True)]
    return {"cosine_paragraph_auroc": round(evaluate.auroc(labels, para), 4),
            "cosine_best_window_auroc": round(evaluate.auroc(labels, best), 4),
            "n": len(questions), "_mean_len": float(np.mean([len(f) for f in flat]))}
