"""From a question to an :class:`~abstain.answer.Answer`: score, gate, generate.

This is the pipeline's ask path, step by step::

    validate -> [LLM query rewrite] -> retrieve -> chunk confidence, curated first,
             chunk filter -> features + calibrated confidence
             -> gate (refuse here, no LLM; opt-in clarify_on_empty: clarify-only prompt)
             -> [LLM rerank 0–3, may refuse] -> generate with citations
             -> verify (citations, support, surgical correction, faithfulness) -> Answer

:func:`prepare` runs everything up to generation; ``abstain.stream`` uses it to
stream verified sentences. The optional LLM steps live with their stage: query
rewrite in :mod:`abstain.generate.rewrite`, the 0–3 rerank in
:mod:`abstain.rerank.llm`, clarifying questions in :mod:`abstain.generate.clarify`,
the verified answer in :mod:`abstain.verify.outcome`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from abstain.align import Focus, focus_evidence, keyword_confidence, phrases
from abstain.answer import Answer, Check, Citation, LLMCall, Refusal, display_confidence, triage
from abstain.citations import number_by_first_use
from abstain.confidence import answer_features, chunk_confidence
from abstain.errors import LLMError
from abstain.evidence import Evidence
from abstain.gate import GateInput, GateResult
from abstain.generate import Generation, Sentence
from abstain.mentions import parse_question
from abstain.messages import detect_language, refusal_message
from abstain.rerank.reading import gate_with_reading
from abstain.text import clean

if TYPE_CHECKING:
    from abstain.pipeline import Pipeline
    from abstain.verify import SentenceVerdict


IDENTIFIER_DEPTH = 20
"""Fused hits, and keyword hits, searched for the chunks that hold a question's identifiers
(ADR-0007's own section may rank below the top k on cosine while the keyword arm has it
first)."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """A question that passed the gate: what generation and verification need."""

    text: str
    """The cleaned question the generator answers."""
    evidence: tuple[Evidence, ...]
    """Kept by the gate (and the LLM reranker), numbered [1]..[n] for the generator."""
    confidence: float
    started: float
    timings: dict[str, float]
    base: dict[str, Any]
    """Answer fields shared by every outcome (question, checks, evidence, …)."""
    calls: tuple[LLMCall, ...] = ()
    notes: tuple[str, ...] = ()
    tier: str = "retrieval"
    extra_checks: tuple[Check, ...] = field(default_factory=tuple)

    @property
    def language(self) -> str:
        return str(self.base["language"])

    def answer(self, *, answered: bool, text: str = "", refusal: Refusal | None = None,
               checks: tuple[Check, ...] = (), calls: tuple[LLMCall, ...] = (),
               notes: tuple[str, ...] = (), **fields: Any) -> Answer:
        """An Answer with the shared fields, this step's checks, calls and notes appended."""
        timings = {**self.timings, "total_ms": _ms(self.started)}
        all_calls = (*self.calls, *calls)
        fields.setdefault("display_confidence", display_confidence(answered, self.evidence))
        fields.setdefault("triage", triage(self.confidence))
        return Answer(answered=answered, text=text, refusal=refusal, confidence=self.confidence,
                      timings_ms=timings, llm_called=bool(all_calls), llm_calls=all_calls,
                      tier=self.tier, notes=(*self.notes, *notes),
                      **{**self.base, "checks": (*self.base["checks"], *self.extra_checks,
                                                 *checks)}, **fields)


def answer_question(pipe: Pipeline, question: str, workspace: str) -> Answer:
    state = prepare(pipe, question, workspace)
    if isinstance(state, Answer):
        return state
    return generate(pipe, state)


def generate(pipe: Pipeline, state: Prepared) -> Answer:
    """Generate and verify the answer of a question that passed the gate."""
    t_gen = time.perf_counter()
    try:
        generation = pipe.generator.generate(state.text, state.evidence)
    except LLMError as exc:
        return llm_failure(state, exc, t_gen)
    return finish(pipe, state, generation, t_gen)


