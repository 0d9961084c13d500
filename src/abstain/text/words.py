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
from collections.abc import Callable, Sequence
from importlib import resources
from itertools import pairwise

import Stemmer

# Words of at least one letter or digit; keeps identifiers like ADR-0007 or v2.3.1 apart
# into their word parts, which is what both full-text engines index.
_WORD = re.compile(r"\w+", re.UNICODE)
_STEMMER = Stemmer.Stemmer("english")


def compound(words: Sequence[str]) -> str:
    """Words written as one token (``--proxy-headers``, ``proxy_headers``), as the phrase
    that asks for them so: ``proxy-headers``. "Fixing proxy headers" holds the words, not
    the compound (a flag made up of a page's words is not that page's flag)."""
    return "-".join(words)


def compound_likes(phrase: str) -> tuple[str, str] | None:
    """The two SQL ``LIKE`` patterns (``\\`` escaping) that find a :func:`compound`
    phrase written with hyphens or with underscores; None for a plain phrase."""
    words = phrase.split("-")
    if len(words) < 2 or not all(w and w.isalnum() for w in words):
        return None
    return f"%{phrase}%", "%" + "\\_".join(words) + "%"


def holds_compound(phrase: str, text: str) -> bool:
    """Whether ``text`` writes the :func:`compound` ``phrase`` as one token."""
    joined = "[-_]".join(re.escape(w) for w in phrase.split("-"))
    return re.search(rf"(?<![\w-]){joined}(?![\w-])", fold(text).replace("--", " ")) \
        is not None


def one_edit(a: str, b: str) -> bool:
    """Whether two different words are one edit apart: a letter missing, added or changed,
    or two neighbouring letters swapped ("disconecting", "recieve", "pasword")."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    if len(a) < len(b):
        return a[i:] == b[i + 1:]  # one letter added
    if a[i + 1:] == b[i + 1:]:
        return True  # one letter changed
    return (i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i]
            and a[i + 2:] == b[i + 2:])  # two neighbours swapped


def is_english(word: str) -> bool:
    """Whether a folded word is among the 30,000 commonest English words
    (``data/english_zipf.tsv``)."""
    return word in _english_zipf()


def fold(text: str) -> str:
    """Lower-case and strip diacritics (Müller -> muller, café -> cafe)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def as_written(text: str, word: str) -> str:
    """A folded token of ``text`` with the marks ``text`` writes it with, in lower case
    ("año" for "ano", "дней" for "днеи"): what a message shows a user of their own words.
    ``word`` itself when ``text`` writes it without marks or does not hold it."""
    if text.isascii():
        return word
    for match in _WORD.finditer(text.replace("_", " ")):
        if fold(match.group()) == word:
            return match.group().lower()
    return word


def tokens(text: str) -> list[str]:
    """Folded word tokens, in order, duplicates kept; a run of Chinese characters (written
    without spaces) as its overlapping pairs ("带薪年假" → 带薪 薪年 年假), so that a word of
    a question is found inside a sentence's run."""
    words = _WORD.findall(fold(text).replace("_", " "))
    if text.isascii():
        return words
    return [piece for w in words for piece in
            (_cjk_pairs(w) if _CJK_CHAR.search(w) else (w,))]


_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_CJK_SPLIT = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff]+)")


