"""The gate: a table of named checks run before any LLM call.

:data:`CHECKS` lists them once, in order: each row names the check, the refusal reasons it
gives, the small function that runs it, and whether a curated match is exempt from it, a
confident reading may waive it, or it is settled before any reading. Each check returns a
:class:`~abstain.records.Check` (passed, value, threshold, detail). The first failing
check decides the refusal reason; all checks are still reported so ``--debug`` shows the
whole picture.

Curated documents (front matter ``curated: true``) rank first; one whose title asks the
question (:func:`curated_match`: an editor's answer to it) is exempt from the confidence,
coverage and reading checks; the entity and answer-type checks still apply to it.

:func:`gate` is the question path's stage: it runs the checks on the scored trace and,
when one fails, ends it with the refusal that check names.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from abstain.align import (
    Focus,
    answer_type_check,
    coverage_check,
    entity_check,
    local_coverage_check,
    phrases,
)
from abstain.answer_confidence import AnswerConfidence, CheckLike, weigh
from abstain.confidence import DISTANCE_CEILING
from abstain.errors import ConfigError
from abstain.evidence import Evidence, RowVerdict
from abstain.mentions import Kind
from abstain.messages import refusal_message
from abstain.question import Question
from abstain.records import (
    AnswerFeatures,
    Check,
    CheckName,
    Refusal,
    RefusalReason,
    Stage,
    TermCounts,
)
from abstain.text import (
    as_written,
    compound_likes,
    content_words,
    holds_compound,
    stem,
    tokens,
)
from abstain.trace import Outcome, Trace, ms_since

if TYPE_CHECKING:
    from abstain.confidence import Calibration
    from abstain.embed import Embedder
    from abstain.rerank.reading import PairLogits, Reading


@dataclass(frozen=True, slots=True)
class GateThresholds:
    """The ask path's thresholds before any LLM call.

    ``distance_ceiling`` and ``chunk_filter`` act when retrieved chunks are scored, just
    before the gate (the ``evidence`` check reports the filter); the rest are the
    gate's checks.
    """

    chunk_filter: float = 25.0
    """Chunks below this confidence (0–100) are dropped from the context."""
    answer_gate: float = 40.0
    """Refuse when the mean confidence of the kept chunks is below this (0–100)."""
    distance_ceiling: float = DISTANCE_CEILING
    """Cosine distance at and beyond which a chunk's confidence is 0."""
    max_best_distance: float = 0.6
    """Refuse when even the best chunk is further than this (cosine distance)."""
    min_term_coverage: float = 0.2
    """Refuse when fewer than this share of the question's content terms occur in the evidence."""
    min_top_ratio: float | None = None
    """Refuse when the top hit does not stand out: top-1 / top-2 of the min-max normalised
    fused scores must reach this; None disables it."""
    min_confidence: float = 0.5
    """Refuse when the calibrated answer confidence is below this, unless the calibration
    in use carries a certified ``gate_threshold`` (``abstain calibrate --max-false-accept``):
    that one takes precedence, and the ``calibrated_confidence`` check says which applied."""
    min_informative_coverage: float = 0.5
    """Refuse when less than this share of the question's words, weighted by their rarity in
    the workspace, is present in the kept evidence."""
    min_passage_coverage: float = 0.4
    """Refuse when no passage (two consecutive sentences of one chunk, with its headings)
    holds this share of the question's weighted words."""
    check_answer_type: bool = True
    """Refuse a when / how many / who question whose evidence holds no date / number / name."""
    check_names: bool = True
    """Require capitalised names of the question (Kubernetes, GraphQL) to exist in the
    workspace."""
    min_answerability: float = 0.3
    """With a reader: refuse (``unanswerable``) when its probability that the kept evidence
    answers the question is below this (``presets.VETO``; 0.5 when the reading decides)."""
    min_reading_confidence: float | None = None
    """With a reader: None (the default), the reading only vetoes (``min_answerability``) and
    the confidence the question had unread, the answer confidence, decides the rest; a
    number, the reading decides: ``min_confidence`` for the confidence computed after reading
    (the reading calibration, fitted with the answerability feature; ``+reader`` presets,
    ``presets.READING_DECIDES``)."""
    min_answer_confidence: float | None = None
    """With the answer confidence on (:mod:`abstain.answer_confidence`, the default when no
    calibration file is given): answer at and above this P(right); None: the shipped
    model's certified threshold. The presets set theirs from the model's report."""
    min_quote_reading: float | None = 0.02
    """With a reader and the extractive answerer: refuse (``unanswerable``) when no sentence of
    the quote, nor the quote of any one page, reads as answering at this probability (the
    check ``quote_reading``, run on the answer after the gate:
    :meth:`abstain.generate.extractive.ExtractiveGenerator.read_back`); None: never. The
    pipeline gives it to the extractive answerer it builds; an ``ExtractiveGenerator`` you pass
    yourself runs the check only with its own ``min_quote_reading``."""
    waive_lexical_at: float | None = None
    """With a reader: at and above this answerability the word-level proxies of "the evidence
    answers it" (term, informative and passage coverage, answer type) are waived, since the
    reader read the evidence; None: the reader's answerability never waives them. (A best
    window that is a table row answering by its columns waives them whatever this is:
    :func:`_waived_by`.) Existence and retrieval checks stay."""

    @property
    def reading_decides(self) -> bool:
        """Whether, once the reader has read, the reading calibration's confidence decides
        (else the reading only vetoes below ``min_answerability``)."""
        return self.min_reading_confidence is not None

    def __post_init__(self) -> None:
        if not 0 <= self.chunk_filter <= 100 or not 0 <= self.answer_gate <= 100:
            raise ConfigError("chunk_filter and answer_gate are on a 0–100 scale")
        if not all(0 <= v <= 1 for v in (self.min_confidence, self.min_term_coverage,
                                          self.min_informative_coverage,
                                          self.min_answerability,
                                          self.min_reading_confidence or 0.0,
                                          self.min_quote_reading or 0.0)):
            raise ConfigError("min_confidence, min_term_coverage, min_informative_coverage, "
                              "min_answerability, min_reading_confidence and "
                              "min_quote_reading are in [0, 1]")


