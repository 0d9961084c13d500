"""The score stage: each retrieved chunk's confidence, the evidence kept, the answer confidence.

* a chunk's confidence (0–100) is the better of its cosine distance
  (:func:`abstain.confidence.chunk_confidence`) and its keyword evidence
  (:func:`abstain.align.keyword_confidence`);
* curated matches (a curated page whose title asks the question) come first and are exempt
  from the chunk filter; other curated pages come next, and they and the rest must reach it;
* a word of the question that misspells a word of the retrieved evidence is read as that
  word from here on ("pasword": :mod:`abstain.align.spelling`; the stage's notes say so);
* a question that names identifiers keeps the chunks that hold them, one that names a
  one-letter flag (``grep -l``) has those that define it first
  (:func:`abstain.align.focus_evidence`), else the filtered top k;
* the calibrated answer confidence reads retrieval-level features of the filtered top k,
  as it was fitted; the gate's alignment checks read the kept evidence.
"""

from __future__ import annotations

import time

from abstain.align import Focus, focus_evidence, keyword_confidence, phrases
from abstain.align.spelling import corrected, misspellings
from abstain.confidence import Calibration, answer_features, chunk_confidence
from abstain.evidence import Evidence
from abstain.gate import GateThresholds, is_curated_match
from abstain.question import Question
from abstain.records import Stage
from abstain.stores.base import Store
from abstain.trace import Trace, ms_since


def score(trace: Trace, store: Store, thresholds: GateThresholds, calibration: Calibration, *,
          top_k: int, rrf_k: int, published_only: bool) -> Trace:
    """Score the trace's hits; an ended trace passes through. Its time counts in
    ``gate_ms``."""
    if trace.ended:
        return trace
    assert trace.parsed is not None
    started = time.perf_counter()
    question = trace.parsed
    focus = Focus.of(question, store.term_counts(trace.workspace, phrases(question),
                                                 published_only=published_only))
    fixes = misspellings(focus, (e.labelled_text for e in trace.hits[:top_k]))
    if fixes:  # read as the evidence spells it: every check and the reader read it so
        question = Question.parse(corrected(question.text, fixes), question.language)
        focus = Focus.of(question, store.term_counts(trace.workspace, phrases(question),
                                                     published_only=published_only))
    every = tuple(
        e.with_scores(confidence=max(
            chunk_confidence(e.hit.vector_distance, thresholds.distance_ceiling),
            keyword_confidence(focus, e)))
        for e in trace.hits
    )
    scored = every[:top_k]
    filtered = curated_first_and_filtered(scored, thresholds.chunk_filter, question.text)
    held = focus_evidence(focus, curated_first_and_filtered(every, thresholds.chunk_filter,
                                                            question.text))
    features = answer_features(question, filtered or scored, rrf_k=rrf_k)
    notes = tuple(f"read {wrong!r} as {right!r}, a misspelling of the retrieved evidence's "
                  "word" for wrong, right in fixes.items())
    return trace.then(Stage("score", timings_ms=(("gate_ms", ms_since(started)),), notes=notes),
                      retrieved=scored, evidence=held[:top_k] or filtered, focus=focus,
                      features=features, confidence=calibration.confidence(features),
                      parsed=question)


def curated_first_and_filtered(evidence: tuple[Evidence, ...], chunk_filter: float,
                               question: str) -> tuple[Evidence, ...]:
    """Curated matches first (a curated page whose title asks ``question``: exempt from the
    filter), then the other curated pages and the rest, each above the filter."""
    matches = [e for e in evidence if (e.confidence or 0) > 0 and is_curated_match(question, e)]
    passing = [e for e in evidence if e not in matches and (e.confidence or 0) >= chunk_filter]
    return tuple(matches + sorted(passing, key=lambda e: not e.document.curated))
