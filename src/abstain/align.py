"""Evidence alignment: the evidence an answer is built from must hold what was asked.

Retrieval finds text *about* the question's topic; these checks ask whether the
kept evidence — exactly what the generator receives — holds the specific things
the question asks about:

* **entities**: every identifier the question names (see :mod:`abstain.mentions`)
  occurs whole in the evidence. One that exists elsewhere in the workspace refuses
  as ``entity_not_in_evidence``, one that exists nowhere as ``unknown_entity`` with
  "did you mean" suggestions; a capitalised name must exist somewhere in the
  workspace.
* **informative coverage**: the question's content words, each weighted by how
  rare it is in the workspace (``1 - log(df + 1) / log(N + 1)``: a word in no chunk
  weighs 1, a word in every chunk about 0), must be present in the evidence
  (stem-equal). "thymol" counts, "involve" barely does. Words of context
  sentences weigh :data:`CONTEXT_WEIGHT`.
* **answer type**: a *when / what year* question needs an evidence sentence with a
  date, time or version; *how many / how much / how long* one with a number; *who*
  one with a name — in a sentence that shares a word with the question.

The same module ranks evidence for identifier questions (chunks that hold the
identifiers first, those whose title or heading holds them before the rest) and
gives keyword evidence its own chunk confidence, so an exact identifier or
rare-term match is kept even when its cosine is weak.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from abstain.answer import Check
from abstain.evidence import Evidence
from abstain.identifiers import nearest, occurs_in
from abstain.mentions import Kind, Mention, QuestionParts, stems
from abstain.query import fold, tokens
from abstain.stores.base import TermCounts
from abstain.text import split_sentences, stem

CONTEXT_WEIGHT = 0.3
"""Weight of a word from a context sentence or a soft mention, relative to an asked word."""
KEYWORD_CONFIDENCE_SCALE = 0.8
"""Keyword evidence alone tops out at 80/100: a perfect term match is strong, never certain."""
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

    @classmethod
    def of(cls, parts: QuestionParts, counts: TermCounts) -> Focus:
        return cls(parts, counts, expected_type(parts.asked))

    def weight(self, word: str, *, context: bool = False) -> float:
        total = self.counts.total
        if total <= 0:
            return 0.0
        df = min(self.counts.count(word), total)
        informative = 1.0 - math.log(df + 1) / math.log(total + 1)
        return informative * (CONTEXT_WEIGHT if context else 1.0)

    def exists(self, mention: Mention) -> bool:
        return self.counts.count(" ".join(mention.words)) > 0


def phrases(parts: QuestionParts) -> list[str]:
    """What to count in the workspace: each content word and each mention's words."""
    out = [t.word for t in parts.terms]
    out += [" ".join(m.words) for m in parts.mentions if m.kind is not Kind.SOFT and m.words]
    return list(dict.fromkeys(out))


# -- matching ---------------------------------------------------------------

def _evidence_text(ev: Evidence) -> str:
    return f"{ev.document.title}\n{' '.join(ev.chunk.heading_path)}\n{ev.text}"


def _label_text(ev: Evidence) -> str:
    return f"{ev.document.title}\n{' '.join(ev.chunk.heading_path)}\n{ev.document.source}"


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
    those whose title or heading holds them first, most held first; () when none does or
    the question names no identifier."""
    wanted = focus.parts.identifiers
    if not wanted or not evidence:
        return ()
    ranked = []
    for index, ev in enumerate(evidence):
        text = _evidence_text(ev)
        held = sum(holds(m, text) for m in wanted)
        labelled = sum(holds(m, _label_text(ev)) for m in wanted)
        ranked.append((-labelled, -held, index, ev))
    return tuple(r[3] for r in sorted(ranked, key=lambda r: r[:3]) if r[1] < 0)


def keyword_confidence(focus: Focus, ev: Evidence) -> float:
    """0–100 from keyword evidence: the informative share of the question the chunk holds
    (scaled by :data:`KEYWORD_CONFIDENCE_SCALE`); 0 unless the keyword arm found the chunk
    and it holds every identifier the question names."""
    if ev.hit.keyword_rank is None:
        return 0.0
    text = _evidence_text(ev)
    text_stems = stems(text)
    if not all(holds(m, text, text_stems) for m in focus.parts.identifiers):
        return 0.0
    coverage, _ = informative_coverage(focus, set(text_stems))
    return round(100.0 * KEYWORD_CONFIDENCE_SCALE * coverage, 1)


def informative_coverage(focus: Focus, present: set[str]) -> tuple[float, tuple[str, ...]]:
    """Weighted share of the question's words present (by stem); the absent informative ones."""
    total = got = 0.0
    missing: list[tuple[float, str]] = []
    for term in focus.parts.terms:
        w = focus.weight(term.word, context=term.context)
        total += w
        if term.stem in present:
            got += w
        elif w >= MISSING_TERM_WEIGHT:
            missing.append((w, term.word))
    if total <= 0:
        return 1.0, ()
    return round(got / total, 4), tuple(word for _, word in sorted(missing, reverse=True))


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
        return EntityVerdict(Check("entity_existence", True, "none", "all present",
                                   "no identifiers or names in the question" + note,
                                   "unknown_entity"))
    text = "\n".join(_evidence_text(e) for e in evidence)
    text_stems = stems(text)
    absent_here = [m for m in parts.identifiers if not holds(m, text, text_stems)]
    nowhere = [m for m in wanted if m.kind is Kind.NAME and not focus.exists(m)]
    nowhere += [m for m in absent_here if not focus.exists(m)]
    elsewhere = [m for m in absent_here if m not in nowhere]
    shown = ", ".join(m.text for m in wanted)
    if not nowhere and not elsewhere:
        return EntityVerdict(Check("entity_existence", True, shown, "all present",
                                   "identifiers in the evidence, names in the workspace" + note,
                                   "unknown_entity"))
    if not nowhere:
        names = tuple(m.text for m in elsewhere)
        return EntityVerdict(
            Check("entity_existence", False, ", ".join(names), "all present",
                  f"{', '.join(names)} exist in the workspace but not in the evidence the answer "
                  "would be built from" + note, "entity_not_in_evidence"), (), names)
    names = tuple(m.text for m in nowhere)
    codes = [m for m in nowhere if m.kind is Kind.IDENTIFIER]
    pool = list(known()) if codes else []
    suggestions = tuple(dict.fromkeys(s for m in codes for s in nearest(m.text, pool)))
    detail = f"not found in the workspace: {', '.join(names)}"
    if suggestions:
        detail += f"; did you mean {', '.join(suggestions)}?"
    return EntityVerdict(Check("entity_existence", False, ", ".join(names), "all present",
                               detail + note, "unknown_entity"), suggestions, names)


