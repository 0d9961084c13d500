"""Answer types: whether a sentence carries the type of answer a question asks for (a date,
a number, a name); what the question asks for is read once with it
(:mod:`abstain.asked`, :class:`abstain.question.Question`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from abstain.asked import HOW_OFTEN, UNITS_ONLY, AnswerType
from abstain.question import Question
from abstain.text import (
    STOPWORDS,
    english_rarity,
    fold,
    states_an_amount,
    stem,
)
from abstain.text.grammar import VERSION_NUMBER, capitalised_words
from abstain.text.words import MONTHS, NAME_RARITY, WEEKDAYS


@dataclass(frozen=True, slots=True)
class AskedType:
    """The type of answer a question asks for, and what a sentence must hold to give it."""

    expected: AnswerType
    exclude: frozenset[str]
    """The question's own numbers and frequencies (:func:`frequencies`): they answer
    nothing."""
    versions: bool
    """Whether a version counts as a date ("removed in 5.0" answers "when"; not "what year",
    nor a question that names a version: "When was Cookiecutter 2.7.0 released?" is not
    answered by "2.6.0"; counting every version but the question's own answered no more
    answerable questions of the train sets and 17 fewer near misses failed the check)."""
    measure: frozenset[str]
    given: frozenset[str] = frozenset()
    """The question's own versions ("3.8" of "which release dropped Python 3.8?"): they
    answer nothing."""
    question_words: frozenset[str] = frozenset()
    """The question's words, folded: whose version it asks (:func:`others_version`)."""

    @classmethod
    def of(cls, question: Question) -> AskedType | None:
        expected = question.answer_type
        if expected is None:
            return None
        return cls(expected, question.numbers | frequencies(question.asked),
                   not any(m.why == "version" for m in question.identifiers)
                   and not question.calendar, question.measure,
                   frozenset(versions_in(question.asked)),
                   frozenset(fold(w) for w in _WORD.findall(question.text)))

    def carried_by(self, sentence: str) -> bool:
        return carries(sentence, self.expected, exclude=self.exclude, versions=self.versions,
                       measure=self.measure, given=self.given,
                       question_words=self.question_words)


# -- answer types -----------------------------------------------------------

TYPE_WORDS = tuple(("year date day month time release released many much long large big number "
                    "size timeout limit count length version percentage").split())
"""Words that name the type of answer asked for, not what it is about (their stems:
``stem_set(TYPE_WORDS)``)."""

_MONTHS = "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|" + "|".join(MONTHS)
_COUNTED = (r"%|ms|s|sec|seconds?|min|minutes?|hours?|days?|[kmgt]i?b|bytes?|times|x|px|rows"
            r"|items|requests")
"""What a number that looks like a year counts when one of these follows it ("in 2000 ms",
"since 2019 requests"): then it is no year."""
_PERIODIC = "hourly|daily|nightly|weekly|monthly|quarterly|yearly|annually"
"""Adverbs of a period: a date for a when-question, a frequency for a how-often one."""
_NO_NOUN_AFTER = (r"(?!\s*-?\s*(?!(?:and|or|in|at|on|to|by|when|the|a|an|as|after|before|he"
                  r"|she|it|they|was|were|is|with|from|for|of|under|during|that|which|until"
                  r"|who)\b)[a-z])")
