"""Cut a passage into the short sentence windows the reader scores.

The reader was trained on (question, sentence) pairs, so a passage is read
window by window and its score is the best window's. Training and inference
both use :func:`sentence_windows`, so what the model saw is what it reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from abstain.text import split_sentences

MIN_WORDS = 6
"""A sentence shorter than this is joined to the next one (headings, fragments)."""
MAX_WORDS = 70
"""A sentence longer than this is cut into pieces of this many words."""
MAX_WINDOWS = 24
"""At most this many windows are read per passage (the first ones)."""
CONTEXT_WORDS = 16
"""Words of page title and headings an in-context reader reads before a window, at most."""


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
        if len(words) < min_words or sentence.rstrip().endswith("?"):
            carry = group  # a question is read with its answer, an FAQ's after its question
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


def in_context(window: str, title: str, headings: Sequence[str] = ()) -> str:
    """``window`` as a reader trained in context reads it: after the page's title and the
    section's headings ("Title > Heading > Subheading | window"), so that a question naming
    the page, the product or the section is read against what names them. A heading that
    repeats the one before it is read once. Past :data:`CONTEXT_WORDS` words the middle
    headings go first (the title and the deepest heading stay), then the context is cut to
    that many words, the ``>`` between headings counted."""
    path: list[str] = []
    for part in (title, *headings):
        part = " ".join(part.split())
        if part and (not path or part.casefold() != path[-1].casefold()):
            path.append(part)
    while len(path) > 2 and len(" ".join(path).split()) > CONTEXT_WORDS:
        del path[1]
    context = " > ".join(path)
    words = context.split()
    if len(words) > CONTEXT_WORDS:
        context = " ".join(words[:CONTEXT_WORDS])
    return f"{context} | {window}" if context else window