def coverage_check(focus: Focus, evidence: tuple[Evidence, ...], threshold: float
                   ) -> tuple[Check, tuple[str, ...]]:
    present = set(stems("\n".join(_evidence_text(e) for e in evidence)))
    coverage, missing = informative_coverage(focus, present)
    detail = ("missing: " + ", ".join(missing)) if missing else "informative terms found"
    check = Check("informative_coverage", coverage >= threshold, coverage, threshold,
                  detail + " (terms weighted by rarity in the workspace)", "low_coverage")
    return check, missing


def answer_type_check(focus: Focus, evidence: tuple[Evidence, ...]) -> Check:
    expected = focus.answer_type
    if expected is None:
        return Check("answer_type", True, "any", "any", "the question asks for no specific "
                     "type of answer", "answer_type_missing")
    carrier = typed_sentence(focus, evidence)
    if carrier is None:
        return Check("answer_type", False, "none", expected.value,
                     f"no evidence sentence on the question's subject holds a {expected.value}",
                     "answer_type_missing")
    return Check("answer_type", True, expected.value, expected.value,
                 f"found in: {carrier[:120]}", "answer_type_missing")


def typed_sentence(focus: Focus, evidence: tuple[Evidence, ...]) -> str | None:
    """The first evidence sentence (a chunk's own heading included) on the question's subject
    that carries the expected answer type."""
    expected = focus.answer_type
    if expected is None:
        return None
    parts = focus.parts
    id_words = {w for m in parts.identifiers for w in m.words}
    subject = {t.stem for t in parts.terms if not t.context and t.word not in id_words}
    subject -= _TYPE_STEMS
    asked_versions = any(m.why == "version" for m in parts.identifiers)
    exclude = frozenset(_numbers(parts.asked))
    for ev in evidence:
        labelled = _labelled(ev, focus)
        heading = " ".join(ev.chunk.heading_path[-1:])
        for sentence in ([heading] if heading else []) + split_sentences(ev.text):
            on_subject = labelled or any(holds(m, sentence) for m in parts.identifiers) or bool(
                subject & set(stems(sentence)))
            if on_subject and carries(sentence, expected, exclude=exclude,
                                      versions=not asked_versions):
                return sentence
    return None


def _labelled(ev: Evidence, focus: Focus) -> bool:
    """A chunk whose title or heading holds the question's identifiers is on its subject."""
    wanted = focus.parts.identifiers
    return bool(wanted) and all(holds(m, _label_text(ev)) for m in wanted)


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
_TYPE_STEMS = frozenset(stem(w) for w in (
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
_NUMBER = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)?(?![\w-]|\.\d)")
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    forty fifty sixty hundred hundreds thousand thousands million millions billion dozen dozens
    once twice single double half quarter unlimited infinite""".split())
_ROLE_WORDS = frozenset(
    """team maintainer maintainers author authors developer developers company foundation
    organisation organization vendor owner administrator admin contributors community
    staff department""".split())
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


def _numbers(text: str) -> list[str]:
    return [m.group(0).replace(",", "") for m in _NUMBER.finditer(text)]


def carries(sentence: str, expected: AnswerType, *, exclude: frozenset[str] = frozenset(),
            versions: bool = True) -> bool:
    """Whether ``sentence`` holds an answer of the type: numbers of the question don't count;
    ``versions``: a version counts as a date (not when the question asks about a version)."""
    if expected is AnswerType.DATE:
        return _DATE.search(sentence) is not None or (
            versions and _VERSION_DATE.search(sentence) is not None)
    if expected is AnswerType.NUMBER:
        if any(n not in exclude for n in _numbers(sentence)):
            return True
        return any(t in _NUMBER_WORDS for t in tokens(sentence))
    words = sentence.split()
    lead = len(sentence) - len(sentence.lstrip())
    names = [m for m in _CAPITALISED.finditer(sentence) if m.start() > lead]
    return bool(names) or any(fold(w).strip(".,;:") in _ROLE_WORDS for w in words)
