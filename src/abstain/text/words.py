"""Words: folding, tokens, stems and the word lists every stage shares.

Imports nothing from abstain. ``fold`` and ``tokens`` split text the same way for the
keyword arms, the identifier finder, the gate, the extractive answerer and the verifier;
``stem`` is the Snowball English stemmer (``PyStemmer``, the C build of Snowball; the same
family as the Porter stemmer of the SQLite keyword arm), so "released" and "release" are
stem-equal and "QueuePool" is not "queue".
"""

from __future__ import annotations

import functools
import re
import unicodedata

import Stemmer

# Words of at least one letter or digit; keeps identifiers like ADR-0007 or v2.3.1 apart
# into their word parts, which is what both full-text engines index.
_WORD = re.compile(r"\w+", re.UNICODE)
_STEMMER = Stemmer.Stemmer("english")


def fold(text: str) -> str:
    """Lower-case and strip diacritics (Müller -> muller, café -> cafe)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokens(text: str) -> list[str]:
    """Folded word tokens, in order, duplicates kept."""
    return _WORD.findall(fold(text).replace("_", " "))


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball (English) stem of one folded word; digits and codes are kept as they are."""
    if not word.isalpha():
        return word
    return str(_STEMMER.stemWord(word))


def stems(text: str) -> list[str]:
    """Stemmed folded words of ``text``, in order (the unit every match uses)."""
    return list(_stems(text))


@functools.lru_cache(maxsize=4096)
def _stems(text: str) -> tuple[str, ...]:
    """Cached: the same chunk text is matched by several checks of one question."""
    return tuple(stem(t) for t in tokens(text))


STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i
    if in into is it its me my no not of on or our should so than that the their them
    then there these they this those to was we were what when where which who whom why
    will with would you your about any all also after before between both each more most
    other some such only own same very just over under again further once here s t don
    now tell please give show explain describe list""".split()
)
LIGHT_WORDS = frozenset(
    """actually already always anything around automatically basically better built come
    currently directly else ever exactly fine get gets getting go going got just keep kind
    like lot make makes making much need needs possible pretty really right still sure
    thing things try trying use used uses using want wants way ways work works aren couldn
    didn doesn hadn hasn haven isn mustn needn shan shouldn wasn weren won wouldn ll ve re
    """.split())
"""Words that say how a question is asked, not what about: they never count as terms."""
FRAMING_WORDS = frozenset(
    """may might must shall could would should also according document documents source
    sources text passage passages answer answers state states stated say says said mention
    mentions mentioned describe describes described note notes noted provide provides
    provided based following""".split())
"""Words that frame a generated sentence ("the documents state that …"), not what it says:
the verifier does not ask the evidence for them."""
