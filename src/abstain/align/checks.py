"""The evidence checks: whether the kept evidence holds what the question names and asks
(entities, informative and passage coverage, answer type), and how identifier questions
rank and score their evidence."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

from abstain.align.question import Focus
from abstain.align.types import RELEASE_TYPES, TYPE_WORDS, AskedType, is_release_line
from abstain.asked import GUIDES_ONLY
from abstain.evidence import Evidence
from abstain.mentions import AskedName, Kind, Mention
from abstain.question import Question
from abstain.records import Check, CheckName, RefusalReason
from abstain.text import (
    english_rarity,
    holds_word,
    joined,
    nearest,
    occurs_in,
    split_sentences,
    split_units,
    stem,
    stem_set,
    stems,
)
from abstain.text.grammar import FLAG, OPTION_NAME

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


# -- matching ---------------------------------------------------------------

def _label_text(ev: Evidence) -> str:
    """What names the whole document: its title, first heading and file name."""
    return f"{ev.document.title}\n{' '.join(ev.chunk.heading_path[:1])}\n{ev.document.source}"


def holds(mention: Mention, text: str, text_stems: Sequence[str] | None = None) -> bool:
    """Whether ``text`` holds the mention whole: its words in order, stem-equal, no prefix
    tolerance; versions never match a longer version (1.3 is not 1.3.2); flags keep their
    dashes, and a one-letter flag its case."""
    if mention.why == "version":
        return occurs_in(mention.text, text)
    if mention.why == "flag" or mention.letter_flag:
        case = 0 if mention.letter_flag else re.IGNORECASE
        return re.search(rf"(?<![\w-]){re.escape(mention.text)}(?![\w-])", text,
                         case) is not None
    wanted = [stem(w) for w in mention.words]
    if not wanted:
        return True
    have = list(text_stems) if text_stems is not None else stems(text)
    n = len(wanted)
    return any(have[i:i + n] == wanted for i in range(len(have) - n + 1))


def focus_evidence(focus: Focus, evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """For a question that names identifiers: the chunks that hold at least one of them,
    those of a document named after them (title, first heading, file name) first, then those
    of the section each heads (:func:`_heads_its_section`), most held first; () when none
    does. For one that names none but a one-letter flag: :func:`defining_first`; but an
    option's name written as running text does not take for an identifier:
    :func:`headed_first`."""
    wanted = focus.question.identifiers
    if not evidence:
        return ()
    if not wanted:
        return defining_first(focus.question, evidence) or headed_first(focus.question, evidence)
    ranked = []
    for index, ev in enumerate(evidence):
        text = ev.labelled_text
        held = sum(holds(m, text) for m in wanted)
        labelled = sum(holds(m, _label_text(ev)) for m in wanted)
        own = sum(_heads_its_section(m, ev) for m in wanted)
        ranked.append((-labelled, -own, -held, index, ev))
    return tuple(r[4] for r in sorted(ranked, key=lambda r: r[:4]) if r[2] < 0)


def _heads_its_section(mention: Mention, ev: Evidence) -> bool:
    """Whether the chunk's own heading is the identifier as the question writes it, alone but
    for a parenthesis ("max_width", "max_width (integer)", "memory_info()";
    :meth:`~abstain.mentions.AskedName.heads`): the entry that defines it, before its
    subsections' examples; not a prose heading of its words ("Task priority" for
    `priority`, "Detailed validation" for ``detailed_validation``)."""
    return mention.text in ev.chunk.section and AskedName(mention.text).heads(ev.chunk.section)


_LIST_MARK = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?")
_CELL_MARK = re.compile(r"^[\s|`*]*")
DEFINED_TERM_CHARS = 80
"""A definition's term is at most this long (``-i[SUFFIX], --in-place[=SUFFIX]``)."""


def definition_terms(line: str) -> list[str]:
    """What a line of text defines, as definition lists, man pages and options tables write
    it: its term, before the first ": " ("-l, --files-with-matches: Suppress …"), and the
    first word of what follows ("CLI: -f/--format", a table row's "Flag: -l; …"), or its
    first word when it has no term; [] for a longer term."""
    line = _LIST_MARK.sub("", line, count=1)
    term, colon, rest = line.partition(": ")
    start = _CELL_MARK.sub("", rest if colon else line, count=1).split(" ", 1)[0].rstrip("`*;,|")
    terms = [term] if colon else []
    return [t for t in (*terms, start) if t and len(t) <= DEFINED_TERM_CHARS]