def _cjk_pairs(word: str) -> list[str]:
    """A token holding Chinese characters: its other parts whole ("28", "zeitwerk"), each run
    of the characters as its overlapping pairs (a single one alone)."""
    out: list[str] = []
    for part in _CJK_SPLIT.split(word):
        if not part:
            continue
        if not _CJK_CHAR.match(part) or len(part) == 1:
            out.append(part)
        else:
            out += [part[i:i + 2] for i in range(len(part) - 1)]
    return out


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball (English) stem of one folded word, read first as the word it is a form of
    when the stemmer cannot relate them: an irregular form as its base ("forgot", "forgotten"
    → forget; "indices" → index), a British spelling as the American one ("colour" → color,
    "initialised" → initialized): ``data/english_forms.tsv``. Digits and codes are kept as
    they are."""
    if not word.isalpha():
        return word
    return str(_STEMMER.stemWord(_forms().get(word, word)))


@functools.cache
def stem_set(words: tuple[str, ...]) -> frozenset[str]:
    """The stems of a fixed word list, stemmed on first use (stemming reads a data file, so a
    module's word list is not stemmed when it is imported)."""
    return frozenset(stem(w) for w in words)


@functools.cache
def _forms() -> dict[str, str]:
    raw = resources.files("abstain").joinpath("data/english_forms.tsv").read_text()
    return dict(line.split("\t", 1) for line in raw.splitlines()
                if line and not line.startswith("#"))


def joined(stems: Sequence[str]) -> set[str]:
    """Each two neighbouring words written as one, stemmed: "Wi-Fi" holds wifi, "set up"
    setup, "logging in" login, "file name" filename. A word that one side writes whole and
    the other apart is the same word; :func:`holds_word` asks for it."""
    return {stem(a + b) for a, b in pairwise(stems) if a.isalpha() and b.isalpha()}


def holds_word(word_stem: str, joins: Sequence[str], held: set[str] | frozenset[str],
               apart: Callable[[], set[str]]) -> bool:
    """Whether a text holds a word of the question: its stem among the text's stems
    (``held``), the question writing it apart where the text writes it whole (``joins``: the
    word's :func:`joined` forms with its neighbours, "log in" for "login"), or the text
    writing it apart (``apart``: the text's :func:`joined` forms, asked for only then)."""
    return (word_stem in held or any(j in held for j in joins)
            or (len(word_stem) > 3 and word_stem in apart()))


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
    hello hi hey ok okay yes thanks thank roughly approximately since
    whats whos hows wheres whens whys thats theres heres im ive youre youve theyre weve
    dont doesnt didnt cant couldnt wont wouldnt isnt arent wasnt werent hasnt havent
    shouldnt ur u pls plz thx concretely specifically precisely briefly vs versus""".split())
"""Words that say how a question is asked, not what about: they never count as terms, and a
capitalised one is no name ("Please", "Roughly"); contractions typed without their
apostrophe ("whats", "wont") among them."""
TITLES = frozenset(
    """king queen emperor empress pope prince princess president sir lord lady dr mr mrs ms
    bishop archbishop cardinal senator chancellor sultan tsar czar mayor professor""".split())
"""A title before a name and its numeral is no part of it: "Queen Elizabeth II" is
"Elizabeth II", which a document may name without the title ("a Charter of Elizabeth II").
Before any other name it stays: "Queen Mary", "Dr Pepper", "King County", "Lord Kelvin" are
names of their own (the rest alone is a common word, another person or a unit). Not "Saint"
or "St" (a place: "St Louis"), nor "General" or "Captain" (a settings page, a product)."""
STEP_VERBS = frozenset("""
    open close click right-click double-click select choose pick run enter type go navigate
    find search set install uninstall add remove create delete copy paste restart reboot
    check verify confirm tick untick read press log sign wait download upload save edit use
    make call send ask update upgrade enable disable configure connect disconnect insert
    replace move drag start stop expand submit reset change write scroll follow clear plug
    unplug turn switch hold release attach detach mount unmount import export generate apply
    tap swipe launch exit quit rename fill print scan share invite assign approve reject
    request contact email note record rotate revoke grant""".split())
"""Verbs a step of a procedure opens with, as a command ("Open the console.", "Tick …"):
a list whose items mostly open so is a procedure, not a list of facts."""
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""The calendar's words (English): a date's, not a name's ("on 14 January", "on Monday")."""
_REPEATED = re.compile(r"([a-z])\1+")
"""``vv`` of ``-vv``: a count, not a word."""


@functools.lru_cache(maxsize=8)
def function_words(language: str) -> frozenset[str]:
    """The words of ``language`` (ISO 639-1) that say how a question is put, not what about
    ("wann", "quel", "cuánto"), folded as :func:`tokens` folds them: :data:`STOPWORDS` for
    English, the ``stop-words`` package's list for another language it has, else none."""
    if language == "en":
        return STOPWORDS
    from stop_words import LANGUAGE_MAPPING, get_stop_words

    if language not in LANGUAGE_MAPPING:
        return frozenset()
    return frozenset(fold(w) for w in get_stop_words(language))


HOW_WORDS = frozenset("many long often".split())
"""After "how", the kind of answer asked for ("how many", "how long"), not what it is about."""


def content_words(text: str) -> list[str]:
    """What ``text`` is about, word by word: its folded words less :data:`STOPWORDS`, the
    :data:`LIGHT_WORDS` that say how something is asked (and a :data:`HOW_WORDS` word right
    after "how"), single letters and letter runs (``vv``); unique, in order. Digits stay,
    single ones too: the parts of a version (``5.2.0``) are what a question about it is
    about. The one definition of a content word: the question's terms, the keyword query,
    the term coverage, the reader's window choice and the verifier's words all read it."""
    words = tokens(text)
    asked_how = {w for before, w in pairwise(words)
                 if before == "how" and w in HOW_WORDS}
    return [t for t in dict.fromkeys(words)
            if (len(t) > 1 or t.isdigit()) and t not in STOPWORDS and t not in LIGHT_WORDS
            and t not in asked_how and not _REPEATED.fullmatch(t)]


NUMBER_WORDS: dict[str, int] = {
    **{w: n for n, w in enumerate(
        """zero one two three four five six seven eight nine ten eleven twelve thirteen
        fourteen fifteen sixteen seventeen eighteen nineteen""".split())},
    **{w: 10 * n for n, w in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)},
}
"""The cardinal number words and their values."""
SCALE_WORDS = frozenset(
    "hundred hundreds thousand thousands million millions billion billions".split())
