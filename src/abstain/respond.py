"""From a question to an :class:`~abstain.answer.Answer`: score, gate, generate.

This is the pipeline's ask path, step by step::

    validate -> retrieve -> chunk confidence, curated first, chunk filter
             -> features + calibrated confidence -> gate (refuse here, no LLM)
             -> generate with citations -> Answer
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from abstain.answer import Answer, Check, Citation, Refusal, display_confidence, triage
from abstain.confidence import answer_features, chunk_confidence
from abstain.evidence import Evidence
from abstain.gate import GateInput
from abstain.messages import detect_language, refusal_message
from abstain.text import clean

if TYPE_CHECKING:
    from abstain.pipeline import Pipeline


def answer_question(pipe: Pipeline, question: str, workspace: str) -> Answer:
    started = time.perf_counter()
    text = clean(question or "")
    language = detect_language(text) if text else "en"
    if not text:
        return _refuse(question, workspace, language, "invalid_question", started)
    if len(text) > pipe.max_question_chars:
        return _refuse(question[:200], workspace, language, "question_too_long", started,
                       n=len(text), limit=pipe.max_question_chars)

    retrieval = pipe.retriever.retrieve(text, workspace=workspace)
    timings = dict(retrieval.timings_ms)
    t_gate = time.perf_counter()
    thresholds = pipe.gate.thresholds
    scored = tuple(
        e.with_scores(confidence=chunk_confidence(e.hit.vector_distance,
                                                  thresholds.distance_ceiling))
        for e in retrieval.evidence
    )
    kept = _curated_first_and_filtered(scored, thresholds.chunk_filter)
    features = answer_features(text, kept or scored, rrf_k=pipe.retrieval.rrf_k)
    confidence = pipe.calibration.confidence(features)
    result = pipe.gate.evaluate(GateInput(
        question=text, evidence=kept, retrieved=scored, features=features,
        confidence=confidence,
        known_identifiers=lambda: pipe.store.identifiers(workspace)))
    timings["gate_ms"] = _ms(t_gate)
    base = dict(question=question, workspace=workspace, language=language,
                features=features.as_dict(), checks=result.checks, evidence=kept or scored,
                generator=pipe.generator.name)
    if not result.passed:
        assert result.failed is not None
        reason = result.failed.reason or result.failed.name
        fields = {"entity": ", ".join(result.missing)} if reason == "unknown_entity" else {}
        refusal = Refusal(reason, refusal_message(reason, language, **fields),
                          result.suggestions, result.missing)
        timings["total_ms"] = _ms(started)
        return Answer(answered=False, text="", refusal=refusal, confidence=confidence,
                      display_confidence=display_confidence(False, scored),
                      triage=triage(confidence if kept else None), timings_ms=timings,
                      **base)  # type: ignore[arg-type]

    t_gen = time.perf_counter()
    generation = pipe.generator.generate(text, kept)
    timings["generate_ms"] = _ms(t_gen)
    if not generation.sentences:
        check = Check("answer_sentences", False, 0, 1,
                      "no sentence of the evidence addresses the question", "unsupported")
        refusal = Refusal("unsupported", refusal_message("unsupported", language))
        timings["total_ms"] = _ms(started)
        return Answer(answered=False, text="", refusal=refusal, confidence=confidence,
                      display_confidence=display_confidence(False, kept), triage="no_match",
                      timings_ms=timings, llm_called=generation.llm_called,
                      llm_calls=generation.calls,
                      **{**base, "checks": (*result.checks, check)})  # type: ignore[arg-type]
    citations = _citations(generation.sentences, kept)
    answer_text = " ".join(
        f"{s.text} {''.join(f'[{n}]' for n in s.cites)}".strip() for s in generation.sentences)
    timings["total_ms"] = _ms(started)
    return Answer(answered=True, text=answer_text, refusal=None, confidence=confidence,
                  display_confidence=display_confidence(True, kept),
                  triage=triage(confidence), citations=citations, timings_ms=timings,
                  llm_called=generation.llm_called, llm_calls=generation.calls,
                  **base)  # type: ignore[arg-type]


def _curated_first_and_filtered(evidence: tuple[Evidence, ...], chunk_filter: float
                                ) -> tuple[Evidence, ...]:
    """Curated close matches first (exempt from the filter), then chunks above the filter."""
    curated = [e for e in evidence if e.document.curated and (e.confidence or 0) > 0]
    rest = [e for e in evidence if e not in curated and (e.confidence or 0) >= chunk_filter]
    return tuple(curated + rest)


def _citations(sentences: tuple, evidence: tuple[Evidence, ...]) -> tuple[Citation, ...]:  # type: ignore[type-arg]
    seen: dict[int, Citation] = {}
    for sentence in sentences:
        for n in sentence.cites:
            if n not in seen and 1 <= n <= len(evidence):
                ev = evidence[n - 1]
                seen[n] = Citation(n, ev.source, ev.chunk_id, sentence.text, ev.document.title)
    return tuple(seen[n] for n in sorted(seen))


def _refuse(question: str, workspace: str, language: str, reason: str, started: float,
            **fields: object) -> Answer:
    check = Check("question", False, None, None, reason.replace("_", " "), reason)
    return Answer(question=question, answered=False, text="",
                  refusal=Refusal(reason, refusal_message(reason, language, **fields)),
                  confidence=0.0, display_confidence=5.0, triage="no_match", checks=(check,),
                  timings_ms={"total_ms": _ms(started)}, language=language,
                  workspace=workspace)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)


__all__ = ["answer_question", "replace"]
