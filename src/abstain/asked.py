"""What a question asks for, read from its asked sentences: the type of answer (a date, a
number, a name), what a how-many question counts or measures, and the two sides of a
comparison. :meth:`abstain.question.Question.parse` reads them once per question; the
evidence side (whether a sentence carries such an answer) is :mod:`abstain.align.types`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum

from abstain.text import STOPWORDS, content_words, function_words, stem, stem_set, tokens


class AnswerType(StrEnum):
    """What a when / how-many / who / which-version question asks for."""

    DATE = "date"
    NUMBER = "number"
    NAME = "name"
    VERSION = "version"
    CHOICES = "choices"


_WHEN = re.compile(
    r"\bwhen\s+(?:was|were|will|did)\b"
    r"|\bwhen\s+(?:is|are|does|do)\b[^?]*\b(?:release|released|releasing|ship|ships|shipped|due"
    r"|out|launch|launched|scheduled|planned|expected|deprecated|removed|end|ends|start|starts)\b"
    r"|\b(?:what|which)\s+(?:year|date|day|month|time)\b|\bsince when\b|\bhow long ago\b",
    re.IGNORECASE)
_HOW_MANY = re.compile(
    r"\bhow\s+(?:many|much|long|large|big|small|fast|slow|often|far|old|high|low|wide|deep"
    r"|heavy|tall)\b|\bwhat\s+(?:percentage|percent|proportion|fraction|ratio|number|amount)\b"
    r"|\b(?:maximum|minimum|max|min|largest|smallest|biggest|highest|lowest)\s+(?:number|size"
    r"|value|length|limit|count|amount)\b"
    r"|\b(?:what|which)(?:'s|\s+is)?\s+(?:the\s+)?(?:\w+\s+){0,2}(?:size|timeout|limit|port"
    r"|count|length|threshold|interval|delay|capacity)\b(?!\s+v?\d)", re.IGNORECASE)
"""A number asked for; not where the question gives it ("What is the port 8080 for?"). A
version asked for is :data:`_WHICH_VERSION`'s."""
_NOT_BEFORE_VERSION = (r"(?!(?:does|do|did|is|are|was|were|will|can|could|should|would|has"
                       r"|have|in|of|on|for|goes|happens|a|an|each|every)\b)")
_WHICH_VERSION = re.compile(
    rf"\b(?:which|what)(?:'s|\s+is|\s+was)?\s+(?:the\s+)?(?:{_NOT_BEFORE_VERSION}[\w.-]+\s+){{0,2}}"
    r"(?:version|release)s?\b"
    r"(?![\s-]+(?:v?\d|control|process|notes?|cycle|schedule|branch|channel|policy|tags?"
    r"|history|dates?|managers?|number\s+of)\b)"
    r"|\b(?:since|from|as\s+of|starting\s+(?:with|from)|until|before|after)\s+(?:which|what)\s+"
    r"(?:[\w.-]+\s+){0,2}(?:version|release)s?\b", re.IGNORECASE)
"""A version asked for: "which release dropped Python 3.8?", "what's the minimum Redis version
required?", "since which version…?"; not "what's new in version 4.2?", nor "which version
control systems…"."""
HOW_TO = re.compile(
    r"^\W*(?:how\s+(?:do|can|should|would|could|shall|must)\s+(?:i|we|you|one|they|users?)\s+"
    r"(?!know\b|tell\b|spell\b|say\b|pronounce\b|name\b|call\b|feel\b|find\s+out\b)"
    r"|how\s+to\b(?!\s+(?:know|tell|spell|say|pronounce)\b)"
    r"|what\s+(?:are|is)\s+the\s+(?:steps|procedure|process)\b"
    r"|(?:what\s+are\s+the\s+)?steps?\s+(?:to|for)\b)", re.IGNORECASE)
"""A question that asks how to do something: its answer is a procedure, whose steps are
quoted together (:mod:`abstain.generate.extractive`)."""
_WHO = re.compile(r"^\W*(?:who|whom)\b|\bwho\s+(?:is|are|was|were|wrote|made|created|maintains"
                  r"|won|owns|runs|built|founded|invented)\b", re.IGNORECASE)
