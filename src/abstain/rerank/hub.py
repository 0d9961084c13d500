"""Hugging Face models behind the same seams, for users with internet (or a local copy).

* :class:`HubCrossEncoder` — a sequence-classification cross-encoder as a
  :class:`~abstain.rerank.Reranker` (e.g. ``cross-encoder/ms-marco-MiniLM-L-6-v2``);
* :class:`HubSupport` — an NLI or hallucination model as a sentence-support
  scorer (``check(sentence, evidence_texts)``), e.g. ``cross-encoder/nli-deberta-v3-small``
  or ``vectara/hallucination_evaluation_model`` (``trust_remote_code=True``).

torch and transformers are imported when a model is built, not before; without
them :class:`~abstain.errors.MissingDependency` names the extra to install.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from abstain.errors import ConfigError, MissingDependency, ModelError


def _import() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise MissingDependency(exc.name or "torch", "train") from exc
    return torch, transformers


def positive_class(labels: dict[int, str], positive: int | None, spec: str) -> int | None:
    """The output column read as P(positive): None for a single-logit model (sigmoid).

    ``positive`` when given; else the class whose label names entailment; else, for a
    two-class model, class 1 (the usual order: negative, positive). Any other model
    must say which class to read: guessing would score the wrong column silently.
    """
    if len(labels) <= 1:
        return None
    if positive is not None:
        if positive not in labels:
            raise ConfigError(f"{spec} has classes {sorted(labels)}; positive={positive} is "
                              "not one of them")
        return positive
    entail = [i for i, name in labels.items() if "entail" in name.lower()]
    if len(entail) == 1:
        return entail[0]
    if len(labels) == 2:
        return 1
    names = ", ".join(f"{i}={name}" for i, name in sorted(labels.items()))
    raise ConfigError(f"{spec} has {len(labels)} classes ({names}) and none is labelled "
                      "entailment: pass positive=<class index> to say which one means supported")


class _HubModel:
    def __init__(self, model_name_or_path: str | Path, *, max_length: int = 512,
                 batch_size: int = 16, trust_remote_code: bool = False,
                 device: str = "cpu", positive: int | None = None) -> None:
        self._torch, tf = _import()
        spec = str(model_name_or_path)
        try:
            self.tokenizer = tf.AutoTokenizer.from_pretrained(spec,
                                                              trust_remote_code=trust_remote_code)
            self.model = tf.AutoModelForSequenceClassification.from_pretrained(
                spec, trust_remote_code=trust_remote_code).to(device).eval()
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load {spec!r}: {exc}") from exc
        self.name = f"hub:{spec}"
        self.max_length = max_length
        self.batch_size = batch_size
        self.device = device
        labels = {int(k): str(v) for k, v in
                  (getattr(self.model.config, "id2label", None) or {}).items()}
        self.positive = positive_class(labels, positive, spec)

    def probabilities(self, a: Sequence[str], b: Sequence[str]) -> list[float]:
        """P(positive) per pair: sigmoid of a single logit, else the softmax of the class
        :func:`positive_class` chose."""
        out: list[float] = []
        torch = self._torch
        for start in range(0, len(a), self.batch_size):
            batch = self.tokenizer(list(a[start:start + self.batch_size]),
                                   list(b[start:start + self.batch_size]), padding=True,
                                   truncation=True, max_length=self.max_length,
                                   return_tensors="pt").to(self.device)
            with torch.no_grad():
                logits = self.model(**batch).logits.float()
            if logits.shape[-1] == 1:
                probs = torch.sigmoid(logits[:, 0])
            elif self.positive is None:
                raise ModelError(f"{self.name} returns {logits.shape[-1]} logits but its config "
                                 "names no classes: pass positive=<class index>")
            else:
                probs = torch.softmax(logits, dim=-1)[:, self.positive]
            out += [float(p) for p in probs]
        return out


class HubCrossEncoder(_HubModel):
    """A hub cross-encoder as a :class:`~abstain.rerank.Reranker`: pairs (question, text)."""

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        return self.probabilities([question] * len(texts), list(texts)) if texts else []


class HubSupport(_HubModel):
    """An NLI / consistency model as a support scorer: premise = evidence, hypothesis = sentence;
    the best evidence text's probability."""

    def check(self, sentence: str, evidence_texts: Sequence[str]) -> float:
        if not evidence_texts:
            return 0.0
        return max(self.probabilities(list(evidence_texts), [sentence] * len(evidence_texts)))
