"""Answer types: what type of answer a question asks for (a date, a number, a name) and
whether a sentence carries one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from abstain.mentions import QuestionParts
from abstain.text import (
    content_words,
    english_rarity,
    fold,
    states_an_amount,
    stem,
    tokens,
)
from abstain.text.grammar import capitalised_words


class AnswerType(StrEnum):
    """What a when / how-many / who question asks for."""

    DATE = "date"
    NUMBER = "number"
    NAME = "name"


@dataclass(frozen=True, slots=True)
class AskedType:
    """The type of answer a question asks for, and what a sentence must hold to give it."""

    expected: AnswerType
    exclude: frozenset[str]
    """The question's own numbers: they answer nothing."""
    versions: bool
    """Whether a version counts as a date ("removed in 5.0" answers "when"; not "what year",
    nor a question about a version)."""
    measure: frozenset[str]

    @classmethod
    def of(cls, parts: QuestionParts) -> AskedType | None:
        expected = expected_type(parts.asked)
        if expected is None:
            return None
        return cls(expected, frozenset(t for t in tokens(parts.asked) if t.isdigit()),
                   not any(m.why == "version" for m in parts.identifiers)
                   and not _CALENDAR.search(parts.asked), measured(parts.asked))

    def carried_by(self, sentence: str) -> bool:
        return carries(sentence, self.expected, exclude=self.exclude, versions=self.versions,
                       measure=self.measure)


# -- answer types -----------------------------------------------------------

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
    r"|count|length|threshold|interval|delay|capacity|version)\b", re.IGNORECASE)
_WHO = re.compile(r"^\W*(?:who|whom)\b|\bwho\s+(?:is|are|was|were|wrote|made|created|maintains"
                  r"|won|owns|runs|built|founded|invented)\b", re.IGNORECASE)
_CALENDAR = re.compile(r"\b(?:what|which)\s+(?:year|date|day|month)\b", re.IGNORECASE)
TYPE_STEMS = frozenset(stem(w) for w in (
    "year date day month time release released many much long large big number size timeout "
    "limit count length version percentage").split())

_MONTHS = ("jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april"
           "|june|july|august|september|october|november|december")
_DATE = re.compile(
    rf"\b(?:19|20)\d\d\b|\b\d{{4}}-\d\d(?:-\d\d)?\b|\b(?:{_MONTHS})\.?\s+\d|\b\d{{1,2}}\s+"
    rf"(?:{_MONTHS})\b|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
    r"|\b\d{1,2}:\d\d\b|\b\d{1,2}\s?(?:am|pm)\b|\b(?:yesterday|today|tomorrow|ago|daily"
    r"|nightly|weekly|monthly|yearly|annually|hourly|quarterly)\b", re.IGNORECASE)
_VERSION_DATE = re.compile(r"\b(?:version|release|in|since|until|from|before|after)\s+v?\d+"
                           r"(?:\.\d+)+", re.IGNORECASE)
"""In software, "when" is often answered by a version ("removed in 5.0")."""
_ROLE_WORDS = frozenset(
    """team maintainer maintainers author authors developer developers company foundation
    organisation organization vendor owner administrator admin contributors community
    staff department""".split())


def expected_type(asked: str) -> AnswerType | None:
    """The type of answer a question asks for, from its asked sentences."""
    if _WHO.search(asked):
        return AnswerType.NAME
    if _WHEN.search(asked):
        return AnswerType.DATE
    if _HOW_MANY.search(asked):
        return AnswerType.NUMBER
    return None


def carries(sentence: str, expected: AnswerType, *, exclude: frozenset[str] = frozenset(),
            versions: bool = True, measure: frozenset[str] = frozenset()) -> bool:
    """Whether ``sentence`` holds an answer of the type: numbers of the question don't count;
    ``versions``: a version counts as a date (not when the question asks about a version);
    ``measure``: stems of what a how-many question counts (:func:`measured`) — a number must
    stand within :data:`NUMBER_WINDOW` words of one of them or of a unit."""
    if expected is AnswerType.DATE:
        return _DATE.search(sentence) is not None or (
            versions and _VERSION_DATE.search(sentence) is not None)
    if expected is AnswerType.NUMBER:
        words = _UNIT_TOKEN.findall(fold(sentence))
        at = [i for i, w in enumerate(words)
              if states_an_amount(w) and w not in exclude]
        if not measure:
            return bool(at)
        near = [i for i, w in enumerate(words) if w in _UNITS or stem(w) in measure]
        return any(abs(i - j) <= NUMBER_WINDOW for i in at for j in near)
    return any(fold(w).strip(".,;:") in _ROLE_WORDS for w in sentence.split()) or any(
        _person_like(sentence, start, word) for start, word in capitalised_words(sentence))


def _person_like(sentence: str, start: int, word: str) -> bool:
    """A capitalised word (:func:`abstain.text.grammar.capitalised_words`) inside a sentence
    that is rare in English: Zoë Müller, Pallets; not a bullet's first word, a label before a
    colon, or a word like "Status"."""
    before = sentence[:start]
    if not before.strip(" \t-*•#>|_`\"'(") or before.rstrip().endswith(":"):
        return False
    if any(c.isdigit() for c in word) or word.isupper():
        return False
    return english_rarity(fold(word)) >= NAME_RARITY


NAME_RARITY = 0.5
"""A capitalised word counts as a name when it is at most this common in English (Zipf ≤ 4.75)."""


NUMBER_WINDOW = 4
"""How many words may stand between a number and what it counts ("the batch size is 100")."""
_UNIT_TOKEN = re.compile(r"\w+|%")
_UNITS = frozenset(
    """% percent percentage byte bytes kb mb gb tb kib mib gib ms millisecond milliseconds sec
    second seconds minute minutes min mins hour hours hr hrs day days week weeks month months
    year years times x""".split())
_MEASURED = (
    re.compile(r"\bhow\s+(?:many|much)\s+((?:\w+\s+){0,2}\w+)", re.IGNORECASE),
    re.compile(r"\b(?:number|amount|count|size|length|version)\s+of\s+(\w+)", re.IGNORECASE),
    re.compile(r"\b((?:\w+\s+){0,2}(?:size|timeout|limit|port|count|length|threshold|interval"
               r"|delay|capacity|version))\b", re.IGNORECASE),
)
_NOT_MEASURE = frozenset(stem(w) for w in (
    "how many much what which is the does do did a an of my your this that it default "
    "maximum minimum max min largest smallest").split())


_UNITS_ONLY = "\x00"
"""A measure that no word stems to: only a unit (hours, days, %) can stand by the number."""
_DURATION = re.compile(r"\bhow\s+(?:long|often|old|fast|frequently|soon)\b|\bfor\s+how\s+long\b",
                       re.IGNORECASE)


def measured(asked: str) -> frozenset[str]:
    """Stems of what a how-many / what-size question counts or measures ("rows", "batch size");
    for how long / how often, units only."""
    found: set[str] = {_UNITS_ONLY} if _DURATION.search(asked) else set()
    for pattern in _MEASURED:
        for match in pattern.finditer(asked):
            found.update(stem(w) for w in content_words(match.group(1)))
    return frozenset(found - _NOT_MEASURE)