@dataclass(frozen=True, slots=True)
class GateInput:
    question: Question
    """The question read once (``question.text`` is its text)."""
    evidence: tuple[Evidence, ...]
    """After the chunk filter, curated first."""
    retrieved: tuple[Evidence, ...]
    """Everything retrieval returned, before the filter."""
    features: AnswerFeatures
    confidence: float
    known_identifiers: Callable[[], list[str]] = field(default=lambda: [])
    min_confidence: float | None = None
    """A calibration's certified ``gate_threshold``; when set it takes precedence over
    ``GateThresholds.min_confidence``."""
    focus: Focus | None = None
    """The question read against the workspace's statistics (``Store.term_counts``); when
    None, the retrieved chunks stand in for the workspace."""
    reading: Reading | None = None
    """The reader's reading of the kept evidence (``abstain.rerank.reading``), when one ran."""


Rule = Callable[[GateInput], Check | None]
"""A user rule: return a failing Check to refuse, or None / a passing Check to let it through."""


@dataclass(frozen=True, slots=True)
class GateResult:
    passed: bool
    checks: tuple[Check, ...]
    failed: Check | None
    suggestions: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    findings: tuple[tuple[CheckName, Finding | None], ...] = ()
    """Each row of :data:`CHECKS` with its finding before any waiver (None: it did not
    apply): a second evaluation with the reader's reading reuses those that do not read it."""