def prepare(pipe: Pipeline, question: str, workspace: str) -> Prepared | Answer:
    """Validate, retrieve and gate; a refusal comes back as a finished Answer."""
    started = time.perf_counter()
    text = clean(question or "")
    language = detect_language(text) if text else "en"
    if not text:
        return _refuse(question, workspace, language, "invalid_question", started)
    if len(text) > pipe.max_question_chars:
        return _refuse(question[:200], workspace, language, "question_too_long", started,
                       n=len(text), limit=pipe.max_question_chars)

    calls: tuple[LLMCall, ...] = ()
    notes: tuple[str, ...] = ()
    query = text
    if pipe.rewrite_query:
        from abstain.generate.rewrite import rewrite_query

        rewrite = rewrite_query(pipe.chat_model, text)
        query, calls = rewrite.query, rewrite.calls
        notes = (rewrite.note,) if rewrite.note else ()
    parts = parse_question(text)
    top_k = pipe.retrieval.top_k
    depth = None if pipe.reranker is None else max(pipe.rerank_depth, top_k)
    if parts.identifiers:  # look deeper for the chunks that hold what the question names
        depth = max(depth or top_k, IDENTIFIER_DEPTH)
    retrieval = pipe.retriever.retrieve(query, workspace=workspace, top_k=depth,
                                        keyword_top=IDENTIFIER_DEPTH if parts.identifiers else 0)
    timings = dict(retrieval.timings_ms)
    hits = retrieval.evidence
    if pipe.reranker is not None:  # reorder the top fused hits
        from abstain.rerank import rerank as rerank_hits

        t_rerank = time.perf_counter()
        hits = rerank_hits(pipe.reranker, text, hits, depth=depth or 0)
        timings["rerank_ms"] = _ms(t_rerank)
    tier = "retrieval" if pipe.reranker is None else "reranker"
    t_gate = time.perf_counter()
    thresholds = pipe.gate.thresholds
    focus = Focus.of(parts, pipe.store.term_counts(
        workspace, phrases(parts), published_only=pipe.retrieval.published_only))
    every = tuple(
        e.with_scores(confidence=max(
            chunk_confidence(e.hit.vector_distance, thresholds.distance_ceiling),
            keyword_confidence(focus, e)))
        for e in hits
    )
    scored = every[:top_k]
    filtered = _curated_first_and_filtered(scored, thresholds.chunk_filter)
    held = focus_evidence(focus, _curated_first_and_filtered(every, thresholds.chunk_filter))
    kept = held[:top_k] or filtered
    # The calibrated confidence reads retrieval-level signals of the fused top k, as it was
    # fitted; the alignment checks read the evidence the answer is built from.
    features = answer_features(text, filtered or scored, rrf_k=pipe.retrieval.rrf_k)
    confidence = pipe.calibration.confidence(features)
    result, gated = gate_with_reading(pipe.gate, pipe.reading_calibration, pipe.reader, GateInput(
        question=text, evidence=kept, retrieved=scored, features=features,
        confidence=confidence, min_confidence=pipe.calibration.gate_threshold,
        known_identifiers=lambda: pipe.store.identifiers(workspace), focus=focus))
    features, confidence = gated.features, gated.confidence
    if gated.reading is not None:
        timings["read_ms"] = gated.reading.ms
    timings["gate_ms"] = _ms(t_gate)
    base = dict(question=question, workspace=workspace, language=language,
                features=features.as_dict(), checks=result.checks, evidence=kept or scored,
                generator=pipe.generator.name)
    if not result.passed:
        assert result.failed is not None
        reason = result.failed.reason or result.failed.name
        fields = refusal_fields(reason, result)
        refusal = Refusal(reason, refusal_message(reason, language, **fields),
                          result.suggestions, result.missing)
        timings["total_ms"] = _ms(started)
        refused = Answer(answered=False, text="", refusal=refusal, confidence=confidence,
                         display_confidence=display_confidence(False, scored),
                         triage=triage(confidence if kept else None), timings_ms=timings,
                         llm_called=bool(calls), llm_calls=calls, notes=notes, tier=tier,
                         **base)  # type: ignore[arg-type]
        if not retrieval.evidence and pipe.clarify_on_empty and pipe.generator.uses_llm:
            from abstain.generate.clarify import ask_to_clarify

            return ask_to_clarify(pipe.generator, text, refused)
        return refused

    state = Prepared(text, kept, confidence, started, timings,
                     {**base, "given_to_generator": True}, calls, notes, tier)
    if pipe.llm_rerank is not None:
        from abstain.rerank.llm import rerank_gate

        return rerank_gate(pipe.chat_model, pipe.llm_rerank, state)
    return state


