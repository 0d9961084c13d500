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
    return [window for window, _ in windowed_sentences(
        text, min_words=min_words, max_words=max_words, max_windows=max_windows)]


def windowed_sentences(text: str, *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS,
                       max_windows: int = MAX_WINDOWS) -> list[tuple[str, tuple[str, ...]]]:
    """Each window of :func:`sentence_windows` with the sentences of ``text`` it was made
    from, as they stand in the text (a long sentence cut into several windows is the one
    sentence of each): what an answer quotes when it quotes a window."""
    out: list[tuple[str, tuple[str, ...]]] = []
    carry: list[str] = []
    for sentence in split_sentences(text):
        group = [*carry, sentence]
        words = " ".join(group).split()
        if len(words) < min_words:
            carry = group
            continue
        carry = []
        for start in range(0, len(words), max_words):
            out.append((" ".join(words[start:start + max_words]), tuple(group)))
    if carry:
        rest = " ".join(carry).strip()
        if out and len(rest.split()) < min_words:
            window, last = out[-1]
            out[-1] = (f"{window} {rest}", (*last, *carry))
        else:
            out.append((rest, tuple(carry)))
    if not out:
        out = [(" ".join(text.split()) or " ", (text,))]
    return out[:max_windows]
