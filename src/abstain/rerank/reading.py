"""The reading stage: does the evidence the answer would be built from answer the question?

The reader (:class:`~abstain.rerank.reader.OnnxReader`, *answers* head) reads the question
against a few sentence windows of the top kept chunks, in one batched call, and the best
window's probability is the question's *answerability*. It feeds the gate (check
``answerability``; a high one waives the word-level coverage checks, whose job it does
better) and the calibrated confidence (feature ``answerability``); the gate decides when
to read (:func:`abstain.gate.gate_with_reading`).

Only what the decision needs is read: the first :data:`READ_CHUNKS` kept chunks, and of their
windows the :data:`READ_WINDOWS` that share the most words with the question (the window
holding an answer nearly always shares some); so the cost is one ONNX call of at most six
short pairs, whatever the chunk size.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from abstain.align.checks import holds
from abstain.align.question import Focus
from abstain.embed import Embedder
from abstain.evidence import Evidence, ReadWindow, RowVerdict
from abstain.question import Question
from abstain.rerank import defaults, rows
from abstain.rerank.reader import Page, sigmoid
from abstain.rerank.windows import in_context, windowed_sentences
from abstain.text import english_rarity, stem, tokens

READ_CHUNKS = 3
"""Kept chunks read: the answer is built from the first few."""
READ_FROM = 5
"""The kept chunks the read ones are chosen from: the first :data:`READ_CHUNKS`, those with a
table row that holds every name the question asks about first (:func:`named_first`)."""
READ_WINDOWS = 6
"""Sentence windows read in all, chosen by the words they share with the question: about
10 ms each on two cores, and 6 read as well as 8 on the calibration set."""
ANSWERS_HEAD = 0


class PairLogits(Protocol):
    name: str

    def logits(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray: ...


def reads_in_context(reader: PairLogits) -> bool:
    """Whether ``reader`` reads a window after its page title and headings (an
    :class:`~abstain.rerank.reader.OnnxReader` whose file says so); plain windows otherwise."""
    return bool(getattr(reader, "in_context", False))


def as_read(reader: PairLogits, text: str, evidence: Evidence) -> str:
    """``text`` of ``evidence`` as ``reader`` reads it: in its page's context when the model
    was trained that way."""
    if not reads_in_context(reader):
        return text
    return in_context(text, *page(evidence))


def page(evidence: Evidence) -> Page:
    """The page title and heading path an in-context reader reads before ``evidence``'s
    windows."""
    return evidence.document.title, evidence.chunk.heading_path


@dataclass(frozen=True, slots=True)
class Reading:
    """What the reader found in the kept evidence."""

    answerability: float
    """P(the best window answers the question), 0–1."""
    chunk: int
    """Index (in the kept evidence) of the chunk holding that window."""
    window: str
    windows_read: int
    chunks_read: int
    ms: float
    model: str
    windows: tuple[tuple[int, ReadWindow], ...] = ()
    """Every window read, with the index of its chunk in the kept evidence."""
    by_columns: RowVerdict | None = None
    """The best window is a table row read by its columns (:mod:`abstain.rerank.rows`):
    its verdict, which set the probability in place of the reader's; None otherwise."""
    states_default: bool = False
    """The best window states the asked name's default (:mod:`abstain.rerank.defaults`),
    which raised the reader's probability to at least the row lookup's."""

    def annotate(self, evidence: Sequence[Evidence], *, best_first: bool = True
                 ) -> tuple[Evidence, ...]:
        """The evidence with each read chunk's windows attached; ``best_first``: the chunk
        holding the best window first (what the answer quotes and an LLM reads first) — after
        the curated answers, which stay first."""
        read: dict[int, list[ReadWindow]] = {}
        for chunk, window in self.windows:
            read.setdefault(chunk, []).append(window)
        out = [replace(ev, read=tuple(sorted(read.get(i, ()), key=lambda w: w.position)))
               for i, ev in enumerate(evidence)]
        if best_first and 0 <= self.chunk < len(out):
            best = out.pop(self.chunk)
            at = 0 if best.document.curated else next(
                (i for i, ev in enumerate(out) if not ev.document.curated), len(out))
            out.insert(at, best)
        return tuple(out)


