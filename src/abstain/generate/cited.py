"""Turn a model's cited prose into :class:`~abstain.generate.Sentence` objects.

The model is asked to end every claim with ``[n]`` markers. A marker belongs to
the sentence it follows, whether it stands before the full stop
(``… is 30 days [2].``) or after it (``… is 30 days. [2]``). ``[1, 3]``,
``[1][3]`` and ``[Source 2]`` are read as well; markdown bullets and emphasis
are dropped.

:class:`SentenceAssembler` does the same on a stream of text deltas: a sentence
is released only once the next one has begun, so markers written after its
full stop are never lost.
"""

from __future__ import annotations

import re

from abstain.records import Sentence
from abstain.text import split_sentences

_MARKER = re.compile(
    r"\[\s*(?:(?:source|doc|document|chunk|passage)\s*)?(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\s*\]",
    re.IGNORECASE)
_MARKERS = r"(?:\s*\[[^\[\]\n]{1,40}\])+"
# Markers written after the full stop move in front of it: "x. [1]" -> "x [1]."
_AFTER_STOP = re.compile(r"([.!?]+)(" + _MARKERS + r")")
# A marker followed by a new capitalised sentence without punctuation ends a sentence.
_RUN_ON = re.compile(r"(\])\s+(?=[\"'(]?[A-Z])")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)\*(?!\s)|`")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+", re.MULTILINE)
_PREFIX = re.compile(r"^\s*(?:answer|response)\s*:\s*", re.IGNORECASE)
# A complete sentence in a growing buffer: end punctuation, any markers, whitespace and
# the first character of the next sentence (so trailing markers are complete).
_STREAM_BOUNDARY = re.compile(
    r"[.!?]+[\"')]*(?:\s*\[[^\[\]\n]{1,40}\])*\s+(?=[\"'(]?[A-Z0-9\u00C0-\u024F])"
    r"|\n\s*\n")


def parse_cited(text: str) -> tuple[Sentence, ...]:
    """Sentences of ``text`` with the evidence numbers each one cites."""
    text = _PREFIX.sub("", _EMPHASIS.sub("", text).strip())
    text = _BULLET.sub("\n\n", text)
    text = _AFTER_STOP.sub(lambda m: f"{m.group(2)}{m.group(1)}", text)
    text = _RUN_ON.sub(r"\1.\n\n", text)
    out: list[Sentence] = []
    for raw in split_sentences(text):
        sentence = _one(raw)
        if sentence is not None:
            out.append(sentence)
    return tuple(out)


def _one(raw: str) -> Sentence | None:
    cites: dict[int, None] = {}
    for match in _MARKER.finditer(raw):
        for number in re.split(r"\s*[,;]\s*", match.group(1)):
            cites.setdefault(int(number), None)
    body = _MARKER.sub("", raw)
    body = re.sub(r"\s+([.!?,;:])", r"\1", " ".join(body.split())).strip()
    if body in ("", ".") or not re.search(r"\w", body):
        return None
    if body.endswith(".."):
        body = body.rstrip(".") + "."
    return Sentence(body, tuple(cites))


class SentenceAssembler:
    """Feed text deltas, get whole cited sentences back as soon as they are complete."""

    def __init__(self) -> None:
        self._buffer = ""

    def feed(self, delta: str) -> list[Sentence]:
        self._buffer += delta
        out: list[Sentence] = []
        while True:
            match = _STREAM_BOUNDARY.search(self._buffer)
            if match is None:
                return out
            piece, self._buffer = self._buffer[: match.end()], self._buffer[match.end():]
            out.extend(parse_cited(piece))

    def flush(self) -> list[Sentence]:
        piece, self._buffer = self._buffer, ""
        return list(parse_cited(piece))


def is_question(sentence: Sentence) -> bool:
    return sentence.text.rstrip().endswith("?")