@dataclass(slots=True)
class _Scene:
    """What the checks of one evaluation share: the input, the thresholds, whether a curated
    document is kept, and the question read against the workspace (computed once)."""

    data: GateInput
    t: GateThresholds
    curated: bool
    _focus: Focus | None = None
    _coverage: tuple[Check, tuple[str, ...]] | None = None

    @property
    def focus(self) -> Focus:
        if self._focus is None:
            focus = self.data.focus or _local_focus(self.data.question, self.data.retrieved)
            self._focus = focus if self.t.check_names else _without_names(focus)
        return self._focus

    @property
    def coverage(self) -> tuple[Check, tuple[str, ...]]:
        """The informative coverage check and the words it found absent."""
        if self._coverage is None:
            self._coverage = coverage_check(self.focus, self.data.evidence,
                                            self.t.min_informative_coverage)
        return self._coverage


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's outcome, with what it found missing and any "did you mean" suggestions."""

    check: Check
    missing: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GateCheck:
    """One row of the gate's table: a check, the reasons it refuses with, and how it is run."""

    name: CheckName
    reasons: tuple[RefusalReason, ...]
    run: Callable[[_Scene], Finding | None]
    """None: the check does not apply (switched off, or nothing to read)."""
    curated_exempt: bool = False
    """A curated match passes it (:func:`curated_match`: an editor's answer to this very
    question)."""
    waivable: bool = False
    """A word-level stand-in for "the evidence answers the question", which a confident
    reading, or a table row that answers by its columns, outranks (:func:`_waived_by`)."""
    settled_without_reading: bool = False
    """A refusal no reading could overturn: the gate decides it before the reader runs."""
    reads: bool = False
    """It reads the reader's reading or the confidence computed with it: evaluated again
    once the evidence is read; every other check's finding is reused."""


def _evidence(c: _Scene) -> Finding:
    ev = c.data.evidence
    return Finding(Check(CheckName.EVIDENCE, bool(ev), len(ev), 1,
                         f"{len(ev)} of {len(c.data.retrieved)} retrieved chunks kept "
                         f"(chunk filter {c.t.chunk_filter:g})", RefusalReason.NO_EVIDENCE))


def _best_distance(c: _Scene) -> Finding:
    ev, t = c.data.evidence, c.t
    best = min((e.hit.vector_distance for e in ev if e.hit.vector_distance is not None),
               default=None)
    # The same bar on the 0–100 scale, so keyword evidence (an exact identifier or rare-term
    # match, scored by align.keyword_confidence) clears it as a close vector match would.
    bar = 100.0 * (1.0 - t.max_best_distance)
    strongest = max((e.confidence or 0.0 for e in ev), default=0.0)
    close = best is not None and best <= t.max_best_distance
    return Finding(Check(CheckName.BEST_DISTANCE, close or strongest >= bar, best,
                         t.max_best_distance,
                         "best cosine distance" + ("" if close or strongest < bar else
                                                   f"; keyword evidence {strongest:g}/100 "
                                                   f"clears {bar:g}"),
                         RefusalReason.WEAK_EVIDENCE))


def _answer_gate(c: _Scene) -> Finding:
    # a curated match is exempt and its chunks are left out; any other curated page is a
    # page like the others, its confidence counted (left out, a curated page that was the
    # only good evidence averaged to 0)
    kept = [e.confidence for e in c.data.evidence
            if e.confidence is not None and not (c.curated and e.document.curated)]
    mean = sum(kept) / len(kept) if kept else 0.0
    return Finding(Check(CheckName.ANSWER_GATE, mean >= c.t.answer_gate, round(mean, 1),
                         c.t.answer_gate, "mean chunk confidence (0–100)",
                         RefusalReason.LOW_CONFIDENCE))


def _term_coverage(c: _Scene) -> Finding:
    features = c.data.features
    missing = features.missing_terms
    return Finding(Check(CheckName.TERM_COVERAGE, features.term_coverage >= c.t.min_term_coverage,
                         features.term_coverage, c.t.min_term_coverage,
                         "missing: " + ", ".join(missing) if missing else "all terms found",
                         RefusalReason.LOW_COVERAGE), missing)