_CHOICES = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:values|choices|modes|levels)\b"
    r"|\b(?:possible|allowed|valid|accepted|supported|permitted|legal)\s+(?:values|choices)\b",
    re.IGNORECASE)
"""The values a setting or option accepts asked for ("Which values does the --color option
accept?", "what are the valid values for --log-level?"); not a range ("What range of values
does nice() accept?"), what a call returns or what exists (:data:`_RANGE`), nor a bound (a
number, :data:`_HOW_MANY`)."""
_RANGE = re.compile(r"(?<![\w-])range\b|\b(?:return|returns|returned|yield|yields|produce"
                    r"|produces|output|outputs|exist|exists)\b", re.IGNORECASE)
GUIDES_ONLY = frozenset({AnswerType.CHOICES})
"""Types asked for that choose what is quoted but refuse nothing: the values a setting
accepts are stated as lists, table rows, definitions and prose ("Set to auto to …, to always
to …, or to never to …") that no test of one sentence reads; as a check, it refused 10 of the
41 answerable questions of 31 projects that ask it (4 of them answered right without it)."""
_CALENDAR = re.compile(r"\b(?:what|which)\s+(?:year|date|day|month)\b", re.IGNORECASE)


def expected_type(asked: str) -> AnswerType | None:
    """The type of answer a question asks for, from its asked sentences."""
    if _WHO.search(asked):
        return AnswerType.NAME
    if _WHEN.search(asked):
        return AnswerType.DATE
    if _WHICH_VERSION.search(asked):
        return AnswerType.VERSION
    if _HOW_MANY.search(asked):
        return AnswerType.NUMBER
    if _CHOICES.search(asked) and not _RANGE.search(asked):
        return AnswerType.CHOICES
    return None


def asks_a_calendar_date(asked: str) -> bool:
    """"What year / date / day / month": a version does not answer it."""
    return _CALENDAR.search(asked) is not None


_MEASURED = (
    re.compile(r"\bhow\s+(?:many|much)\s+(?!(?:does|do|did|is|are|was|were|can|could|will"
               r"|would|should)\b)((?:\w+\s+){0,2}\w+)", re.IGNORECASE),
    re.compile(r"\b(?:number|amount|count|size|length|version)\s+of\s+(\w+)", re.IGNORECASE),
    re.compile(r"\b((?:\w+\s+){0,2}(?:size|timeout|limit|port|count|length|threshold|interval"
               r"|delay|capacity|version))\b", re.IGNORECASE),
)
_NOT_MEASURE = tuple(("how many much what which is the does do did a an of my your this that "
                      "it default maximum minimum max min largest smallest").split())


UNITS_ONLY = "\x00"
"""A measure that no word stems to: only a unit (hours, days, %) can stand by the number."""
HOW_OFTEN = "\x01"
"""A measure that no word stems to, of a how-often question: a frequency ("every week",
"three times a year", "daily") answers it as a number with a unit does."""
MARKERS = frozenset({UNITS_ONLY, HOW_OFTEN})
"""The measures that are no word of the question."""
_HOW_OFTEN = re.compile(r"\bhow\s+(?:often|frequently)\b|\b(?:at|with)\s+what\s+(?:frequency"
                        r"|interval)\b", re.IGNORECASE)
_DURATION = re.compile(r"\bhow\s+(?:long|often|old|fast|frequently|soon)\b|\bfor\s+how\s+long\b",
                       re.IGNORECASE)


def measured(asked: str) -> frozenset[str]:
    """Stems of what a how-many / what-size question counts or measures ("rows", "batch size");
    for how long / how often, units only; nothing for "how much does X cost / weigh", where
    what follows "how much" is the verb's subject, not a measure ("NW" of NW-1003 was)."""
    found: set[str] = {UNITS_ONLY} if _DURATION.search(asked) else set()
    if _HOW_OFTEN.search(asked):
        found.add(HOW_OFTEN)
    for pattern in _MEASURED:
        for match in pattern.finditer(asked):
            found.update(stem(w) for w in content_words(match.group(1)))
    return frozenset(found - stem_set(_NOT_MEASURE))


