"""A BERT encoder in plain torch with the parameter names of ``transformers.BertModel``, and
the three-head reader on top of it (torch only: runs on a bare accelerator machine and exports
to the ONNX graph that :class:`abstain.rerank.reader.OnnxReader` reads).

Base weights travel as ``base.npz``: the word-embedding matrix in int8 with one scale per row
(it stays frozen, and the int8 ONNX quantizes it anyway), everything else in fp16 with its
high and low bytes stored apart (deflate then finds the repeated exponents): 30 MB in all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

HEADS = 3
DROPOUT = 0.1
"""BERT's hidden dropout (embeddings, after attention and feed-forward); attention
probabilities are not dropped (the fused attention kernels run as they are)."""
WORDS = "embeddings.word_embeddings.weight"
MINILM_L6 = {"vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6,
             "num_attention_heads": 12, "intermediate_size": 1536,
             "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12}


class _Embeddings(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        h = c["hidden_size"]
        self.word_embeddings = nn.Embedding(c["vocab_size"], h)
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], h)
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], h)
        self.LayerNorm = nn.LayerNorm(h, eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = (self.word_embeddings(input_ids) + self.position_embeddings(positions)
             + self.token_type_embeddings(token_type_ids))
        return self.dropout(self.LayerNorm(x))


class _Dense(nn.Module):
    """``dense`` + ``LayerNorm`` (names as in BertModel)."""

    def __init__(self, n_in: int, n_out: int, eps: float) -> None:
        super().__init__()
        self.dense = nn.Linear(n_in, n_out)
        self.LayerNorm = nn.LayerNorm(n_out, eps=eps)


class _Intermediate(nn.Module):
    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.dense = nn.Linear(n_in, n_out)


class _SelfAttention(nn.Module):
    def __init__(self, h: int) -> None:
        super().__init__()
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)


class _Attention(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        self.self = _SelfAttention(c["hidden_size"])
        self.output = _Dense(c["hidden_size"], c["hidden_size"], c["layer_norm_eps"])


class _Layer(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        self.heads = c["num_attention_heads"]
        self.dropout = nn.Dropout(DROPOUT)
        self.attention = _Attention(c)
        self.intermediate = _Intermediate(c["hidden_size"], c["intermediate_size"])
        self.output = _Dense(c["intermediate_size"], c["hidden_size"], c["layer_norm_eps"])

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, n, h = x.shape
        att = self.attention.self

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(b, n, self.heads, h // self.heads).transpose(1, 2)

        ctx = F.scaled_dot_product_attention(split(att.query(x)), split(att.key(x)),
                                             split(att.value(x)), attn_mask=bias)
        ctx = ctx.transpose(1, 2).reshape(b, n, h)
        out = self.attention.output
        x = out.LayerNorm(x + self.dropout(out.dense(ctx)))
        mid = F.gelu(self.intermediate.dense(x))
        return self.output.LayerNorm(x + self.dropout(self.output.dense(mid)))


class _LayerList(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        self.layer = nn.ModuleList(_Layer(c) for _ in range(c["num_hidden_layers"]))


class MiniBert(nn.Module):
    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__()
        self.config = dict(config)
        self.embeddings = _Embeddings(config)
        self.encoder = _LayerList(config)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> torch.Tensor:
        x: torch.Tensor = self.embeddings(input_ids, token_type_ids)
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -1e4
        for layer in self.encoder.layer:
            x = layer(x, bias)
        return x


class Reader(nn.Module):
    """Mean-pooled pair logits, one column per head (answers, supports, relevance)."""

    def __init__(self, config: dict[str, Any], heads: int = HEADS) -> None:
        super().__init__()
        self.encoder = MiniBert(config)
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(config["hidden_size"], heads)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.encoder(input_ids, attention_mask, token_type_ids)
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return self.head(self.dropout(pooled))


def pack(model_dir: Path, out: Path) -> Path:
    """``base.npz`` from a sentence-transformers/BERT folder (``model.safetensors``)."""
    from safetensors.numpy import load_file

    raw = load_file(str(model_dir / "model.safetensors"))
    weights = {key.removeprefix("bert.").removeprefix("0.auto_model."): value
               for key, value in raw.items()}
    config = json.loads((model_dir / "config.json").read_text())
    return pack_weights(weights, {k: config.get(k, v) for k, v in MINILM_L6.items()}, out)


def pack_weights(weights: dict[str, np.ndarray], config: dict[str, Any], out: Path) -> Path:
    """Write ``out/base.npz``: encoder weights by their ``BertModel`` names, words in int8."""
    arrays: dict[str, Any] = {}
    shapes: dict[str, list[int]] = {}
    for name, value in weights.items():
        if name.startswith(("pooler.", "embeddings.position_ids")):
            continue
        if name == WORDS:
            scale = np.abs(value).max(axis=1, keepdims=True) / 127.0
            arrays[WORDS + ".int8"] = np.round(value / scale).astype(np.int8)
            arrays[WORDS + ".scale"] = scale.astype(np.float32)
        else:
            half = np.asarray(value, dtype=np.float32).astype(np.float16)
            shapes[name] = list(half.shape)
            arrays[name + ".f16"] = half.ravel().view(np.uint8).reshape(-1, 2).T.copy()
    meta = config | {"shapes": shapes}
    arrays["config"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "base.npz"
    np.savez_compressed(path, **arrays)
    return path


def load_base(path: Path) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    with np.load(path) as z:
        config = json.loads(bytes(z["config"]).decode())
        shapes = config.pop("shapes")
        state = {name: torch.from_numpy(np.ascontiguousarray(z[name + ".f16"].T)
                                        .view(np.float16).reshape(shape).astype(np.float32))
                 for name, shape in shapes.items()}
        words = z[WORDS + ".int8"].astype(np.float32) * z[WORDS + ".scale"]
    state[WORDS] = torch.from_numpy(words)
    return config, state


def new_reader(base: Path, seed: int) -> Reader:
    config, state = load_base(base)
    torch.manual_seed(seed)
    model = Reader(config)
    missing, unexpected = model.encoder.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ValueError(f"base weights do not fit: missing {missing}, unexpected {unexpected}")
    nn.init.normal_(model.head.weight, std=0.02)
    nn.init.zeros_(model.head.bias)
    return model