def _entity_existence(c: _Scene) -> Finding:
    verdict = entity_check(c.focus, c.data.evidence, c.data.known_identifiers)
    return Finding(verdict.check, verdict.missing,
                   verdict.suggestions if not verdict.check.passed else ())


def _informative_coverage(c: _Scene) -> Finding:
    check, absent = c.coverage
    return Finding(check, absent)


def _passage_coverage(c: _Scene) -> Finding:
    check = local_coverage_check(c.focus, c.data.evidence, c.t.min_passage_coverage)
    return Finding(check, c.coverage[1])


def _answer_type(c: _Scene) -> Finding | None:
    return Finding(answer_type_check(c.focus, c.data.evidence)) if c.t.check_answer_type else None


def _top_ratio(c: _Scene) -> Finding | None:
    if c.t.min_top_ratio is None:
        return None
    return Finding(_ratio_check(c.data.retrieved, c.t.min_top_ratio))


def _answerability(c: _Scene) -> Finding | None:
    reading, t = c.data.reading, c.t
    if reading is None:
        return None
    p = reading.answerability
    how_read = ("" if reading.by_columns is None else
                f"; the best window is a table row read by its columns: {reading.by_columns}")
    if reading.states_default:
        how_read = "; the best window states the default asked for (read by its form)"
    return Finding(Check(CheckName.ANSWERABILITY, p >= t.min_answerability, p,
                         t.min_answerability,
                         f"{reading.model}: best of {reading.windows_read} sentence windows of "
                         f"{reading.chunks_read} kept chunks (chunk {reading.chunk + 1}; the "
                         f"time in timings_ms.read_ms){how_read}", RefusalReason.UNANSWERABLE))


def _calibrated_confidence(c: _Scene) -> Finding:
    data, t = c.data, c.t
    reading_floor = None if data.reading is None else t.min_reading_confidence
    own = t.min_confidence if reading_floor is None else reading_floor
    floor = own if data.min_confidence is None else data.min_confidence
    source = ("the calibration's certified gate_threshold" if data.min_confidence is not None
              else "GateThresholds.min_confidence" if reading_floor is None
              else "GateThresholds.min_reading_confidence")
    return Finding(Check(CheckName.CALIBRATED_CONFIDENCE, data.confidence >= floor,
                         round(data.confidence, 4), floor,
                         "logistic over " + ", ".join(
                             f"{k}={v:.2f}" for k, v in data.features.as_dict().items())
                         + f"; threshold from {source}", RefusalReason.LOW_CONFIDENCE))


CHECKS: tuple[GateCheck, ...] = (
    GateCheck(CheckName.EVIDENCE, (RefusalReason.NO_EVIDENCE,), _evidence,
              settled_without_reading=True),
    # before the retrieval-strength checks: "Madrid was not found in the documents" says
    # more than "not enough information" when both hold
    GateCheck(CheckName.ENTITY_EXISTENCE,
              (RefusalReason.UNKNOWN_ENTITY, RefusalReason.ENTITY_NOT_IN_EVIDENCE),
              _entity_existence, settled_without_reading=True),
    GateCheck(CheckName.BEST_DISTANCE, (RefusalReason.WEAK_EVIDENCE,), _best_distance,
              curated_exempt=True, settled_without_reading=True),
    GateCheck(CheckName.ANSWER_GATE, (RefusalReason.LOW_CONFIDENCE,), _answer_gate,
              curated_exempt=True, settled_without_reading=True),
    GateCheck(CheckName.TERM_COVERAGE, (RefusalReason.LOW_COVERAGE,), _term_coverage,
              curated_exempt=True, waivable=True),
    GateCheck(CheckName.INFORMATIVE_COVERAGE, (RefusalReason.LOW_COVERAGE,),
              _informative_coverage, curated_exempt=True, waivable=True),
    GateCheck(CheckName.PASSAGE_COVERAGE, (RefusalReason.LOW_COVERAGE,), _passage_coverage,
              curated_exempt=True, waivable=True),
    GateCheck(CheckName.ANSWER_TYPE, (RefusalReason.ANSWER_TYPE_MISSING,), _answer_type,
              waivable=True),
    GateCheck(CheckName.TOP_RATIO, (RefusalReason.NO_CLEAR_WINNER,), _top_ratio,
              settled_without_reading=True),
    # the reader reads a window after a title that repeats the question as a poor answer
    # (0.07 for "How do I connect to the VPN?" over its own curated answer, 0.58 read plain)
    GateCheck(CheckName.ANSWERABILITY, (RefusalReason.UNANSWERABLE,), _answerability,
              curated_exempt=True, reads=True),
    GateCheck(CheckName.CALIBRATED_CONFIDENCE, (RefusalReason.LOW_CONFIDENCE,),
              _calibrated_confidence, curated_exempt=True, reads=True),
)
"""The gate's checks, in the order they run (docs/SCHEMA.md's table is kept in step with
it by a test); user rules run after them."""

