"""Small text helpers shared by chunking, the extractive answerer and the verifier."""

from __future__ import annotations

import re

_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "approx.", "cf.", "no.", "fig.", "mr.", "dr.")
_SENTENCE_END = re.compile(
    r"(?<=[.!?。！？])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9`*_\u00C0-\u024F\u4e00-\u9fff])"
)
_WS = re.compile(r"[ \t\r\f\v]+")


def clean(text: str) -> str:
    """Collapse runs of spaces and strip control characters, keeping newlines."""
    text = "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())
    lines = [_WS.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(lines).strip()


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; list items and lines stay whole.

    A regex splitter: good enough for documentation prose; it keeps common
    abbreviations and version numbers (v2.3.1) intact.
    """
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)", text):
        block = block.strip()
        if not block:
            continue
        parts = _SENTENCE_END.split(block)
        buffer = ""
        for part in parts:
            buffer = f"{buffer} {part}".strip() if buffer else part
            if buffer.lower().endswith(_ABBREVIATIONS):
                continue
            sentences.append(buffer)
            buffer = ""
        if buffer:
            sentences.append(buffer)
    return sentences


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"