QUANTITY_WORDS = frozenset(
    "once twice single double half quarter dozen dozens unlimited infinite".split())
"""Words that state an amount without being a cardinal."""
AMBIGUOUS_NUMBER_WORDS = frozenset({"one"})
"""Number words more often something else ("one of the options"): never read as a number."""


def number_words(text: str) -> dict[str, int]:
    """The cardinal number words of ``text`` with their values (less the ambiguous ones)."""
    return {t: NUMBER_WORDS[t] for t in tokens(text)
            if t in NUMBER_WORDS and t not in AMBIGUOUS_NUMBER_WORDS}


def states_an_amount(word: str) -> bool:
    """A folded word that states a number or an amount: digits, a number word ("fifteen",
    "hundred"), a quantity ("twice", "unlimited")."""
    return word.isdigit() or word in NUMBER_WORDS or word in SCALE_WORDS or word in QUANTITY_WORDS


FRAMING_WORDS = frozenset(
    """may might must shall could would should also according document documents source
    sources text passage passages answer answers state states stated say says said mention
    mentions mentioned describe describes described note notes noted provide provides
    provided based following""".split())
"""Words that frame a generated sentence ("the documents state that …"), not what it says:
the verifier does not ask the evidence for them."""


ZIPF_COMMON = 6.0
"""English words this frequent (Zipf scale: "out", "use") count :data:`ENGLISH_FLOOR`."""
ZIPF_RARE = 3.5
"""English words at most this frequent ("sqlite", "thymol", "yaml") count fully."""
ENGLISH_FLOOR = 0.05


@functools.cache
def _english_zipf() -> dict[str, float]:
    raw = resources.files("abstain").joinpath("data/english_zipf.tsv").read_text()
    return {word: float(z) for word, _, z in (line.partition("\t") for line in raw.splitlines()
                                              if line and not line.startswith("#"))}


NAME_RARITY = 0.5
"""A capitalised word counts as a name when it is at most this common in English (Zipf ≤ 4.75)."""


def english_rarity(word: str) -> float:
    """1 for a word rare in general English, down to :data:`ENGLISH_FLOOR` for the commonest:
    a small documentation set that never says "put" or "inside" makes them rare in the
    workspace, not informative."""
    zipf = _english_zipf().get(word)
    if zipf is None:
        return 1.0
    share = (ZIPF_COMMON - zipf) / (ZIPF_COMMON - ZIPF_RARE)
    return min(1.0, max(ENGLISH_FLOOR, share))
