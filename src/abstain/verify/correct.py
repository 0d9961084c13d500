"""Surgical correction: from sentence verdicts to the verified answer.

Unsupported sentences leave the text and are listed in ``unsupported_claims``
(at ``loose`` strictness they stay in the text and are still listed). A failed
citation — one pointing at no retrieved source, or at a source that does not
contain the claim — marks the answer ``verification_failed`` for triage; the
corrected answer is still returned unless faithfulness falls below the
strictness threshold. With no claim left the answer is refused (``unsupported``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from abstain.evidence import Evidence
from abstain.generate.prompts import RERANK_MAX
from abstain.records import Check, CheckName, Citation, RefusalReason
from abstain.text import truncate
from abstain.verify.faithfulness import Strictness, describe, faithfulness
from abstain.verify.sentences import SentenceVerdict


@dataclass(frozen=True, slots=True)
class Verification:
    kept: tuple[SentenceVerdict, ...]
    unsupported_claims: tuple[str, ...]
    checks: tuple[Check, ...]
    faithfulness: float
    components: dict[str, float | None]
    citation_failed: bool
    refusal: str | None
    """``unsupported`` (no claim left), ``low_faithfulness`` or None."""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def citations(self, evidence: Sequence[Evidence]) -> tuple[Citation, ...]:
        seen: dict[int, Citation] = {}
        for verdict in self.kept:
            quotes = dict(verdict.quotes)
            for n in verdict.cites:
                if n not in seen and 1 <= n <= len(evidence):
                    ev = evidence[n - 1]
                    seen[n] = Citation(n, ev.source, ev.chunk_id,
                                       quotes.get(n) or verdict.sentence.text, ev.document.title)
        return tuple(seen[n] for n in sorted(seen))


def keeps(verdict: SentenceVerdict, strictness: Strictness) -> bool:
    """Whether the sentence appears in the answer text (and may be streamed)."""
    if verdict.question:
        return False
    return verdict.supported or not strictness.corrects


def conclude(verdicts: Sequence[SentenceVerdict], evidence: Sequence[Evidence], *,
             strictness: Strictness, verifier: str, threshold: float, logprob: float | None,
             fallback_confidence: float, llm_reranked: bool = False) -> Verification:
    claims = [v for v in verdicts if not v.question]
    kept = tuple(v for v in claims if keeps(v, strictness))
    unsupported = tuple(v.sentence.text for v in claims if not v.supported)
    citation_failed = any(v.citation_failed for v in claims)
    notes: list[str] = []
    if not strictness.corrects and unsupported:
        notes.append("strictness loose: unsupported sentences were left in the text")
    notes.extend(f"sentence {i} had no [n]; the verifier cited [{v.cites[0]}]"
                 for i, v in enumerate(claims, start=1) if v.auto_cited)
    checks = [_citation_check(claims), Check(
        CheckName.SUPPORT, not unsupported, len(unsupported), 0,
        f"{len(claims) - len(unsupported)} of {len(claims)} sentences supported "
        f"({verifier} verifier, threshold {threshold:g})", RefusalReason.UNSUPPORTED)]
    if not kept:
        score, components = faithfulness(0.0, 0.0, logprob, 0.0)
        checks.append(Check(CheckName.FAITHFULNESS, False, score, strictness.threshold,
                            "no supported sentence left", RefusalReason.UNSUPPORTED))
        return Verification((), unsupported, tuple(checks), score, components,
                            citation_failed, RefusalReason.UNSUPPORTED, tuple(notes))
    support = sum(v.support for v in kept) / len(kept)
    retrieval = _retrieval(kept, evidence, fallback_confidence, llm_reranked)
    kept_share = sum(v.supported for v in kept) / len(claims)
    score, components = faithfulness(support, retrieval, logprob, kept_share)
    passed = score >= strictness.threshold
    checks.append(Check(CheckName.FAITHFULNESS, passed, score, strictness.threshold,
                        f"{describe(components)}; strictness {strictness.value}",
                        RefusalReason.LOW_FAITHFULNESS))
    return Verification(kept, unsupported, tuple(checks), score, components, citation_failed,
                        None if passed else RefusalReason.LOW_FAITHFULNESS, tuple(notes))


def _retrieval(kept: Sequence[SentenceVerdict], evidence: Sequence[Evidence],
               fallback: float, llm_reranked: bool) -> float:
    values: list[float] = []
    for n in dict.fromkeys(n for v in kept for n in v.cites):
        if not 1 <= n <= len(evidence):
            continue
        ev = evidence[n - 1]
        if llm_reranked and ev.rerank_score is not None:
            values.append(ev.rerank_score / RERANK_MAX)
        elif ev.confidence is not None:
            values.append(ev.confidence / 100)
        else:
            values.append(fallback)
    return sum(values) / len(values) if values else fallback


def _citation_check(claims: Sequence[SentenceVerdict]) -> Check:
    problems: list[str] = []
    total = sum(len(v.sentence.cites) for v in claims)
    for v in claims:
        quoted = truncate(v.sentence.text, 60)
        problems.extend(f"[{n}] points at no retrieved source ({quoted!r})" for n in v.outside)
        problems.extend(f"[{n}] does not contain {quoted!r}" for n in v.not_found)
    failed = sum(len(v.outside) + len(v.not_found) for v in claims)
    detail = "; ".join(problems) if problems else f"all {total} citations hold"
    return Check(CheckName.CITATIONS, not problems, failed, 0, detail,
                 RefusalReason.VERIFICATION_FAILED)
