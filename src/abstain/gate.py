"""The gate: an ordered list of named checks run before any LLM call.

Each check returns a :class:`~abstain.answer.Check` (passed, value,
threshold, detail). The first failing check decides the refusal reason; all
checks are still reported so ``--debug`` shows the whole picture.

Curated documents (front matter ``curated: true``) rank first and are exempt
from the confidence checks when one of them is a close match, as in seed 000;
the entity check still applies to them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from abstain.answer import Check
from abstain.confidence import DISTANCE_CEILING, AnswerFeatures
from abstain.evidence import Evidence
from abstain.identifiers import (
    find_identifiers,
    find_names,
    name_in,
    nearest,
    normalise_identifier,
    occurs_in,
)
from abstain.query import tokens


@dataclass(frozen=True, slots=True)
class GateThresholds:
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
    """Seed 002's top-1/top-2 ratio on normalised fused scores; None disables it."""
    min_confidence: float = 0.5
    """Refuse when the calibrated answer confidence is below this."""
    check_names: bool = True
    """Treat capitalised names in the question (Kubernetes, GraphQL) like identifiers."""

    def __post_init__(self) -> None:
        if not 0 <= self.chunk_filter <= 100 or not 0 <= self.answer_gate <= 100:
            raise ValueError("chunk_filter and answer_gate are on a 0–100 scale")
        if not 0 <= self.min_confidence <= 1 or not 0 <= self.min_term_coverage <= 1:
            raise ValueError("min_confidence and min_term_coverage are in [0, 1]")


@dataclass(frozen=True, slots=True)
class GateInput:
    question: str
    evidence: tuple[Evidence, ...]
    """After the chunk filter, curated first."""
    retrieved: tuple[Evidence, ...]
    """Everything retrieval returned, before the filter."""
    features: AnswerFeatures
    confidence: float
    known_identifiers: Callable[[], list[str]] = field(default=lambda: [])
    min_confidence: float | None = None
    """Overrides ``GateThresholds.min_confidence`` (a calibration file's certified threshold)."""


Rule = Callable[[GateInput], Check | None]
"""A user rule: return a failing Check to refuse, or None / a passing Check to let it through."""


@dataclass(frozen=True, slots=True)
class GateResult:
    passed: bool
    checks: tuple[Check, ...]
    failed: Check | None
    suggestions: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