def defines(flag: Mention, ev: Evidence) -> bool:
    """Whether ``ev`` defines the command-line ``flag``: a heading of it names the flag, or
    a unit of its text outside code holds it in a :func:`definition_terms`."""
    if any(holds(flag, heading) for heading in ev.chunk.heading_path):
        return True
    return any(holds(flag, term) for unit in split_units(ev.text) if not unit.code
               for term in definition_terms(unit.text))


def defining_first(question: Question, evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """For a question that names one-letter flags (and no identifier): the chunks that
    define one first (those of a page the question names before the others), then those
    that hold one, then the others, each in retrieval order; () when no chunk holds one.
    No chunk is left out: what the flag does may be said beside its definition."""
    flags = question.letter_flags
    if not flags:
        return ()
    ranked = []
    for index, ev in enumerate(evidence):
        text = ev.labelled_text
        held = any(holds(f, text) for f in flags)
        defined = held and any(defines(f, ev) for f in flags)
        ranked.append((not defined, not (defined and names_the_page(question, ev)), not held,
                       index, ev))
    if all(r[2] for r in ranked):
        return ()
    return tuple(r[4] for r in sorted(ranked, key=lambda r: r[:4]))


def headed_first(question: Question, evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """For a question that writes an option's name as running text does not take for an
    identifier ("What is the default audit-command?"): the best-ranked chunk whose own
    heading is that name, written as a reference page writes an option (lower-case,
    :data:`~abstain.text.grammar.OPTION_NAME`; not a page's title), first, the others in
    retrieval order; () when no chunk is headed so. A reference page's examples of an option
    rank above its own entry on words alone; a prose heading ("Thread-safe", "Built-in") is
    no option, and a page named after it ("highlight.js") is about it throughout."""
    names = [n for n in question.asked_names if n.heading_only]
    if not names:
        return ()

    def entry(ev: Evidence) -> bool:
        heading = ev.chunk.section
        return (OPTION_NAME.fullmatch(heading) is not None and heading != ev.document.title
                and any(n.heads(heading) for n in names))

    headed = next((at for at, ev in enumerate(evidence) if entry(ev)), None)
    if headed is None:
        return ()
    return (evidence[headed], *evidence[:headed], *evidence[headed + 1:])


def names_the_page(question: Question, ev: Evidence) -> bool:
    """Whether an asked word of ``question`` names ``ev``'s page: its title or file name
    ("ls" of "what does ls -l do?" and ``ls.1.gz``), so that ``-l`` is read on ls's page,
    not grep's."""
    asked = {t.stem for t in question.terms if not t.context}
    return bool(asked & set(stems(f"{ev.document.title} {PurePath(ev.document.source).name}")))


def keyword_confidence(focus: Focus, ev: Evidence) -> float:
    """0–100 from keyword evidence, for a chunk the keyword arm found: the informative share
    of the question it holds, scaled by :data:`KEYWORD_CONFIDENCE_SCALE`. When the question
    names identifiers, a chunk must hold them all, and holding them is half the score."""
    if ev.hit.keyword_rank is None:
        return 0.0
    text = ev.labelled_text
    text_stems = stems(text)
    wanted = focus.question.identifiers
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
    apart = functools.cache(lambda: joined(have))
    total = got = 0.0
    missing: list[tuple[float, str]] = []
    for word, word_stem, w, joins in focus.weighted:
        total += w
        if holds_word(word_stem, joins, present, apart):
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
    question = focus.question
    wanted = [m for m in question.mentions if m.kind is not Kind.SOFT]
    soft = [m.text for m in question.mentions if m.kind is Kind.SOFT]
    note = f"; offered as context or comparison: {', '.join(soft)}" if soft else ""
    if not wanted:
        return EntityVerdict(Check(CheckName.ENTITY_EXISTENCE, True, "none", "all present",
                                   "no identifiers or names in the question" + note,
                                   RefusalReason.UNKNOWN_ENTITY))
    text = "\n".join(e.labelled_text for e in evidence)
    text_stems = stems(text)
    rare_names = [m for m in question.names if m.why != "flag" and focus.rarity(m) >= RARE_NAME]
    absent_here = [m for m in [*question.identifiers, *rare_names]
                   if not holds(m, text, text_stems)]
    absent_here += [m for m in _misread_flags(question, evidence) if m not in absent_here]
    nowhere = [m for m in wanted if m.kind is Kind.NAME and not focus.exists(m)]
    identifiers = functools.cache(lambda: list(known()))  # read from the store at most once

    def exists(m: Mention) -> bool:
        """Counted words can cross a version's dots ("3.0" in "1.3.0"): a version exists
        only where one of the workspace's identifiers holds it whole."""
        if not focus.exists(m):
            return False
        return m.why != "version" or any(occurs_in(m.text, k) for k in identifiers())

    nowhere += [m for m in absent_here if not exists(m) and m not in nowhere]
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
    pool = identifiers() if codes else []
    suggestions = tuple(dict.fromkeys(s for m in codes for s in nearest(m.text, pool)))
    detail = f"not found in the workspace: {', '.join(names)}"
    if suggestions:
        detail += f"; did you mean {', '.join(suggestions)}?"
    return EntityVerdict(Check(CheckName.ENTITY_EXISTENCE, False, ", ".join(names), "all present",
                               detail + note, RefusalReason.UNKNOWN_ENTITY), suggestions, names)


def _misread_flags(question: Question, evidence: tuple[Evidence, ...]) -> list[Mention]:
    """The one-letter flags asked that the evidence would answer with another option: one
    that only its other case defines there (``head -Q`` asked, head's ``-q`` kept), or one
    that the options page of the tool the question names does not hold there
    (``ssh-keygen -W`` asked: ssh-keygen's page kept, awk's ``-W`` beside it)."""
    def other(m: Mention) -> Mention:
        return replace(m, text=m.text.swapcase())

    flags = [m for m in question.letter_flags if m.kind is Kind.NAME]
    if not flags:  # every question's entity check comes here: read no chunk for nothing
        return []
    named = {ev.document.id for ev in evidence
             if names_the_page(question, ev) and _defines_flags(ev)}
    return [m for m in flags
            if (not any(holds(m, ev.labelled_text) for ev in evidence)
            and any(defines(other(m), ev) for ev in evidence))
            or (named and not any(holds(m, ev.labelled_text) for ev in evidence
                                 if ev.document.id in named))]


def _defines_flags(ev: Evidence) -> bool:
    """Whether a passage is (part of) an options reference: it defines some flag."""
    return any(FLAG.search(t) for unit in split_units(ev.text) if not unit.code
               for t in definition_terms(unit.text))


def coverage_check(focus: Focus, evidence: tuple[Evidence, ...], threshold: float
                   ) -> tuple[Check, tuple[str, ...]]:
    """Weighted coverage of the question's words by the evidence; and no asked word that is
    rare in English may be absent from the whole workspace ("thymol" in a beekeeping set) —
    of an English question: every word of another language is rare in English."""
    text = "\n".join(e.labelled_text for e in evidence)
    text_stems = stems(text)
    present = set(text_stems)
    apart = functools.cache(lambda: joined(text_stems))
    coverage, missing = informative_coverage(focus, text, text_stems)
    english = focus.question.language == "en"
    unknown = tuple(t.word for t in focus.question.terms
                    if english and not t.context
                    and not holds_word(t.stem, t.joins, present, apart)
                    and focus.counts.count(t.word) == 0
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
    sides = focus.question.sides
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


def local_coverage_check(focus: Focus, evidence: tuple[Evidence, ...], threshold: float
                         ) -> Check:
    coverage, where = local_coverage(focus, evidence)
    detail = f"best passage: {where[:120]}" if where else "no passage holds what is asked"
    if focus.question.sides:
        detail += " (a comparison: the passage must name both sides)"
    return Check(CheckName.PASSAGE_COVERAGE, coverage >= threshold, coverage, threshold, detail,
                 RefusalReason.LOW_COVERAGE)


def answer_type_check(focus: Focus, evidence: tuple[Evidence, ...]) -> Check:
    expected = focus.question.answer_type
    if expected is None:
        return Check(CheckName.ANSWER_TYPE, True, "any", "any", "the question asks for no specific "
                     "type of answer", RefusalReason.ANSWER_TYPE_MISSING)
    carrier = typed_sentence(focus, evidence)
    if carrier is None and expected in GUIDES_ONLY:
        return Check(CheckName.ANSWER_TYPE, True, "none", expected.value,
                     f"no evidence sentence states {expected.value}: not required, as it is "
                     "stated in too many forms", RefusalReason.ANSWER_TYPE_MISSING)
    if carrier is None:
        return Check(CheckName.ANSWER_TYPE, False, "none", expected.value,
                     f"no evidence sentence on the question's subject holds a {expected.value}",
                     RefusalReason.ANSWER_TYPE_MISSING)
    return Check(CheckName.ANSWER_TYPE, True, expected.value, expected.value,
                 f"found in: {carrier[:120]}", RefusalReason.ANSWER_TYPE_MISSING)


def generated_type_check(question: Question, sentences: Sequence[str]) -> Check | None:
    """The answer-type test applied to a generated answer's kept sentences (None when the
    question asks for no specific type)."""
    asked = AskedType.of(question)
    if asked is None or asked.expected in GUIDES_ONLY:
        return None
    found = next((s for s in sentences if asked.carried_by(s)), None)
    detail = (f"found in the answer: {found[:120]}" if found is not None else
              f"no sentence of the answer states a {asked.expected.value}")
    return Check(CheckName.GENERATED_ANSWER_TYPE, found is not None,
                 asked.expected.value if found else "none", asked.expected.value, detail,
                 RefusalReason.ANSWER_TYPE_MISSING)


def typed_sentence(focus: Focus, evidence: tuple[Evidence, ...]) -> str | None:
    """The first evidence sentence (a chunk's own heading included) on the question's subject
    that carries the expected answer type; for a version or a date asked, a heading above a
    sentence on the subject that carries one (a changelog's "0.19.0 (October 19, 2022)" over
    "Remove the --debug flag")."""
    question = focus.question
    asked = AskedType.of(question)
    if asked is None:
        return None
    id_words = {w for m in question.identifiers for w in m.words}
    subject = {t.stem for t in question.terms if not t.context and t.word not in id_words}
    subject -= stem_set(TYPE_WORDS)
    for ev in evidence:
        labelled = _labelled(ev, focus) or _headed(ev, subject)
        own = [h for h in ev.chunk.heading_path[-1:] if h]
        on_subject = [sentence for sentence in [*own, *split_sentences(ev.text)]
                      if labelled or any(holds(m, sentence) for m in question.identifiers)
                      or bool(subject & set(stems(sentence)))]
        said = next((s for s in on_subject if asked.carried_by(s)), None)
        if said is None and on_subject:
            said = next(iter(stating_headings(ev, asked)), None)
        if said is not None:
            return said
    return None


def stating_headings(ev: Evidence, asked: AskedType) -> list[str]:
    """The headings a chunk's sentences stand under that state the type of answer asked,
    nearest first: its own heading; for a version or a date, the release lines above it too
    ("Release v2.21.0 (2024-11-25)" over "Removed" over "Drop support of Python 3.8"; not a
    section's "Nightly builds" or "3.2.1 Options")."""
    path = [h for h in ev.chunk.heading_path if h]
    return [h for at, h in enumerate(reversed(path))
            if asked.carried_by(h) and (at == 0 or (asked.expected in RELEASE_TYPES
                                                    and is_release_line(h)))]


def _headed(ev: Evidence, subject: set[str]) -> bool:
    """A chunk whose title or headings name the subject — two of its words at least, and at
    least half of them ("Postmortem: gateway outage on 14 March" for "Who sent the postmortem
    about the gateway outage?") — is on it in every sentence: a mail's `From:` row, a
    section's table."""
    named = subject & set(stems(ev.label))
    return len(named) >= 2 and 2 * len(named) >= len(subject)


def _labelled(ev: Evidence, focus: Focus) -> bool:
    """A chunk whose title or headings hold the question's identifiers is on its subject."""
    wanted = focus.question.identifiers
    return bool(wanted) and all(holds(m, ev.label) for m in wanted)


