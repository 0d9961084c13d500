"""Evidence alignment: the evidence an answer is built from must hold what was asked.

Retrieval finds text *about* the question's topic; these checks ask whether the
kept evidence — exactly what the generator receives — holds the specific things
the question asks about:

* **entities**: every identifier the question names (see :mod:`abstain.mentions`),
  and every name that is rare in the workspace, occurs whole in the evidence. One
  that exists elsewhere in the workspace refuses as ``entity_not_in_evidence``, one
  that exists nowhere as ``unknown_entity`` with "did you mean" suggestions; every
  name and flag must exist somewhere in the workspace.
* **informative coverage**: the question's content words, each weighted by how
  rare it is in the workspace (``1 - log(df + 1) / log(N + 1)``: a word in no chunk
  weighs 1, a word in every chunk about 0) and in general English (:func:`english_rarity`),
  and its identifiers must be present in the evidence (stem-equal): "thymol" counts,
  "involve" barely does. Words of context sentences weigh :data:`CONTEXT_WEIGHT`. An
  asked word that is rare in English and in no document refuses alone. The same share
  is asked of the best *passage* (two consecutive sentences with their headings), so
  the asked words must stand together, not scattered over the evidence.
* **answer type**: a *when / what year* question needs an evidence sentence with a
  date, time or version; *how many / how much / how long* one with a number; *who*
  one with a name — in a sentence that shares a word with the question.

The same module ranks evidence for identifier questions (chunks that hold the
identifiers first, those whose title or heading holds them before the rest) and
gives keyword evidence its own chunk confidence, so an exact identifier or
rare-term match is kept even when its cosine is weak.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from importlib import resources

from abstain.evidence import Evidence
from abstain.identifiers import nearest, occurs_in
from abstain.mentions import Kind, Mention, QuestionParts, parse_question, stems
from abstain.query import STOPWORDS, fold, tokens
from abstain.records import Check, CheckName, RefusalReason, TermCounts
from abstain.text import split_sentences, stem

CONTEXT_WEIGHT = 0.3
"""Weight of a word from a context sentence or a soft mention, relative to an asked word."""
KEYWORD_CONFIDENCE_SCALE = 0.8
"""Keyword evidence alone tops out at 80/100: a perfect term match is strong, never certain."""
RARE_NAME = 0.5
"""A name this rare in the workspace (in under ~√N chunks) must be in the evidence itself
(flags aside: they are often the user's own illustration):
"Windows Terminal" in a page about the Windows console is not an answer about it. Names
common in the workspace ("SDK", "Click") need only exist."""
UNKNOWN_WORD_RARITY = 0.9
"""An asked word this rare in English (Zipf ≤ 3.75) that no document holds refuses alone."""
MISSING_TERM_WEIGHT = 0.5
"""Absent words at least this informative are named in the refusal."""


class AnswerType(StrEnum):
    DATE = "date"
    NUMBER = "number"
    NAME = "name"


@dataclass(frozen=True, slots=True)
class Focus:
    """A question read against its workspace: what it names and how informative each word is."""

    parts: QuestionParts
    counts: TermCounts
    answer_type: AnswerType | None
    weighted: tuple[tuple[str, str, float], ...] = ()
    """(word, stem, weight) of each content word, computed once (:meth:`weight`)."""
    weighted_identifiers: tuple[tuple[Mention, float], ...] = ()
    """Each identifier with its rarity in the workspace."""

    @classmethod
    def of(cls, parts: QuestionParts, counts: TermCounts) -> Focus:
        focus = cls(parts, counts, expected_type(parts.asked))
        return replace(
            focus,
            weighted=tuple((t.word, t.stem, focus.weight(t.word, context=t.context))
                           for t in parts.terms),
            weighted_identifiers=tuple((m, focus.rarity(m)) for m in parts.identifiers))

    def weight(self, word: str, *, context: bool = False) -> float:
        """How much a word of the question counts: rare in the workspace *and* in English."""
        return (self._informativeness(word) * english_rarity(word)
                * (CONTEXT_WEIGHT if context else 1.0))

    def exists(self, mention: Mention) -> bool:
        return self.counts.count(" ".join(mention.words)) > 0

    def rarity(self, mention: Mention) -> float:
        """1 for a mention in one chunk of the workspace, towards 0 for one in most chunks."""
        return self._informativeness(" ".join(mention.words))

    def _informativeness(self, phrase: str) -> float:
        """``1 - log(df + 1) / log(N + 1)``: 1 in no chunk, about 0 in every chunk."""
        total = self.counts.total
        if total <= 0:
            return 0.0
        df = min(self.counts.count(phrase), total)
        return 1.0 - math.log(df + 1) / math.log(total + 1)


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


def english_rarity(word: str) -> float:
    """1 for a word rare in general English, down to :data:`ENGLISH_FLOOR` for the commonest:
    a small documentation set that never says "put" or "inside" makes them rare in the
    workspace, not informative."""
    zipf = _english_zipf().get(word)
    if zipf is None:
        return 1.0
    share = (ZIPF_COMMON - zipf) / (ZIPF_COMMON - ZIPF_RARE)
    return min(1.0, max(ENGLISH_FLOOR, share))


def phrases(parts: QuestionParts) -> list[str]:
    """What to count in the workspace: each content word and each mention's words."""
    out = [t.word for t in parts.terms]
    out += [" ".join(m.words) for m in parts.mentions if m.kind is not Kind.SOFT and m.words]
    return list(dict.fromkeys(out))


# -- matching ---------------------------------------------------------------

def _label_text(ev: Evidence) -> str:
    """What names the whole document: its title, first heading and file name."""
    return f"{ev.document.title}\n{' '.join(ev.chunk.heading_path[:1])}\n{ev.document.source}"


def holds(mention: Mention, text: str, text_stems: Sequence[str] | None = None) -> bool:
    """Whether ``text`` holds the mention whole: its words in order, stem-equal, no prefix
    tolerance; versions never match a longer version (1.3 is not 1.3.2); flags keep their
    dashes."""
    if mention.why == "version":
        return occurs_in(mention.text, text)
    if mention.why == "flag":
        return re.search(rf"(?<![\w-]){re.escape(mention.text)}(?![\w-])", text,
                         re.IGNORECASE) is not None
    wanted = [stem(w) for w in mention.words]
    if not wanted:
        return True
    have = list(text_stems) if text_stems is not None else stems(text)
    n = len(wanted)
    return any(have[i:i + n] == wanted for i in range(len(have) - n + 1))


def focus_evidence(focus: Focus, evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """For a question that names identifiers: the chunks that hold at least one of them,
    those of a document named after them (title, first heading, file name) first, most held
    first; () when none does or the question names no identifier."""
    wanted = focus.parts.identifiers
    if not wanted or not evidence:
        return ()
    ranked = []
    for index, ev in enumerate(evidence):
        text = ev.labelled_text
        held = sum(holds(m, text) for m in wanted)
        labelled = sum(holds(m, _label_text(ev)) for m in wanted)
        ranked.append((-labelled, -held, index, ev))
    return tuple(r[3] for r in sorted(ranked, key=lambda r: r[:3]) if r[1] < 0)


def keyword_confidence(focus: Focus, ev: Evidence) -> float:
    """0–100 from keyword evidence, for a chunk the keyword arm found: the informative share
    of the question it holds, scaled by :data:`KEYWORD_CONFIDENCE_SCALE`. When the question
    names identifiers, a chunk must hold them all, and holding them is half the score."""
    if ev.hit.keyword_rank is None:
        return 0.0
    text = ev.labelled_text
    text_stems = stems(text)
    wanted = focus.parts.identifiers
    if not all(holds(m, text, text_stems) for m in wanted):
        return 0.0
    coverage, _ = informative_coverage(focus, text, text_stems)
    if wanted:
        coverage = 0.5 + 0.5 * coverage
    return round(100.0 * KEYWORD_CONFIDENCE_SCALE * coverage, 1)


def informative_coverage(focus: Focus, text: str, text_stems: Sequence[str] | None = None
                         ) -> tuple[float, tuple[str, ...]]:
    """Weighted share of what the question asks about that ``text`` holds: its words (by stem,
    weighted by :meth:`Focus.weight`) and its identifiers (whole, weighted by their rarity in
    the workspace); the absent ones, most informative first."""
    have = list(text_stems) if text_stems is not None else stems(text)
    present = set(have)
    total = got = 0.0
    missing: list[tuple[float, str]] = []
    for word, word_stem, w in focus.weighted:
        total += w
        if word_stem in present:
            got += w
        else:
            missing.append((w, word))
    for mention, w in focus.weighted_identifiers:  # names are counted by their words already
        total += w
        if holds(mention, text, have):
            got += w
        else:
            missing.append((w, mention.text))
    if total <= 0:
        return 1.0, ()
    named = [word for w, word in sorted(missing, reverse=True) if w >= MISSING_TERM_WEIGHT]
    return round(got / total, 4), tuple(named or [m[1] for m in sorted(missing, reverse=True)][:3])


# -- the checks -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class EntityVerdict:
    check: Check
    suggestions: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


def entity_check(focus: Focus, evidence: tuple[Evidence, ...],
                 known: Callable[[], Sequence[str]]) -> EntityVerdict:
    """``known``: the workspace's identifiers, asked for only to suggest near ones."""
    parts = focus.parts
    wanted = [m for m in parts.mentions if m.kind is not Kind.SOFT]
    soft = [m.text for m in parts.mentions if m.kind is Kind.SOFT]
    note = f"; offered as context or comparison: {', '.join(soft)}" if soft else ""
    if not wanted:
        return EntityVerdict(Check(CheckName.ENTITY_EXISTENCE, True, "none", "all present",
                                   "no identifiers or names in the question" + note,
                                   RefusalReason.UNKNOWN_ENTITY))
    text = "\n".join(e.labelled_text for e in evidence)
    text_stems = stems(text)
    rare_names = [m for m in parts.names if m.why != "flag" and focus.rarity(m) >= RARE_NAME]
    absent_here = [m for m in [*parts.identifiers, *rare_names]
                   if not holds(m, text, text_stems)]
    nowhere = [m for m in wanted if m.kind is Kind.NAME and not focus.exists(m)]
    nowhere += [m for m in absent_here if not focus.exists(m) and m not in nowhere]
    elsewhere = [m for m in absent_here if m not in nowhere]
    shown = ", ".join(m.text for m in wanted)
    if not nowhere and not elsewhere:
        return EntityVerdict(Check(CheckName.ENTITY_EXISTENCE, True, shown, "all present",
                                   "identifiers in the evidence, names in the workspace" + note,
                                   RefusalReason.UNKNOWN_ENTITY))
    if not nowhere:
        names = tuple(m.text for m in elsewhere)
        return EntityVerdict(
            Check(CheckName.ENTITY_EXISTENCE, False, ", ".join(names), "all present",
                  f"{', '.join(names)} exist in the workspace but not in the evidence the answer "
                  "would be built from" + note, RefusalReason.ENTITY_NOT_IN_EVIDENCE), (), names)
    names = tuple(m.text for m in nowhere)
    codes = [m for m in nowhere if m.kind is Kind.IDENTIFIER]
    pool = list(known()) if codes else []
    suggestions = tuple(dict.fromkeys(s for m in codes for s in nearest(m.text, pool)))
    detail = f"not found in the workspace: {', '.join(names)}"
    if suggestions:
        detail += f"; did you mean {', '.join(suggestions)}?"
    return EntityVerdict(Check(CheckName.ENTITY_EXISTENCE, False, ", ".join(names), "all present",
                               detail + note, RefusalReason.UNKNOWN_ENTITY), suggestions, names)


def coverage_check(focus: Focus, evidence: tuple[Evidence, ...], threshold: float
                   ) -> tuple[Check, tuple[str, ...]]:
    """Weighted coverage of the question's words by the evidence; and no asked word that is
    rare in English may be absent from the whole workspace ("thymol" in a beekeeping set)."""
    text = "\n".join(e.labelled_text for e in evidence)
    text_stems = stems(text)
    present = set(text_stems)
    coverage, missing = informative_coverage(focus, text, text_stems)
    unknown = tuple(t.word for t in focus.parts.terms
                    if not t.context and t.stem not in present and focus.counts.count(t.word) == 0
                    and english_rarity(t.word) >= UNKNOWN_WORD_RARITY and not t.word.isdigit())
    if unknown:
        detail = f"in no document of the workspace: {', '.join(unknown)}"
        missing = tuple(dict.fromkeys((*unknown, *missing)))
    else:
        detail = ("missing: " + ", ".join(missing)) if missing else "everything found"
    check = Check(CheckName.INFORMATIVE_COVERAGE, coverage >= threshold and not unknown, coverage,
                  threshold, detail + " (terms weighted by rarity in the workspace and in "
                  "English)", RefusalReason.LOW_COVERAGE)
    return check, missing


def local_coverage(focus: Focus, evidence: tuple[Evidence, ...]) -> tuple[float, str]:
    """The best informative coverage of one passage: two consecutive sentences of a chunk,
    with its title and headings. What is asked should be said together, not scattered. A
    comparison ("the difference between A and B") counts only passages that name both."""
    sides = compared(focus.parts.asked)
    best, where = 0.0, ""
    for ev in evidence:
        label = ev.label
        label_stems = stems(label)
        sentences = split_sentences(ev.text) or [ev.text]
        sentence_stems = [stems(s) for s in sentences]
        for i in range(max(1, len(sentences) - 1)):
            window = " ".join(sentences[i:i + 2])
            have = label_stems + [w for ws in sentence_stems[i:i + 2] for w in ws]
            if sides and not all(side & set(have) for side in sides):
                continue
            coverage, _ = informative_coverage(focus, f"{label}\n{window}", have)
            if coverage > best:
                best, where = coverage, window
    return best, where


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
        sides = tuple(frozenset(stem(w) for w in tokens(side) if w not in STOPWORDS)
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


def _side(words: Iterable[str]) -> frozenset[str]:
    """The content words next to a comparison's connective, up to the first stopword."""
    side: list[str] = []
    for word in words:
        if word in STOPWORDS or len(side) == SIDE_WORDS:
            break
        side.append(stem(word))
    return frozenset(side)


def local_coverage_check(focus: Focus, evidence: tuple[Evidence, ...], threshold: float
                         ) -> Check:
    coverage, where = local_coverage(focus, evidence)
    detail = f"best passage: {where[:120]}" if where else "no passage holds what is asked"
    if compared(focus.parts.asked):
        detail += " (a comparison: the passage must name both sides)"
    return Check(CheckName.PASSAGE_COVERAGE, coverage >= threshold, coverage, threshold, detail,
                 RefusalReason.LOW_COVERAGE)


def answer_type_check(focus: Focus, evidence: tuple[Evidence, ...]) -> Check:
    expected = focus.answer_type
    if expected is None:
        return Check(CheckName.ANSWER_TYPE, True, "any", "any", "the question asks for no specific "
                     "type of answer", RefusalReason.ANSWER_TYPE_MISSING)
    carrier = typed_sentence(focus, evidence)
    if carrier is None:
        return Check(CheckName.ANSWER_TYPE, False, "none", expected.value,
                     f"no evidence sentence on the question's subject holds a {expected.value}",
                     RefusalReason.ANSWER_TYPE_MISSING)
    return Check(CheckName.ANSWER_TYPE, True, expected.value, expected.value,
                 f"found in: {carrier[:120]}", RefusalReason.ANSWER_TYPE_MISSING)


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


def generated_type_check(question: str, sentences: Sequence[str]) -> Check | None:
    """The answer-type test applied to a generated answer's kept sentences (None when the
    question asks for no specific type)."""
    asked = AskedType.of(parse_question(question))
    if asked is None:
        return None
    found = next((s for s in sentences if asked.carried_by(s)), None)
    detail = (f"found in the answer: {found[:120]}" if found is not None else
              f"no sentence of the answer states a {asked.expected.value}")
    return Check(CheckName.GENERATED_ANSWER_TYPE, found is not None,
                 asked.expected.value if found else "none", asked.expected.value, detail,
                 RefusalReason.ANSWER_TYPE_MISSING)


def typed_sentence(focus: Focus, evidence: tuple[Evidence, ...]) -> str | None:
    """The first evidence sentence (a chunk's own heading included) on the question's subject
    that carries the expected answer type."""
    parts = focus.parts
    asked = AskedType.of(parts)
    if asked is None:
        return None
    id_words = {w for m in parts.identifiers for w in m.words}
    subject = {t.stem for t in parts.terms if not t.context and t.word not in id_words}
    subject -= _TYPE_STEMS
    for ev in evidence:
        labelled = _labelled(ev, focus)
        heading = " ".join(ev.chunk.heading_path[-1:])
        for sentence in ([heading] if heading else []) + split_sentences(ev.text):
            on_subject = labelled or any(holds(m, sentence) for m in parts.identifiers) or bool(
                subject & set(stems(sentence)))
            if on_subject and asked.carried_by(sentence):
                return sentence
    return None


def _labelled(ev: Evidence, focus: Focus) -> bool:
    """A chunk whose title or headings hold the question's identifiers is on its subject."""
    wanted = focus.parts.identifiers
    return bool(wanted) and all(holds(m, ev.label) for m in wanted)


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
_TYPE_STEMS = frozenset(stem(w) for w in (
    "year date day month time release released many much long large big number size timeout "
    "limit count length version percentage").split())

_MONTHS = ("jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april"
           "|june|july|august|september|october|november|december")
_YEAR = (
    r"(?:\b(?:in|since|until|till|by|from|before|after|during|circa|around|year|early|late|mid"
    r"|copyright|released|founded|launched|published|introduced|added|deprecated|removed"
    r"|shipped|created|started|established|dated|updated|q[1-4])\s+(?:the\s+)?|©\s*|\("
    r"|\b(?:19|20)\d\d\s*(?:-|–|to)\s*)(?:19|20)\d\ds?\b(?!\s*(?:%|ms|s|sec|seconds?|min"
    r"|minutes?|hours?|days?|[kmgt]i?b|bytes?|times|x|px|rows|items|requests)\b)")
"""A year in a date context ("in 2019", "released 2021", "(2019)", "2019–2021"); a bare
number that looks like one ("The timeout is 2000 ms.") is no date."""
_DATE = re.compile(
    rf"{_YEAR}|\b\d{{4}}-\d\d(?:-\d\d)?\b|\b(?:{_MONTHS})\.?\s+\d|\b\d{{1,2}}\s+"
    rf"(?:{_MONTHS})\b|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
    r"|\b\d{1,2}:\d\d\b|\b\d{1,2}\s?(?:am|pm)\b|\b(?:yesterday|today|tomorrow|ago|daily"
    r"|nightly|weekly|monthly|yearly|annually|hourly|quarterly)\b", re.IGNORECASE)
_VERSION_DATE = re.compile(r"\b(?:version|release|in|since|until|from|before|after)\s+v?\d+"
                           r"(?:\.\d+)+", re.IGNORECASE)
"""In software, "when" is often answered by a version ("removed in 5.0")."""
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    forty fifty sixty hundred hundreds thousand thousands million millions billion dozen dozens
    once twice single double half quarter unlimited infinite""".split())
_ROLE_WORDS = frozenset(
    """team maintainer maintainers author authors developer developers company foundation
    organisation organization vendor owner administrator admin contributors community
    staff department""".split())
_UNNAMING = frozenset("his her every whole entire same other".split())
"""Words before a role that leave it unnamed ("his team", "the whole team")."""
_CAPITALISED = re.compile(r"(?<![\w.'’-])[A-Z][\w]+(?:[-'’][\w]+)*")


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
              if (w.isdigit() and w not in exclude) or w in _NUMBER_WORDS]
        if not measure:
            return bool(at)
        units = _UNITS
        if _UNITS_ONLY in measure:  # a duration: "3 times" counts tries, it lasts nothing
            units = _UNITS - _COUNTING_UNITS
            at = [i for i in at if i + 1 == len(words) or words[i + 1] not in _COUNTING_UNITS]
        near = [i for i, w in enumerate(words) if w in units or stem(w) in measure]
        return any(abs(i - j) <= NUMBER_WINDOW for i in at for j in near)
    return _named_role(sentence) or any(_person_like(m) for m in _CAPITALISED.finditer(sentence))


def _named_role(sentence: str) -> bool:
    """A role named by what qualifies it ("the platform team", "the SQLite developers"); a
    bare "the team" or "our maintainers" names no one."""
    words = [fold(w).strip(".,;:!?()\"'") for w in sentence.split()]
    return any(w in _ROLE_WORDS and i > 0 and words[i - 1] not in STOPWORDS | _UNNAMING
               and words[i - 1] not in _ROLE_WORDS for i, w in enumerate(words))


def _person_like(match: re.Match[str]) -> bool:
    """A capitalised word inside a sentence that is rare in English: Zoë Müller, Pallets;
    not a bullet's first word, a label before a colon, or a word like "Status"."""
    word, before = match.group(0), match.string[:match.start()]
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
_COUNTING_UNITS = frozenset({"times", "x"})
"""Units of a count or a ratio ("retried 3 times", "2 x faster"), not of a duration."""
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
            found.update(stem(w) for w in tokens(match.group(1)))
    return frozenset(found - _NOT_MEASURE - {stem(w) for w in STOPWORDS})