def named_first(question: Question, evidence: Sequence[Evidence]) -> list[int]:
    """Indices of ``evidence``: those with a table row that holds every name the question
    asks about first ("Soylent Foods SA": its row before "Soylent Media Corp"'s), else in
    order (a page of prose may name what it answers about only in its title)."""
    names = [m for m in question.names if m.words]
    if not names:
        return list(range(len(evidence)))

    def has_the_row(ev: Evidence) -> bool:
        return any(line.startswith("- ") and rows.Row.parse(line) is not None
                   and all(holds(m, line) for m in names) for line in ev.text.splitlines())

    return sorted(range(len(evidence)), key=lambda i: not has_the_row(evidence[i]))


def read_evidence(reader: PairLogits, question: Question, evidence: Sequence[Evidence], *,
                  chunks: int = READ_CHUNKS, windows: int = READ_WINDOWS,
                  embedder: Embedder | None = None, focus: Focus | None = None
                  ) -> Reading | None:
    """The reading of the first ``chunks`` kept chunks; None when there is nothing to read.
    ``embedder``: a table row's columns are also read by meaning (:mod:`abstain.rerank.rows`).
    ``focus``: the question read against its workspace, which tells a stated default's case
    from another (:mod:`abstain.rerank.defaults`)."""
    started = time.perf_counter()
    order = named_first(question, evidence[:max(READ_FROM, chunks)])[:chunks]
    if not order or not question.text.strip():
        return None
    asked = {stem(t) for t in question.words}
    flags = question.letter_flags
    candidates: list[tuple[bool, int, int, int, int, str, tuple[str, ...]]] = []
    split = {c: windowed_sentences(evidence[c].text) for c in order}
    stated = defaults.read(question, [([text for text, _ in split[c]], evidence[c].chunk.section,
                                       _passage(evidence[c])) for c in order],
                           english_rarity if focus is None else focus.weight)
    for c, states in zip(order, stated, strict=True):
        for w, ((text, sentences), default) in enumerate(zip(split[c], states, strict=True)):
            shared = len(asked & {stem(t) for t in tokens(text)})
            named = sum(holds(f, text) for f in flags)  # "-l" is no word, and it is asked
            candidates.append((not default, -named, -shared, c, w, text, sentences))
    chosen = sorted(candidates, key=lambda item: item[:5])[:windows]
    logits = reader.logits([question.text] * len(chosen),
                           [as_read(reader, item[5], evidence[item[3]]) for item in chosen])
    read_rows = rows.read(question, [item[5] for item in chosen],
                          [sigmoid(float(score)) for score in logits[:, ANSWERS_HEAD]],
                          embedder=embedder,
                          contexts=[" ".join((t, *h)) for t, h in
                                    (page(evidence[item[3]]) for item in chosen)],
                          stated=[not item[0] for item in chosen])
    # a stated default of the asked name answers, unless a table row's columns say otherwise
    states = [not item[0] and found is None
              for item, (_, found) in zip(chosen, read_rows, strict=True)]
    read_rows = [(max(p, rows.P_ANSWERS), None) if default else (p, found)
                 for (p, found), default in zip(read_rows, states, strict=True)]
    best = int(np.argmax([p for p, _ in read_rows]))
    probability, verdict = read_rows[best]
    read_windows = tuple(
        (c, ReadWindow(text, sentences, round(p, 4), w, by_columns=found,
                       states_default=default))
        for (_, _, _, c, w, text, sentences), (p, found), default
        in zip(chosen, read_rows, states, strict=True))
    return Reading(answerability=round(probability, 4), chunk=chosen[best][3],
                   window=chosen[best][5], windows_read=len(chosen), chunks_read=len(order),
                   ms=round((time.perf_counter() - started) * 1000, 1), model=reader.name,
                   windows=read_windows, by_columns=verdict, states_default=states[best])


def _passage(evidence: Evidence) -> str:
    """The chunk with its page title, headings and file name: all that says which case it is
    about."""
    return " ".join((evidence.text, evidence.document.title, *evidence.chunk.heading_path,
                     evidence.document.source))