class Gate:
    def __init__(self, thresholds: GateThresholds | None = None,
                 rules: Sequence[tuple[str, Rule]] = ()) -> None:
        self.thresholds = thresholds or GateThresholds()
        self.rules = list(rules)

    def evaluate(self, data: GateInput) -> GateResult:
        t = self.thresholds
        ev = data.evidence
        curated = any(e.document.curated for e in ev)
        exempt = " (curated match: exempt)" if curated else ""
        checks: list[Check] = []
        suggestions: tuple[str, ...] = ()
        missing: tuple[str, ...] = ()

        checks.append(Check("evidence", bool(ev), len(ev), 1,
                            f"{len(ev)} of {len(data.retrieved)} retrieved chunks kept "
                            f"(chunk filter {t.chunk_filter:g})", "no_evidence"))
        best = min((e.hit.vector_distance for e in ev if e.hit.vector_distance is not None),
                   default=None)
        checks.append(Check("best_distance", curated or (best is not None and
                                                          best <= t.max_best_distance),
                            best, t.max_best_distance, "best cosine distance" + exempt,
                            "weak_evidence"))
        kept = [e.confidence for e in ev if e.confidence is not None and not e.document.curated]
        mean = sum(kept) / len(kept) if kept else 0.0
        checks.append(Check("answer_gate", curated or mean >= t.answer_gate, round(mean, 1),
                            t.answer_gate, "mean chunk confidence (0–100)" + exempt,
                            "low_confidence"))
        coverage = data.features.term_coverage
        passed_cov = curated or coverage >= t.min_term_coverage
        if not passed_cov:
            missing = data.features.missing_terms
        checks.append(Check("term_coverage", passed_cov, coverage, t.min_term_coverage,
                            "missing: " + ", ".join(data.features.missing_terms)
                            if data.features.missing_terms else "all terms found",
                            "low_coverage"))
        entity = self._entities(data)
        checks.append(entity[0])
        if not entity[0].passed:
            suggestions, missing = entity[1], entity[2]
        if t.min_top_ratio is not None:
            checks.append(_ratio_check(data.retrieved, t.min_top_ratio))
        floor = t.min_confidence if data.min_confidence is None else data.min_confidence
        checks.append(Check("calibrated_confidence", curated or data.confidence >= floor,
                            round(data.confidence, 4), floor,
                            "logistic over " + ", ".join(
                                f"{k}={v:.2f}" for k, v in data.features.as_dict().items())
                            + exempt, "low_confidence"))
        for name, rule in self.rules:
            result = rule(data)
            if result is not None:
                checks.append(Check(f"rule:{name}", result.passed, result.value,
                                    result.threshold, result.detail,
                                    result.reason or f"rule:{name}"))
        failed = next((c for c in checks if not c.passed), None)
        return GateResult(failed is None, tuple(checks), failed, suggestions, missing)

    def _entities(self, data: GateInput) -> tuple[Check, tuple[str, ...], tuple[str, ...]]:
        wanted = find_identifiers(data.question, quoted=True)
        names: list[str] = []
        if self.thresholds.check_names:
            names = [n for n in find_names(data.question)
                     if not any(n in w or w in n for w in wanted)]
            wanted += names
        if not wanted:
            return Check("entity_existence", True, "none", "all present",
                         "no identifiers in the question", "unknown_entity"), (), ()
        haystack = "\n".join(
            f"{e.document.title}\n{' '.join(e.chunk.heading_path)}\n{e.text}\n{e.parent_text}"
            for e in data.retrieved)
        words = set(tokens(haystack))
        absent = [w for w in wanted
                  if not (name_in(w, words) if w in names else occurs_in(w, haystack))]
        if not absent:
            return Check("entity_existence", True, ", ".join(wanted), "all present",
                         "found in evidence", "unknown_entity"), (), ()
        known = data.known_identifiers()
        known_norm = {normalise_identifier(k) for k in known}
        elsewhere = [a for a in absent if normalise_identifier(a) in known_norm]
        if len(elsewhere) == len(absent):
            return (Check("entity_existence", False, ", ".join(absent), "all present",
                          f"{', '.join(absent)} exist in the workspace but not in the retrieved "
                          "evidence", "entity_not_in_evidence"), (), tuple(absent))
        absent = [a for a in absent if a not in elsewhere]
        suggestions = tuple(dict.fromkeys(
            s for a in absent if find_identifiers(a, quoted=False) for s in nearest(a, known)))
        detail = f"not found: {', '.join(absent)}"
        if suggestions:
            detail += f"; did you mean {', '.join(suggestions)}?"
        return (Check("entity_existence", False, ", ".join(absent), "all present", detail,
                      "unknown_entity"), suggestions, tuple(absent))


def _ratio_check(evidence: tuple[Evidence, ...], threshold: float) -> Check:
    """Min-max normalise the fused scores over all retrieved hits, then top-1 / top-2.

    Raw RRF scores sit in a narrow band (at most 2/(k+1)), so their plain ratio
    almost never clears 1.2; normalising first makes the seed's threshold usable.
    """
    if len(evidence) < 3:
        return Check("top_ratio", True, None, threshold, "fewer than three hits",
                     "no_clear_winner")
    scores = sorted((e.hit.fused_score for e in evidence), reverse=True)
    low, span = scores[-1], scores[0] - scores[-1]
    if span <= 0:
        return Check("top_ratio", False, 1.0, threshold, "all hits tie", "no_clear_winner")
    second = (scores[1] - low) / span
    ratio = float("inf") if second == 0 else 1.0 / second
    return Check("top_ratio", ratio >= threshold, round(min(ratio, 1e6), 4), threshold,
                 "top-1 / top-2 of min-max normalised fused scores", "no_clear_winner")
