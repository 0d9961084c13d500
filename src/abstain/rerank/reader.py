"""abstain's own reading-level model: MiniLM-L6 cross-encoder, int8 ONNX, two heads
(three from the v2 recipes).

Head 0 (*answers*): does this window answer the question? Head 1 (*supports*):
does this window state what the sentence claims? Head 2 (*relevance*, v2 models only): is the
passage about what is asked? A passage is read as sentence
windows (:mod:`abstain.rerank.windows`) and scores as its best window.
Runs with onnxruntime + tokenizers only; the tokenizer is all-MiniLM-L6-v2's.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from abstain.errors import ModelError
from abstain.rerank.modelfile import IN_CONTEXT, READS_KEY
from abstain.rerank.windows import MAX_WINDOWS, in_context, sentence_windows

Page = tuple[str, tuple[str, ...]]
"""A text's page title and heading path, what a model trained in context reads first."""
MODEL_NAME = "reader-minilm-int8"
MAX_LENGTH = 128
"""Tokens of a (question or claim, sentence window) pair, as trained."""
PASSAGE_LENGTH = 192
"""Tokens of a (question, passage) pair for the relevance head, as trained."""
ANSWERS, SUPPORTS, RELEVANCE = 0, 1, 2


def model_file() -> Path:
    path = Path(str(resources.files("abstain").joinpath("data", f"{MODEL_NAME}.onnx")))
    if not path.exists():
        raise ModelError(f"{path} is missing; reinstall abstain")
    return path


class OnnxReader:
    """Scores (question, passage) pairs with the shipped int8 model."""

    name = MODEL_NAME

    def __init__(self, path: str | Path | None = None, *, threads: int | None = None,
                 batch_size: int = 32, max_length: int = MAX_LENGTH,
                 max_windows: int = MAX_WINDOWS) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from abstain.embed.minilm import tokenizer_file

        self.batch_size = batch_size
        self.max_windows = max_windows
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file()))
        self._tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
        self._tokenizer.no_padding()
        self._passage_tokenizer = Tokenizer.from_file(str(tokenizer_file()))
        self._passage_tokenizer.enable_truncation(max_length=PASSAGE_LENGTH,
                                                  strategy="longest_first")
        self._passage_tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        # Threads that spin after a run steal the two cores from the next model's run
        # (embedder, then reader): measured, a reading took 95 ms after an embedding, 51 alone.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(path or model_file()), sess_options=options,
                                                 providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError(f"cannot load reader model {path or model_file()}: {exc}") from exc
        metadata = self._session.get_modelmeta().custom_metadata_map
        self.in_context = metadata.get(READS_KEY) == IN_CONTEXT
        """The model reads a window after its page title and headings
        (:func:`abstain.rerank.windows.in_context`), as it was trained."""
        self._lock = threading.Lock()

    # -- pairs ---------------------------------------------------------------
    def logits(self, a: Sequence[str], b: Sequence[str], *, passages: bool = False
               ) -> np.ndarray:
        """Raw logits, shape ``(len(a), heads)``: column 0 answers, column 1 supports, and
        column 2 relevance for a model trained with that head (v2 recipes).

        Pairs are tokenised together (``passages``: up to 192 tokens, the passage cut, as the
        relevance head was trained), sorted by length and run in batches padded to their
        longest pair."""
        if len(a) != len(b):
            raise ValueError("a and b differ in length")
        out = np.zeros((len(a), 2), dtype=np.float32)
        if not a:
            return out
        tokenizer = self._passage_tokenizer if passages else self._tokenizer
        encodings = tokenizer.encode_batch(
            [(x or " ", y or " ") for x, y in zip(a, b, strict=True)])
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            width = max(len(encodings[i].ids) for i in idx)
            feeds: dict[str, Any] = {
                name: np.zeros((len(idx), width), dtype=np.int64)
                for name in ("input_ids", "attention_mask", "token_type_ids")}
            for row, i in enumerate(idx):
                enc = encodings[i]
                n = len(enc.ids)
                feeds["input_ids"][row, :n] = enc.ids
                feeds["token_type_ids"][row, :n] = enc.type_ids
                feeds["attention_mask"][row, :n] = 1
            with self._lock:
                result = self._session.run(["logits"], feeds)[0]
            if out.shape[1] != result.shape[1]:
                out = np.zeros((len(a), result.shape[1]), dtype=np.float32)
            out[idx] = result
        return out

    def pair_logits(self, a: Sequence[str], b: Sequence[str], head: int) -> np.ndarray:
        return self.logits(a, b)[:, head]

    # -- passages --------------------------------------------------------------
    def best_window(self, query: str, texts: Sequence[str], head: int,
                    pages: Sequence[Page] | None = None) -> list[float]:
        """Per text, the probability of its best window under ``head``; with ``pages`` (each
        text's page title and headings) and a model trained in context, each window is read
        after them, as in training."""
        windows = [sentence_windows(t, max_windows=self.max_windows) for t in texts]
        if pages is not None and self.in_context:
            windows = [[in_context(w, *page) for w in ws]
                       for ws, page in zip(windows, pages, strict=True)]
        flat = [w for ws in windows for w in ws]
        logits = self.pair_logits([query] * len(flat), flat, head)
        scores, at = [], 0
        for ws in windows:
            scores.append(sigmoid(float(logits[at:at + len(ws)].max())))
            at += len(ws)
        return scores

    def score(self, question: str, texts: Sequence[str],
              pages: Sequence[Page] | None = None) -> list[float]:
        """:class:`~abstain.rerank.Reranker`: how well each text answers the question (read in
        its page when ``pages`` are given and the model was trained so)."""
        return self.best_window(question, texts, ANSWERS, pages) if texts else []

    def relevance(self, question: str, texts: Sequence[str]) -> list[float]:
        """Per text, P(it is about what the question asks): the relevance head over the
        question and the passage's first 192 tokens (v2 models; the answers head otherwise)."""
        if not texts:
            return []
        logits = self.logits([question] * len(texts), list(texts), passages=True)
        head = RELEVANCE if logits.shape[1] > RELEVANCE else ANSWERS
        return [sigmoid(float(x)) for x in logits[:, head]]

    def support(self, sentence: str, texts: Sequence[str]) -> float:
        """How well the best window of all ``texts`` supports ``sentence`` (0–1)."""
        return max(self.best_window(sentence, texts, SUPPORTS), default=0.0)


def sigmoid(x: float) -> float:
    """A logit as a probability (clipped, so an extreme logit cannot overflow)."""
    return float(1.0 / (1.0 + np.exp(-np.clip(x, -60.0, 60.0))))


class ReaderRelevance:
    """:class:`~abstain.rerank.Reranker` over the reader's relevance head: is the passage about
    what the question asks? ``rerank`` fuses its order with the retrieval's."""

    name = f"{MODEL_NAME}:relevance"

    def __init__(self, reader: OnnxReader | None = None) -> None:
        self.reader = reader or shared_reader()

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        return self.reader.relevance(question, texts)


@functools.lru_cache(maxsize=1)
def shared_reader() -> OnnxReader:
    return OnnxReader()


class LazyReader:
    """abstain's own reader, loaded at its first reading: a pipeline that only ingests or
    searches (the reader is on by default) never loads the model."""

    name = MODEL_NAME

    @property
    def model(self) -> OnnxReader:
        return shared_reader()

    @property
    def in_context(self) -> bool:
        return bool(self.model.in_context)

    def logits(self, a: Sequence[str], b: Sequence[str], *, passages: bool = False
               ) -> np.ndarray:
        return self.model.logits(a, b, passages=passages)