"""Not followed by a word that a number would count ("1000 attempts", "1024-byte blocks"):
a year of history stands before a name, a function word or a stop."""
_YEAR = (
    r"(?:\b(?:in|since|until|till|by|from|before|after|during|circa|around|year|early|late|mid"
    r"|copyright|released|founded|launched|published|introduced|added|deprecated|removed"
    r"|shipped|created|started|established|dated|updated|opened|closed|signed|joined|ended"
    r"|expires|expired|renewed|built|q[1-4]):?\s+(?:the\s+)?|©\s*|\("
    r"|\b(?:19|20)\d\d\s*(?:-|–|to)\s*)(?:19|20)\d\ds?\b"
    rf"(?!\s*(?:{_COUNTED})\b)"
    r"|\b(?:in|since|until|till|during|circa|around|about|year|early|late|mid|founded|published"
    r"|born|died|built|signed|established|crowned|between)\s+(?:the\s+)?1\d\d\d"
    r"(?:\s*(?:–|-|to|and)\s*1\d\d\d)?\b" + _NO_NOUN_AFTER
    + r"|\b1\d\d\d\s*–\s*1\d\d\d\b" + _NO_NOUN_AFTER
    + r"|(?-i:\b\d{1,4}\s?(?:BC|BCE)\b|\bA\.?D\.?\s?\d{1,4}\b|\b\d{1,4}\s?(?:AD|CE)\b"
    + _NO_NOUN_AFTER + r")"
    r"|\b\d{1,2}(?:st|nd|rd|th)[\s-]+centur(?:y|ies)\b"
    r"|\b(?:the|early|late|mid|in|during|by)[\s-]+(?:the\s+)?(?:1\d|20)\d0s\b(?!\s+of\b)")
"""A year in a date context ("in 2019", "(2019)", "2019–2021", a table row's "Opened: 2022");
one before 1900 in history's ("published in 1846", "1861–1865"; not "after 1000 attempts", "in
1024-byte blocks", "(1500)"); a year of an era ("646 AD", "44 BC"; not "5000 AD objects"), a
century ("the 9th century", "19th-century") or a decade ("the 1640s"; not "1000s of requests",
"1800s"). A bare number that looks like a year ("The timeout is 2000 ms.") is no date."""
_MONTH_NAMED = (r"\b(?:in|by|until|till|from|since|before|after|during|of|every|each|next|last"
                r"|this)\s+(?:(?:early|mid|late|the\s+end\s+of|the\s+start\s+of)[\s-]+)?"
                rf"(?:{'|'.join(MONTHS)})\b")
"""A month named after a preposition ("replaced in June", "by early March"): a date without
a day or a year is still the answer to "when"."""
_DATE = re.compile(
    rf"{_YEAR}|{_MONTH_NAMED}|\b\d{{4}}-\d\d(?:-\d\d)?\b|\b(?:{_MONTHS})\.?\s+\d|\b\d{{1,2}}\s+"
    rf"(?:{_MONTHS})\b|\b(?:{'|'.join(WEEKDAYS)})s?\b"
    r"|\b\d{1,2}:\d\d\b|\b\d{1,2}\s?(?:am|pm)\b"
    rf"|\b(?:yesterday|today|tomorrow|ago|{_PERIODIC})\b", re.IGNORECASE)
_VERSION_DATE = re.compile(rf"\b(?:version|release|in|since|until|from|before|after)\s+v?"
                           rf"(?P<v>{VERSION_NUMBER})", re.IGNORECASE)
"""In software, "when" is often answered by a version ("removed in 5.0")."""
_RELEASED = re.compile(r"(?<![\w./=#§-])(?:v(\d+\.\d+(?:\.\d+)?)|(\d+\.\d+\.\d+))"
                       r"(?![\w.]*\d|[\w/])")
"""A release's number: three numbers ("gevent 22.10.0") or a "v" and two or three ("v0.25");
not a path's "/v1.2/", a pin's "==2.31.0" or a bare "v4" ("UUID v4", "API v4")."""
_NUMBERED = frozenset("""section sections figure fig table chapter clause step page appendix
    rule article item paragraph part equation eq listing example""".split())
"""Words before a number of dots that make it a section's, not a release's ("see section
4.2.1")."""
_REQUIRED = frozenset("""requires require required requiring needs need needed tested uses
    using install installs installed pinned pin""".split())
"""Words before a number of dots that make it a dependency's, not the release of a change."""
_OR_LATER = re.compile(r"\s*(?:\+|(?:or|and)\s+(?:later|newer|above|higher|greater|up)\b)",
                       re.IGNORECASE)
_NOT_A_VERSION_AFTER = (r"(?!\s*(?:%|ms|s|sec|seconds?|min|minutes?|hours?|days?|[kmgt]i?b|bytes?"
                        r"|x|px|times|usd|eur|gbp|dollars?|euros?)\b)")