_PRONOUNS = {
    "en": r"it|its|they|them|their|this|that|these|those",
    "de": r"es|das|dies|dieses|ihn|ihm",
    "fr": r"ça|cela|ceci",
    "es": r"lo|eso|esto|ello",
    "nl": r"dat|dit|hem|ermee|erop|ervan",
}
"""The words by which a question refers back, per language it is read in: pronouns that
are no article ("la" of "¿Qué es la replicación?", "het" of "Wat is het wachtwoord?" are
articles; a German noun is capitalised, so "das Backup" names something)."""
_CHAINING = re.compile(
    r"\b(?:it|its|they|them|their)\b"
    r"|\b(?:if|when|once|unless|after)\s+(?:that|this)\s+(?:\w+n't|does\s+not|did\s+not|is\s+not"
    r"|fails|failed|works|worked|helps|helped|breaks|happens|happened)\b", re.IGNORECASE)
"""The English pronouns that say a chat message goes on from the one before: "this" /
"that" / "these" also qualify what a message names ("the timeout that applies to …"), so
they count only as the subject of a condition ("who do I escalate to if that fails?")."""
_PRONOUN = {lang: re.compile(rf"(?<![\w'])(?:{words})(?![\w'])", re.IGNORECASE)
            for lang, words in _PRONOUNS.items()}
_WHAT_ABOUT = {
    "en": r"(?:(?:and|so|but|ok(?:ay)?)\W+)?(?:what|how)\s+about",
    "de": r"(?:und\W+)?(?:was|wie)\s+(?:ist\s+)?(?:mit|steht\s+es\s+mit)",
    "fr": r"(?:et\W+)?(?:qu'en\s+est-il|et\s+pour)",
    "es": r"(?:y\W+)?(?:qué|que)\s+(?:pasa\s+)?(?:con|hay\s+de)",
    "nl": r"(?:en\W+)?(?:hoe\s+zit\s+het\s+met|en\s+wat\s+met|wat\s+dacht\s+je\s+van)",
}
"""A follow-up's opening: "what about …", "und was ist mit …", "et pour …"."""


def _at_start(words: dict[str, str]) -> dict[str, re.Pattern[str]]:
    """Per language, the pattern of ``words`` opening a message (after any punctuation)."""
    return {lang: re.compile(rf"^\W*(?:{w})\b", re.IGNORECASE) for lang, w in words.items()}


_WHAT_ABOUT_AT_START = _at_start(_WHAT_ABOUT)
_ONE = frozenset({"one", "ones"})
_PARTICLE_AFTER = re.compile(r"\b(?:it|them|that|this)\s+(?:back|off|on|up|down|out|over"
                             r"|away|in)\b", re.IGNORECASE)
"""The particle of a phrasal verb around a pronoun ("roll it *back*", "turn it *off*"): part
of the verb, it names nothing."""
REFERRING_WORDS = 1
"""A question of at most this many content words that refers with "it" / "that" / "they"
names nothing it could be about ("How do I fix it?"); one more word names something ("Can I
turn the cache off?")."""


def refers_back(asked: str, content_words: int, language: str = "en") -> str | None:
    """The words by which a question refers to something it does not name — a follow-up
    read without the conversation before it: "what about …" ("What about the second
    one?"), or "it" / "that" in a question of at most :data:`REFERRING_WORDS` content words
    ("How do I fix it?", "Is that safe?"; "Wie behebe ich das?"); None when it names what it
    asks about, or in a language without such words here. The caller passes questions that
    name no identifier or name of their own. ("The second one" alone is no sign: most
    questions that say it name the first in the same breath.)"""
    opening = _WHAT_ABOUT_AT_START.get(language)
    pronoun = _PRONOUN.get(language)
    if opening is None or pronoun is None:
        return None
    match = opening.search(asked)
    if match is not None:  # "what about the second one?", not "what about locking migrations?"
        said = STOPWORDS | _ONE | function_words(language)
        named = [w for w in tokens(asked[match.end():]) if w not in said]
        return match.group(0).strip() if len(named) <= REFERRING_WORDS else None
    match = pronoun.search(asked)
    particles = len(_PARTICLE_AFTER.findall(asked))  # "roll it back": "back" names nothing
    if match is not None and content_words - particles <= REFERRING_WORDS:
        return match.group(0)
    return None