def finish(pipe: Pipeline, state: Prepared, generation: Generation, t_gen: float,
           verdicts: Sequence[SentenceVerdict] | None = None) -> Answer:
    """Turn a generation into the Answer: verified when the pipeline has a verifier.

    ``verdicts`` are the per-sentence checks when the caller (the stream) already ran them.
    """
    state = replace(state, timings={**state.timings, "generate_ms": _ms(t_gen)})
    if generation.clarifying or (pipe.verifier is not None and generation.sentences):
        from abstain.verify.outcome import verified_answer

        return number_by_first_use(verified_answer(pipe, state, generation, verdicts))
    language, kept, started = state.language, state.evidence, state.started
    timings = state.timings
    base = {**state.base, "checks": (*state.base["checks"], *state.extra_checks)}
    notes = (*state.notes, *generation.notes)
    calls = (*state.calls, *generation.calls)
    if not generation.sentences:
        check = Check("answer_sentences", False, 0, 1,
                      "no sentence of the evidence addresses the question", "unsupported")
        refusal = Refusal("unsupported", refusal_message("unsupported", language))
        timings["total_ms"] = _ms(started)
        return Answer(answered=False, text="", refusal=refusal, confidence=state.confidence,
                      display_confidence=display_confidence(False, kept), triage="no_match",
                      timings_ms=timings, llm_called=bool(calls), llm_calls=calls,
                      notes=notes, tier=state.tier,
                      **{**base, "checks": (*base["checks"], check)})
    citations = _citations(generation.sentences, kept)
    answer_text = " ".join(
        f"{' '.join(s.text.split())} {''.join(f'[{n}]' for n in s.cites)}".strip()
        for s in generation.sentences)
    timings["total_ms"] = _ms(started)
    return number_by_first_use(Answer(
                  answered=True, text=answer_text, refusal=None, confidence=state.confidence,
                  display_confidence=display_confidence(True, kept),
                  triage=triage(state.confidence), citations=citations, timings_ms=timings,
                  llm_called=bool(calls), llm_calls=calls, notes=notes, tier=state.tier,
                  **base))


def refusal_fields(reason: str, result: GateResult) -> dict[str, object]:
    """What the refusal message names: the entities, the missing terms, the asked type."""
    if reason in ("unknown_entity", "entity_not_in_evidence") and result.missing:
        return {"entity": ", ".join(result.missing)}
    if reason == "low_coverage" and result.missing:
        return {"terms": ", ".join(result.missing[:MAX_NAMED_TERMS])}
    if reason == "answer_type_missing" and result.failed is not None:
        return {"kind": result.failed.threshold}
    return {}


MAX_NAMED_TERMS = 4


def llm_failure(state: Prepared, exc: LLMError, t_gen: float) -> Answer:
    """Generation failed: a refusal (``llm_error``) that records the failed calls."""
    state = replace(state, timings={**state.timings, "generate_ms": _ms(t_gen)})
    check = Check("generation", False, exc.calls[-1].outcome if exc.calls else "error", "ok",
                  str(exc), "llm_error")
    return state.answer(answered=False, refusal=Refusal(
        "llm_error", refusal_message("llm_error", state.language)), checks=(check,),
        calls=exc.calls, notes=(f"generation failed: {exc}",))


def _curated_first_and_filtered(evidence: tuple[Evidence, ...], chunk_filter: float
                                ) -> tuple[Evidence, ...]:
    """Curated close matches first (exempt from the filter), then chunks above the filter."""
    curated = [e for e in evidence if e.document.curated and (e.confidence or 0) > 0]
    rest = [e for e in evidence if e not in curated and (e.confidence or 0) >= chunk_filter]
    return tuple(curated + rest)


def _citations(sentences: Sequence[Sentence], evidence: tuple[Evidence, ...]
               ) -> tuple[Citation, ...]:
    """One citation per distinct (evidence number, quote), ordered by number."""
    seen: dict[tuple[int, str], Citation] = {}
    for sentence in sentences:
        for n in sentence.cites:
            if (n, sentence.text) not in seen and 1 <= n <= len(evidence):
                ev = evidence[n - 1]
                seen[n, sentence.text] = Citation(n, ev.source, ev.chunk_id, sentence.text,
                                                  ev.document.title)
    return tuple(sorted(seen.values(), key=lambda c: c.n))


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


__all__ = ["Prepared", "answer_question", "finish", "generate", "llm_failure", "prepare"]