_DAY_MONTH_YEAR = r"\d{1,2}\.\d{1,2}\.\d{4}"
_VERSION = re.compile(
    rf"(?<![\w.])(?!{_DAY_MONTH_YEAR})(?!\d+(?:\.\d+){{3}})"
    rf"(?P<a>{VERSION_NUMBER})(?![\w.]*\d)" + _NOT_A_VERSION_AFTER
    + rf"|(?<![\w.])(?-i:v)(?P<b>{VERSION_NUMBER}|\d+)(?![\w.]*\d)"
    r"|\b(?:versions?|releases?)\s+(?P<c>\d+)(?![\w.]*\d)"
    r"|(?<![\w.])(?P<e>\d+)(?:\+|\s+or\s+(?:newer|later|above|higher|greater)\b)",
    re.IGNORECASE)
"""A version answers a which-version question: two or three numbers of
:data:`~abstain.text.grammar.VERSION_NUMBER` ("0.19.0", "3.11", "2.0rc1"; not a date
"12.03.2024", four numbers as of an address "192.168.1.1", "0.5 seconds" or "1.50 USD"), "v"
and a number ("v4", not "V8"), "version 4", "6 or newer", "18+". A decimal number counts too
("Set it to 1.5."): as a sentence's only number it rarely answers a which-version question,
and requiring a name or a "since" before two numbers (as in "since mypy 2.0", "Python versions
3.10 and up") lost 7 right answers of 401 on the ``train`` sets' version, date and number
questions (``bench/eval_typed_questions.py``)."""
_RELEASE = re.compile(
    r"\s*\[?(?:(?:version|release)\s+|(?-i:[A-Z])[\w.+-]*\s+)?(?-i:v)?"
    rf"(?!{_DAY_MONTH_YEAR})(?P<r>{VERSION_NUMBER})\]?"
    r"(?:\s*[(\[–—-]\s*[^)\]]*?\b(?:19|20)\d\d\b.*)?\s*$", re.IGNORECASE)
"""A changelog's release line: a version alone, or with its date, after the project's name
or not ("10.4.0", "v8.7.0", "0.19.0 (October 19, 2022)", "[0.20.1] - 2024-10-03", "Twine
5.1.0 (2024-05-15)"); not "2.1 - Installation", "3.2.1 Options" nor a date "12.03.2024"."""
RELEASE_TYPES = frozenset({AnswerType.VERSION, AnswerType.DATE})
"""The types a changelog's release line states for every entry under it."""


def versions_in(text: str) -> list[str]:
    """The versions ``text`` states (:data:`_VERSION`), each as its dotted numbers; a release
    line's own ("0.65 (2024-01-02)") whatever its form."""
    release = _RELEASE.match(text)
    found = [next(g for g in m.groups() if g is not None) for m in _VERSION.finditer(text)]
    return list(dict.fromkeys([release.group("r"), *found])) if release is not None else found


_WORD = re.compile(r"[\w.+-]+")
_OWNED = re.compile(r"(?P<owner>(?-i:[A-Z])[\w+-]*)\s+(?:v|version\s+)?$", re.IGNORECASE)
"""A name right before a version: "Kubernetes v1.31+", "Ubuntu 20.04"."""
_GIVEN_TO_COMMAND = re.compile(r"^[\s`$>]*(?P<command>[a-z][\w.-]*)\s+[a-z][\w-]*"
                       r"(?:\s+(?:--?[\w.=-]+|[a-z][\w.-]*))*\s+v?$")
"""A command line up to the version it is given: "nvm install --offline 14.7.0", "pyenv
install 2.7.4", "nvm use 22.22.2"."""


def others_version(sentence: str, start: int, words: frozenset[str]) -> bool:
    """Whether the version at ``start`` of ``sentence`` is not the release asked of the
    question (``words``: its words, folded): it follows a name the question does not say,
    rare in English ("nftables (Kubernetes v1.31+)" for "which kind release …"), or it is
    what a command the question names is given ("nvm install --offline 14.7.0": a Node
    version, for "In which nvm release was --offline added?")."""
    line = sentence[:start].rsplit("\n", 1)[-1]
    owned = _OWNED.search(line)
    if owned is not None:
        owner = fold(owned.group("owner"))
        if owner not in words and english_rarity(owner) >= NAME_RARITY:
            return True
    command = _GIVEN_TO_COMMAND.match(line)
    return command is not None and fold(command.group("command")) in words