_OPENS_ON = {
    "en": r"(?:(?:ok(?:ay)?|thanks|thank\s+you|great|cool|right|sure|alright)\W+)?"
          r"(?:and|or|but|so|also|then|plus|what\s+if|how\s+about|what\s+about)",
    "de": r"und|oder|aber|also|dann|und\s+wenn",
    "fr": r"et|ou|mais|alors|donc|et\s+si",
    "es": r"y|o|pero|entonces|y\s+si",
    "nl": r"en|of|maar|dus|dan|en\s+als",
}
_OPENS_ON_AT_START = _at_start(_OPENS_ON)
_DUMMY_IT = re.compile(
    r"\b(?:is|was|isn't|wasn't|would|will)\s+it\s+(?:be\s+)?(?:possible|ok|okay|safe|"
    r"necessary|required|allowed|true|better|worth|normal|expected)\b"
    r"|\bit(?:'s|\s+is)\s+(?:possible|ok|okay|necessary|required|allowed|true)\b",
    re.IGNORECASE)
""""Is it possible to …": an "it" that stands for the rest of the sentence, not for something
said before."""


FOLLOW_ON_WORDS = 3
"""A chat message of more content words than this names what it asks about itself."""


def follows_on(asked: str, language: str = "en", content_words: int = 0) -> bool:
    """Whether a chat message goes on from the one before it: a short one (at most
    :data:`FOLLOW_ON_WORDS` content words) that opens with a conjunction ("and for the pro
    plan?", "ok. and who do I tell?", "what about …"; in de, fr, es, nl too) or, in English,
    refers with "it" / "they" to what it does not say ("can I do it from the API?"; not "Is
    it possible to export as CSV?"). A longer message says what it asks ("How do I request
    database access and who approves it?"). Looser than :func:`refers_back`, which refuses a
    question alone: read after the message before it, such a message loses nothing it
    said."""
    opening = _OPENS_ON_AT_START.get(language)
    if opening is None or content_words > FOLLOW_ON_WORDS:
        return False
    if opening.search(asked):
        return True
    return language == "en" and _CHAINING.search(_DUMMY_IT.sub(" ", asked)) is not None


_COMPARE = re.compile(r"\bdifference\s+between\s+(.+?)\s+and\s+(.+?)(?=\s+(?:in|on|for|when|with"
                      r"|if)\b|[?.!]|$)", re.IGNORECASE)
_VERSUS = re.compile(r"\s(?:vs\.?|versus|compared\s+(?:to|with)|or)\s", re.IGNORECASE)
_CHOICE = re.compile(r"^\W*(?:should|shall|which|is|are|do|does|can|would|will)\b"
                     r"|\b(?:better|worse|faster|slower|safer|prefer|preferred|choose|pick"
                     r"|recommended)\b", re.IGNORECASE)
"""A question that weighs alternatives: only there does "A or B" compare two things."""
SIDE_WORDS = 3
"""A side of "A vs B" is at most this many content words next to the connective."""


def compared(asked: str) -> tuple[frozenset[str], ...]:
    """The two sides of a comparison, as content stems: "the difference between A and B",
    "A vs / versus / compared to B", and "A or B" in a question that weighs alternatives
    ("Should I use WAL or journal mode?"); () otherwise."""
    match = _COMPARE.search(asked)
    if match is not None:
        sides = tuple(frozenset(stem(w) for w in content_words(side))
                      for side in match.groups())
        return sides if all(sides) else ()
    for match in _VERSUS.finditer(asked):
        if match.group(0).strip().lower() == "or" and not _CHOICE.search(asked):
            continue
        left = _side(reversed(tokens(re.split(r"[?.!,;:]", asked[:match.start()])[-1])))
        right = _side(tokens(re.split(r"[?.!,;:]", asked[match.end():])[0]))
        if left and right:
            return left, right
    return ()


_ARTICLES = frozenset({"the", "a", "an"})
"""Passed over right after a comparison's connective ("versus *the* heartbeat")."""


def _side(words: Iterable[str]) -> frozenset[str]:
    """The content words next to a comparison's connective, up to the first stopword; an
    article right at the connective is passed over."""
    side: list[str] = []
    for word in words:
        if word in _ARTICLES and not side:
            continue
        if word in STOPWORDS or len(side) == SIDE_WORDS:
            break
        side.append(stem(word))
    return frozenset(side)