WAIVABLE = frozenset(c.name for c in CHECKS if c.waivable)
"""Word-level stand-ins for "the evidence answers the question", which a confident reader
or a table row answering by its columns outranks; the checks that something exists, or was
retrieved closely enough, are not."""
SETTLED_WITHOUT_READING = frozenset(c.name for c in CHECKS if c.settled_without_reading)
"""Refusals a reading could not overturn: the gate decides them before the reader runs, so
they cost nothing extra."""
CURATED = " (curated match: exempt)"


SAME_QUESTION = 0.6
"""Jaccard overlap of content-word stems at which a curated page's title asks the question
("How do I connect to the VPN from home?" and the title "How do I connect to the VPN?";
not "How do I disconnect from the VPN?")."""


def asks_the_same(question: str, title: str) -> bool:
    """Whether a curated page titled ``title`` is the editor's answer to ``question``."""
    asked, titled = ({stem(w) for w in content_words(text)} for text in (question, title))
    return bool(asked and titled) and len(asked & titled) / len(asked | titled) >= SAME_QUESTION


def is_curated_match(question: str, evidence: Evidence) -> bool:
    """A curated page whose title asks ``question`` (:func:`asks_the_same`): the answer an
    editor wrote for it, which passes the confidence, coverage and reading checks. A curated
    page kept for a neighbouring question is judged like any other (the "web admin console"
    port, not in the ports Q&A, was answered `confident` through it)."""
    return evidence.document.curated and asks_the_same(question, evidence.document.title)


def curated_match(question: str, evidence: Sequence[Evidence]) -> bool:
    """Whether the kept evidence holds a curated match (:func:`is_curated_match`)."""
    return any(is_curated_match(question, e) for e in evidence)


def settled_before_reading(failing: Collection[str]) -> bool:
    """Whether these failing checks (names) decide without a reading: one that no reading can
    overturn, or a user rule. The gate then refuses without reading."""
    return (not SETTLED_WITHOUT_READING.isdisjoint(failing)
            or any(n.startswith("rule:") for n in failing))