def is_release_line(heading: str) -> bool:
    return _RELEASE.match(heading) is not None


def release_numbers(sentence: str) -> list[str]:
    """The releases :data:`_RELEASED` finds, but a section's number (:data:`_NUMBERED`), a
    dependency's (:data:`_REQUIRED`: "Requires Python 3.8.10 or later", "Tested with Node
    v18.17.0"), a number grouped by thousands ("1.234.567") or a phone number
    ("555.123.4567")."""
    found = []
    for match in _RELEASED.finditer(sentence):
        number = match.group(1) or match.group(2)
        head, *rest = number.split(".")
        before = sentence[:match.start()].split()
        if before and fold(before[-1]).strip("(") in _NUMBERED:
            continue
        if (_OR_LATER.match(sentence, match.end())
                or any(fold(w).strip("(,") in _REQUIRED for w in before[-3:])):
            continue
        if any(len(part) >= 4 for part in rest) or (len(head) <= 3 and rest
                                                     and all(len(p) == 3 for p in rest)):
            continue
        found.append(number)
    return found


_ROLE_WORDS = frozenset(
    """team maintainer maintainers author authors developer developers company foundation
    organisation organization vendor owner administrator admin contributors community
    staff department manager managers controller lead director officer engineer engineers
    architect operator operators reviewer reviewers approver supervisor coordinator committee
    board council chair secretary treasurer editor moderator steward desk""".split())
_ONES_OWN = frozenset({"your"})
"""Before a role it names the reader's own ("your manager" approves): someone in particular,
where "our maintainers" or "the team" name no one."""


_CHOICES_STATED = re.compile(
    r"\b(?:possible|allowed|valid|accepted|supported|permitted|legal|available)\s+(?:values"
    r"|choices|options|settings|modes)\s*(?::|\bare\b|\binclude\b)"
    r"|\b(?:supports?|accepts?|takes?|has)\s+(?:\w+\s+)?(?:values|choices|modes)\s*:"
    r"|^\W*(?:values|choices|options|type)\s*:\s*[\w\"'`-]+(?:\s*,\s*[\w\"'`-]+){2,}"
    r"|^\W*(?:values|choices)\s*:|\bone\s+of\s*:?\s*(?:[\"'`\[]|[\w.-]+\s*,)"
    r"|[\"'][^\"'|\n]{1,40}[\"']\s*\|\s*[\"'][^\"'|\n]{1,40}[\"'](?!\s*\|\s*`)"
    r"|(?:[\"'`][^\"'`,\n]{1,30}[\"'`]\s*,\s*){2,}(?:(?:or|and)\s+)?[\"'`]", re.IGNORECASE)
"""What states the values a setting accepts: a label ("Possible values: …", "Valid values
are …", "supports three values: …", "one of …", "Type: default, append-only, ndjson"),
alternatives ("Full" | "None"), or three quoted values listed ("Always", "Never",
"Preserve")."""


