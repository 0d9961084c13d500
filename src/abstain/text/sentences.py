"""Sentences: cleaning, splitting and truncating text.

One sentence splitter serves chunking, the extractive answerer, the reader's windows, the
verifier and the gate, so that "a sentence" means the same thing everywhere. Sentences come
from ``sentencex`` (Wikimedia's rule-based segmenter: it knows abbreviations and splits CJK
text after 。！？ without any whitespace), run per block, so paragraphs and list items never
run into each other.
"""

from __future__ import annotations

import re

import sentencex

_BLOCKS = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)|\n\s*[-=~^]{3,}\s*(?:\n|$)")
"""Blank lines, list items and the underline of a plain-text heading end a sentence."""
_WS = re.compile(r"[ \t\r\f\v]+")
_INNER_DOT = re.compile(r"(?<=\w)\.(?=\w)|(?<=\b[eE]\.[gG])\.|(?<=\b[iI]\.[eE])\.|(?<=\betc)\."
                        r"(?=\s+[a-z(])|(?<=\bvs)\.|(?<=\bcf)\.")
_MASK = "\ue000"
"""Stands in for a full stop inside a word (``module.Class``, ``v2.3.1``) while splitting."""
SENTENCE_LANGUAGE = "en"
"""sentencex's rules for English also end sentences at CJK full stops."""


def clean(text: str) -> str:
    """Collapse runs of spaces and strip control characters, keeping newlines."""
    text = "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())
    lines = [_WS.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(lines).strip()


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``; blank lines and list items always end one."""
    sentences: list[str] = []
    for block in _BLOCKS.split(text):
        if not block.strip():
            continue
        masked = _INNER_DOT.sub(_MASK, block)
        for sentence in sentencex.segment(SENTENCE_LANGUAGE, masked):
            sentence = sentence.strip().replace(_MASK, ".")
            if sentence:
                sentences.append(sentence)
    return sentences


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"