class Gate:
    def __init__(self, thresholds: GateThresholds | None = None,
                 rules: Sequence[tuple[str, Rule]] = (),
                 answer_confidence: AnswerConfidence | None = None) -> None:
        self.thresholds = thresholds or GateThresholds()
        self.rules = list(rules)
        self.answer_confidence = answer_confidence
        """When set, the confidence check decides on its P(right), computed from every other
        check (:func:`abstain.answer_confidence.weigh`); not once the reader has read with
        thresholds where the reading decides (the reading calibration decides then)."""

    def weigh(self, result: GateResult, data: GateInput) -> tuple[GateResult, float]:
        """The verdict with :attr:`answer_confidence` deciding, and the confidence."""
        model = self.answer_confidence
        if model is None or (data.reading is not None and self.thresholds.reading_decides):
            return result, data.confidence
        threshold = self.thresholds.min_answer_confidence
        checks, p = weigh(result.checks, data.features.as_dict(), model,
                          model.threshold if threshold is None else threshold,
                          curated=curated_match(data.question.text, data.evidence),
                          source="the answer confidence's certified threshold"
                          if threshold is None else "GateThresholds.min_answer_confidence",
                          at_least=row_lookup(data.reading))
        failed = deciding(checks)
        return replace(result, passed=failed is None, checks=checks, failed=failed), p

    def evaluate(self, data: GateInput, earlier: GateResult | None = None) -> GateResult:
        """Run :data:`CHECKS` in order, then the user rules; the first failing check decides.

        ``earlier``: this question's evaluation before its evidence was read; its findings
        are reused but for the checks that read the reading (:attr:`GateCheck.reads`)."""
        t = self.thresholds
        scene = _Scene(data, t, curated_match(data.question.text, data.evidence))
        waived = _waived_by(data.reading, t)
        reused = dict(earlier.findings) if earlier is not None else {}
        ran: list[tuple[CheckName, Finding | None]] = []
        findings: list[Finding] = []
        for row in CHECKS:
            finding = (reused[row.name] if row.name in reused and not row.reads
                       else row.run(scene))
            ran.append((row.name, finding))
            if finding is None:
                continue
            check = finding.check
            if row.curated_exempt and scene.curated and not check.passed:
                check = replace(check, passed=True, detail=check.detail + CURATED)
            elif row.waivable and waived and not check.passed:
                check = replace(check, passed=True, detail=f"{check.detail} (waived: {waived})")
            findings.append(replace(finding, check=check))
        for name, rule in self.rules:
            result = rule(data)
            if result is not None:
                findings.append(Finding(Check(f"rule:{name}", result.passed, result.value,
                                              result.threshold, result.detail,
                                              result.reason or f"rule:{name}")))
        checks = tuple(f.check for f in findings)
        failed = deciding(checks)
        # What the question asks about that the evidence lacks: the deciding check's own
        # findings first, else the first other check that found something missing.
        failing = [f for f in findings if not f.check.passed]
        missing = next((f.missing for f in failing if f.missing), ())
        suggestions = next((f.suggestions for f in failing if f.suggestions), ())
        return GateResult(failed is None, checks, failed, suggestions, missing, tuple(ran))


V = TypeVar("V", bound=CheckLike)


def deciding(checks: Sequence[V]) -> V | None:
    """The check whose refusal is given: the first that failed, but a name nowhere in the
    workspace (``unknown_entity``) outranks "nothing kept" (``no_evidence``), which it
    explains: "Zorblax was not found in the documents", with suggestions. (Also what an
    ``--answer-all`` record's verdicts replay to: :func:`abstain.evaluate.answer_all.
    first_failing`.)"""
    failed = next((c for c in checks if not c.passed), None)
    if failed is not None and failed.name == CheckName.EVIDENCE:
        return next((c for c in checks if c.name == CheckName.ENTITY_EXISTENCE
                     and not c.passed and c.reason == RefusalReason.UNKNOWN_ENTITY), failed)
    return failed


def _waived_by(reading: Reading | None, t: GateThresholds) -> str | None:
    """Why the word-level checks of whether the evidence answers are waived, or None: the
    reader reads an answer (answerability at ``waive_lexical_at``), or the best window is a
    table row whose columns answer — which column a question asks for is read there, by
    name or by meaning, better than by the words it shares with the row — or it states the
    asked name's default (:mod:`abstain.rerank.defaults`), a field read by its form."""
    if reading is None:
        return None
    if reading.by_columns == RowVerdict.ANSWERS:
        return "the best window is a table row that answers by its columns"
    if reading.states_default:
        return "the best window states the default the question asks for"
    if t.waive_lexical_at is not None and reading.answerability >= t.waive_lexical_at:
        return (f"the reader reads an answer, answerability {reading.answerability:.2f} >= "
                f"{t.waive_lexical_at:g}")
    return None


