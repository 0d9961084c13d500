"""Cut a passage into the short sentence windows the reader scores.

The reader was trained on (question, sentence) pairs, so a passage is read
window by window and its score is the best window's. Training and inference
both use :func:`sentence_windows`, so what the model saw is what it reads.
"""

from __future__ import annotations

from abstain.text import split_sentences

MIN_WORDS = 6
"""A sentence shorter than this is joined to the next one (headings, fragments)."""
MAX_WORDS = 70
"""A sentence longer than this is cut into pieces of this many words."""
MAX_WINDOWS = 24
"""At most this many windows are read per passage (the first ones)."""


def sentence_windows(text: str, *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS,
                     max_windows: int = MAX_WINDOWS) -> list[str]:
    """Sentences of ``text``, short ones merged forward and long ones cut; never empty."""
    out: list[str] = []
    carry = ""
    for sentence in split_sentences(text):
        sentence = f"{carry} {sentence}".strip() if carry else sentence
        words = sentence.split()
        if len(words) < min_words:
            carry = sentence
            continue
        carry = ""
        for start in range(0, len(words), max_words):
            out.append(" ".join(words[start:start + max_words]))
    if carry:
        if out and len(carry.split()) < min_words:
            out[-1] = f"{out[-1]} {carry}"
        else:
            out.append(carry)
    if not out:
        out = [" ".join(text.split()) or " "]
    return out[:max_windows]