def carries(sentence: str, expected: AnswerType, *, exclude: frozenset[str] = frozenset(),
            versions: bool = True, measure: frozenset[str] = frozenset(),
            given: frozenset[str] = frozenset(),
            question_words: frozenset[str] = frozenset()) -> bool:
    """Whether ``sentence`` holds an answer of the type: numbers of the question don't count,
    nor its versions (``given``);
    ``versions``: a version counts as a date (not when the question asks about a version),
    never one of the question's own (``given``);
    ``measure``: stems of what a how-many question counts (:func:`abstain.asked.measured`) —
    a number must stand within :data:`NUMBER_WINDOW` words of one of them or of a unit;
    ``question_words``: folded — a version is then the release asked only when it is
    no other name's and no command's argument (:func:`others_version`; a release line's
    version always is)."""
    if expected is AnswerType.DATE:
        if _DATE.search(sentence) is not None:
            return True
        if not versions:
            return False
        dating = [m.group("v") for m in _VERSION_DATE.finditer(sentence)]
        dating += release_numbers(sentence)
        if is_release_line(sentence):
            dating += versions_in(sentence)
        return any(v not in given for v in dating)
    if expected is AnswerType.VERSION:
        if question_words and not is_release_line(sentence):  # whose: the one asked
            return any(next(g for g in m.groups() if g is not None) not in given
                       and not others_version(sentence, m.start(), question_words)
                       for m in _VERSION.finditer(sentence))
        return any(v not in given for v in versions_in(sentence))
    if expected is AnswerType.CHOICES:
        return _CHOICES_STATED.search(sentence) is not None
    if expected is AnswerType.NUMBER:
        if HOW_OFTEN in measure and frequencies(sentence) - exclude:
            return True
        duration = UNITS_ONLY in measure  # "3 times" counts tries, it lasts nothing
        if duration and _LASTING.search(sentence):
            return True
        # a time of day is when, not how much ("open from 11:30 to 14:00" costs nothing);
        # a how-long or how-many-minutes question's span may still be one ("00:30:00")
        clocked = duration or bool(measure & _CLOCK_UNITS)
        text = fold(sentence) if clocked else _CLOCK.sub(" ", fold(sentence))
        words = _UNIT_TOKEN.findall(_LABEL.sub(lambda m: m.group(1).replace("_", " "), text))
        joined = [i for i, w in enumerate(words) if _WITH_UNIT.fullmatch(w)
                  and not (duration and w.endswith("x"))]
        at = [i for i, w in enumerate(words)
              if states_an_amount(w) and w not in exclude] + joined
        if not measure:
            return bool(at)
        units = _UNITS
        if duration:
            units = (_UNITS - _COUNTING_UNITS) | _SPAN_UNITS
            at = [i for i in at if i + 1 == len(words) or words[i + 1] not in _COUNTING_UNITS]
        near = (joined if duration else []) + [  # "3d" lasts; "3D" counts no users
            i for i, w in enumerate(words) if w in units or w in _DEFAULTS or stem(w) in measure]
        return any(abs(i - j) <= NUMBER_WINDOW for i in at for j in near)
    return _named_role(sentence) or any(
        _person_like(sentence, start, word) for start, word in capitalised_words(sentence))


def _named_role(sentence: str) -> bool:
    """A role named by what qualifies it ("the platform team", "the SQLite developers"); a
    bare "the team" or "our maintainers" names no one."""
    words = [fold(w).strip(".,;:!?()\"'") for w in sentence.split()]
    return any(w in _ROLE_WORDS and i > 0 and (words[i - 1] in _ONES_OWN or (
        words[i - 1] not in STOPWORDS | _UNNAMING and words[i - 1] not in _ROLE_WORDS))
        for i, w in enumerate(words))


_UNNAMING = frozenset("his her every whole entire same other".split())
"""Words before a role that leave it unnamed ("his team", "the whole team")."""


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


NUMBER_WINDOW = 4
"""How many words may stand between a number and what it counts ("the batch size is 100")."""
_UNIT_TOKEN = re.compile(r"\w+|[%$€£¥]")
_CLOCK = re.compile(r"(?<![\w:.])\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\b\.?)?(?![\w:])")
"""A time of day: "11:30", "14:00:00", "9:05 pm" (not "16:9", "1:30:00:00" or "a:b")."""
_CLOCK_UNITS = frozenset({"hour", "minut", "second"})
"""Stems of what a how-many question counts that a clock-written span states ("How many
minutes is the session timeout?" of "Session timeout: 00:30:00")."""
_LABEL = re.compile(r"\b([a-z0-9]+(?:_[a-z0-9]+)+)(?=\s*:)")
"""A table row's column label ("minutes_to_resolve: 308"), read as its words: its unit is the
value's (not ``retention_days`` in running text, which names a setting)."""
_CURRENCIES = frozenset(
    """usd eur gbp jpy chf cad aud nzd cny inr sek nok dkk pln czk huf brl mxn zar sgd hkd krw
    dollar dollars euro euros pound pounds cent cents yen kroner krona kronor franc francs
    $ € £ ¥""".split())