def row_lookup(reading: Reading | None) -> tuple[float, str] | None:
    """What an answer whose best window is a table row that answers by its columns states
    at least (:data:`abstain.rerank.rows.ANSWERED_RIGHT`), and why; None otherwise."""
    from abstain.rerank.rows import ANSWERED_RIGHT

    if reading is None or reading.by_columns != RowVerdict.ANSWERS:
        return None
    return ANSWERED_RIGHT, "the best window is a table row that answers by its columns"


def gate_with_reading(checker: Gate, calibration: Calibration | None, reader: PairLogits | None,
                      data: GateInput, *, embedder: Embedder | None = None
                      ) -> tuple[GateResult, GateInput]:
    """The gate's verdict, with the reader's reading when it can matter.

    A question the gate refuses on a check no reading overturns (nothing retrieved, nothing
    close, a name that is not there, a user rule) is not read. Otherwise the kept evidence is
    read, the answerability joins the features and, where the thresholds let the reading
    decide, ``calibration`` (fitted with that feature; None: the shipped
    ``calibration-reading.json``) gives the confidence (else the confidence stays and the
    reading only vetoes). The gate decides again with the reading: the checks that read it
    are run again, the others' findings reused.
    """
    if reader is not None and data.focus is None:  # read once, by the checks and the reader
        data = replace(data, focus=_local_focus(data.question, data.retrieved))
    result = checker.evaluate(data)
    if reader is None:
        return result, data
    if settled_before_reading({c.name for c in result.checks if not c.passed}):
        return result, data
    from abstain.rerank.reading import read_evidence  # numpy: only when a reader runs

    reading = read_evidence(reader, data.question, data.evidence, embedder=embedder,
                            focus=data.focus)
    if reading is None:
        return result, data
    features = replace(data.features, answerability=reading.answerability)
    if not checker.thresholds.reading_decides:  # the reading vetoes; the confidence stays
        data = replace(data, features=features, reading=reading)
        return checker.evaluate(data, earlier=result), data
    if calibration is None:
        from abstain.confidence import default_calibration

        calibration = default_calibration(reading=True)
    data = replace(data, features=features, confidence=calibration.confidence(features),
                   min_confidence=calibration.gate_threshold, reading=reading)
    return checker.evaluate(data, earlier=result), data


def gate(trace: Trace, checker: Gate, *, min_confidence: float | None,
         known_identifiers: Callable[[], list[str]], reader: PairLogits | None = None,
         reading_calibration: Calibration | None = None,
         answering_first: bool | None = None, embedder: Embedder | None = None) -> Trace:
    """The gate stage: the scored trace passes (its evidence goes to the generator) or ends
    in the refusal of the first failing check; an ended trace passes through.

    ``min_confidence`` is a calibration's certified threshold (None: the thresholds' own);
    ``known_identifiers`` lists the workspace's identifiers, read only when needed. With a
    ``reader``, a question no check has settled is read (:mod:`abstain.rerank.reading`); where
    the thresholds let the reading decide, its confidence comes from ``reading_calibration``.
    ``answering_first``: the read evidence goes on with the chunk holding the reader's best
    window first (what an LLM generator reads first); None: only where the reading decides
    (the extractive answerer of a vetoing reading keeps the retrieval order, which its word
    overlap weighs).
    """
    if trace.ended:
        return trace
    assert trace.features is not None and trace.parsed is not None
    started = time.perf_counter()
    result, gated = gate_with_reading(checker, reading_calibration, reader, GateInput(
        question=trace.parsed, evidence=trace.evidence, retrieved=trace.retrieved,
        features=trace.features, confidence=trace.confidence, min_confidence=min_confidence,
        known_identifiers=known_identifiers, focus=trace.focus), embedder=embedder)
    result, confidence = checker.weigh(result, gated)
    timings: tuple[tuple[str, float], ...] = (("gate_ms", ms_since(started)),)
    trace = replace(trace, confidence=confidence)
    if gated.reading is not None:
        timings = (("read_ms", gated.reading.ms), *timings)
        trace = replace(trace, features=gated.features)
    stage = Stage("gate", timings_ms=timings, checks=result.checks)
    if result.failed is None:
        if gated.reading is not None:
            # the answer may quote what the reader found answering; a reading that only vetoes
            # leaves the evidence in its order for the extractive answerer (docs/EVALUATION.md,
            # "The reader on by default")
            first = (checker.thresholds.reading_decides if answering_first is None
                     else answering_first)
            return trace.then(stage, given_to_generator=True, evidence=gated.reading.annotate(
                trace.evidence, best_first=first))
        return trace.then(stage, given_to_generator=True)
    reason = result.failed.reason or result.failed.name
    asked = trace.parsed.text if trace.parsed is not None else ""
    result = replace(result, missing=tuple(as_written(asked, w) for w in result.missing))
    refusal = Refusal(reason, refusal_message(reason, trace.language,
                                              **refusal_fields(reason, result)),
                      result.suggestions, result.missing)
    # Nothing kept: the answer shows what was retrieved.
    return trace.end(Outcome(refusal), stage,
                     evidence=trace.evidence or trace.retrieved)


MAX_NAMED_TERMS = 4
"""A ``low_coverage`` refusal names at most this many missing terms."""


def refusal_fields(reason: str, result: GateResult) -> dict[str, object]:
    """What the refusal message names: the entities, the missing terms, the asked type."""
    if reason in (RefusalReason.UNKNOWN_ENTITY,
                  RefusalReason.ENTITY_NOT_IN_EVIDENCE) and result.missing:
        return {"entity": ", ".join(result.missing)}
    if reason == RefusalReason.LOW_COVERAGE and result.missing:
        more = len(result.missing) > MAX_NAMED_TERMS  # the check's detail lists them all
        return {"terms": ", ".join(result.missing[:MAX_NAMED_TERMS]) + (", …" if more else "")}
    if reason == RefusalReason.ANSWER_TYPE_MISSING and result.failed is not None:
        return {"kind": result.failed.threshold}
    return {}


def _local_focus(question: Question, retrieved: tuple[Evidence, ...]) -> Focus:
    """Without workspace statistics, the retrieved chunks stand in for the workspace."""
    chunk_words = [set(tokens(e.labelled_text)) for e in retrieved]
    counts = {}
    for phrase in phrases(question):
        words = tokens(phrase)
        counts[phrase] = (sum(holds_compound(phrase, e.labelled_text) for e in retrieved)
                          if compound_likes(phrase) else
                          sum(all(w in have for w in words) for have in chunk_words))
    return Focus.of(question, TermCounts(len(retrieved), counts))


def _without_names(focus: Focus) -> Focus:
    question = focus.question
    kept = tuple(m for m in question.mentions if m.kind is not Kind.NAME)
    return replace(focus, question=replace(question, mentions=kept))


def _ratio_check(evidence: tuple[Evidence, ...], threshold: float) -> Check:
    """Min-max normalise the fused scores over all retrieved hits, then top-1 / top-2.

    Raw RRF scores sit in a narrow band (at most 2/(k+1)), so their plain ratio
    almost never clears 1.2; normalising first makes a ratio threshold usable.
    """
    if len(evidence) < 3:
        return Check(CheckName.TOP_RATIO, True, None, threshold, "fewer than three hits",
                     RefusalReason.NO_CLEAR_WINNER)
    scores = sorted((e.hit.fused_score for e in evidence), reverse=True)
    low, span = scores[-1], scores[0] - scores[-1]
    if span <= 0:
        return Check(CheckName.TOP_RATIO, False, 1.0, threshold, "all hits tie",
                     RefusalReason.NO_CLEAR_WINNER)
    second = (scores[1] - low) / span
    ratio = float("inf") if second == 0 else 1.0 / second
    return Check(CheckName.TOP_RATIO, ratio >= threshold, round(min(ratio, 1e6), 4), threshold,
                 "top-1 / top-2 of min-max normalised fused scores", RefusalReason.NO_CLEAR_WINNER)