"""Money beside its amount ("a fee of 150 NOK", "12 euros", "$150")."""
_UNITS = frozenset(
    """% percent percentage byte bytes kb mb gb tb kib mib gib ms millisecond milliseconds sec
    second seconds minute minutes min mins hour hours hr hrs day days week weeks month months
    year years times x""".split()) | _CURRENCIES
_SPAN_UNITS = frozenset(
    """decade decades century centuries semester semesters km kilometre kilometres kilometer
    kilometers metre metres meter meters mm cm mile miles foot feet ft inch inches yard
    yards age aged""".split())
"""Units only a how-long / how-far / how-old question's answer needs ("two decades", "2,548
km", "at the age of 71"); for a how-many question they would let "a 24 km route" answer "how
many engineers …?"."""
_LASTING = re.compile(
    r"\b(?:for|about|around|over|nearly|almost|within|after|some|(?:more|less)\s+than)\s+"
    r"(?:a|an|several|a\s+few|many)\s+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?"
    r"|decades?|centur(?:y|ies)|millenni(?:um|a))\b"
    r"|\bfor\s+(?:hours|days|weeks|months|years|decades|centuries|millennia)\b"
    r"|\b(?:since|from)\s+(?:(?:about|around|at\s+least|early|late|mid)\s+)?(?:the\s+)?"
    rf"(?:1\d|20)\d\d\b(?!\s*(?:{_COUNTED}|bits?)\b)", re.IGNORECASE)
"""A duration without a number by its unit ("for about a century", "for centuries", "more
than a few months"), or the year it runs from ("citizens since 1917"): it answers how long."""
_COUNTING_UNITS = frozenset({"times", "x"})
"""Units of a count or a ratio ("retried 3 times", "2 x faster"), not of a duration."""
_TIME_WORDS = (r"(?:seconds?|minutes?|hours?|days?|nights?|weeks?|weekdays?|weekends?|months?"
               r"|quarters?|years?|decades?|mornings?|evenings?|"
               + "|".join(WEEKDAYS) + "|" + "|".join(MONTHS) + ")")
_FREQUENCY = re.compile(
    rf"\bevery\s+(?:other\s+|alternate\s+|few\s+|single\s+|\d+\s+|\w+\s+)?{_TIME_WORDS}\b"
    r"|\b(?:on|at|after|before|with|per)\s+(?:every|each)\s+\w+"
    rf"|\b(?:once|twice|thrice|\w+\s+times)\s+(?:a|an|per|each|every)\s+{_TIME_WORDS}\b"
    rf"|\b(?:{_PERIODIC}|fortnightly|biweekly|bimonthly|biennial(?:ly)?|biannual(?:ly)?"
    r"|semiannual(?:ly)?)\b", re.IGNORECASE)
"""A frequency: "every second", "every other week", "every October", "three times a year",
"twice per day", "on every deploy", "weekly", "biennial"; not "every user", "once a token
expires"."""


def frequencies(text: str) -> frozenset[str]:
    """The frequencies ``text`` states, folded: a question's own ("how often are the weekly
    backups verified?") answer nothing."""
    return frozenset(fold(m.group(0)) for m in _FREQUENCY.finditer(text))


_WITH_UNIT = re.compile(r"\d+(?:ms|s|secs?|m|mins?|h|hrs?|d|w|kb|mb|gb|tb|kib|mib|gib|x)")
"""A number written with its unit ("10s", "400ms", "256m", "2x"): it carries its own."""
_DEFAULTS = frozenset({"default", "defaults"})
"""A setting's default stands by its number ("Default: 120", "defaults to 60"): the unit is
the option's, named in its name or description, not beside the number. Also for a question
that does not ask for a default ("How many users can log in?" against "14 by default"):
requiring the question to ask for a default or a duration lost 4 right answers of 401 on the
``train`` sets' typed questions ("Set to 0 to disable (Default 4)" for "how many streams does
a multi-thread transfer use?")."""
