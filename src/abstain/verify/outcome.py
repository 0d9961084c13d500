"""The LLM path's outcomes as Answers: verified, clarifying, reranked away, or failed.

Called from :mod:`abstain.respond` (and the stream); every LLM call made on the
way is in ``llm_calls`` and every fallback in ``notes``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from abstain.align import generated_type_check
from abstain.answer import Answer, Check, Refusal, triage
from abstain.errors import LLMError
from abstain.generate import Generation, Generator
from abstain.generate.assist import RerankConfig, llm_rerank
from abstain.generate.cited import is_question
from abstain.generate.prompts import context_texts
from abstain.messages import refusal_message
from abstain.text import truncate
from abstain.verify.base import support_threshold, verifier_name
from abstain.verify.correct import conclude
from abstain.verify.sentences import SentenceVerdict, check_sentence

if TYPE_CHECKING:
    from abstain.generate import ChatModel
    from abstain.pipeline import Pipeline
    from abstain.respond import Prepared


def verified_answer(pipe: Pipeline, state: Prepared, generation: Generation,
                    verdicts: Sequence[SentenceVerdict] | None = None) -> Answer:
    if generation.clarifying:
        return clarification(state, generation)
    verifier = pipe.verifier
    assert verifier is not None
    texts = context_texts(state.evidence)
    if verdicts is None:
        verdicts = [check_sentence(s, texts, verifier) for s in generation.sentences]
    result = conclude(verdicts, state.evidence, strictness=pipe.strictness,
                      verifier=verifier_name(verifier), threshold=support_threshold(verifier),
                      logprob=generation.logprob, fallback_confidence=state.confidence,
                      llm_reranked=state.tier == "llm_rerank")
    note = getattr(verifier, "note", None)
    notes = (*generation.notes, *((str(note),) if note else ()), *result.notes)
    fields: dict[str, Any] = dict(
        checks=result.checks, calls=generation.calls, notes=notes,
        unsupported_claims=result.unsupported_claims, faithfulness=result.faithfulness,
        faithfulness_components=result.components,
        triage=triage(state.confidence, verification_failed=result.citation_failed))
    refusal = result.refusal
    typed = None if refusal else generated_type_check(state.text,
                                                      [v.sentence.text for v in result.kept])
    if typed is not None:
        fields["checks"] = (*result.checks, typed)
        if not typed.passed:
            refusal = "answer_type_missing"
    if refusal is not None:
        return state.answer(answered=False, refusal=Refusal(refusal, refusal_message(
            refusal, state.language, kind=typed.threshold if typed else None)), **fields)
    return state.answer(answered=True, text=result.text,
                        citations=result.citations(state.evidence), **fields)


def clarification(state: Prepared, generation: Generation) -> Answer:
    """The model asked a question instead of answering: a refusal that carries it."""
    question = " ".join(s.text for s in generation.sentences if is_question(s))
    base = refusal_message("needs_clarification", state.language)
    check = Check("clarifying_question", False, None, None,
                  "no source applied; the model asked a clarifying question",
                  "needs_clarification")
    return state.answer(answered=False, refusal=Refusal(
        "needs_clarification", f"{base} {question}".strip(), (question,) if question else ()),
        checks=(check,), calls=generation.calls, notes=generation.notes)


def llm_failure(state: Prepared, exc: LLMError, t_gen: float) -> Answer:
    state.timings["generate_ms"] = round((time.perf_counter() - t_gen) * 1000, 3)
    check = Check("generation", False, exc.calls[-1].outcome if exc.calls else "error", "ok",
                  str(exc), "llm_error")
    return state.answer(answered=False, refusal=Refusal(
        "llm_error", refusal_message("llm_error", state.language)), checks=(check,),
        calls=exc.calls, notes=(f"generation failed: {exc}",))


def ask_to_clarify(generator: Generator, question: str, refused: Answer) -> Answer:
    """Zero hits: the clarify-only prompt (no documents) turns the refusal into a question."""
    clarify = getattr(generator, "clarify", None)
    if clarify is None or refused.refusal is None:
        return refused
    try:
        generation: Generation = clarify(question)
    except LLMError as exc:
        return replace(refused, llm_called=True, llm_calls=(*refused.llm_calls, *exc.calls),
                       notes=(*refused.notes, f"clarify-only prompt failed: {exc}"))
    asked = [s.text for s in generation.sentences if is_question(s) and not s.cites]
    calls = (*refused.llm_calls, *generation.calls)
    if not asked:
        return replace(refused, llm_called=True, llm_calls=calls, notes=(
            *refused.notes, "clarify-only reply was not a question "
            f"({truncate(generation.raw, 80)!r}); kept the standard refusal"))
    text = " ".join(asked[:2])
    refusal = replace(refused.refusal, message=f"{refused.refusal.message} {text}",
                      suggestions=(*refused.refusal.suggestions, text))
    return replace(refused, refusal=refusal, llm_called=True, llm_calls=calls,
                   notes=(*refused.notes, "no hits: asked a clarifying question "
                                          "(clarify-only prompt, no documents shown)"))


def rerank(model: ChatModel, config: RerankConfig, state: Prepared) -> Prepared | Answer:
    """Tier ``llm_rerank``: keep sources graded ≥ threshold, refuse when none is."""
    outcome = llm_rerank(model, state.text, state.evidence, config)
    state = replace(state, calls=(*state.calls, *outcome.calls))
    if outcome.evidence is None:
        return replace(state, notes=(*state.notes, outcome.note or "LLM rerank failed"),
                       tier="retrieval")
    passed = bool(outcome.evidence)
    check = Check("llm_rerank", passed, outcome.best, config.threshold,
                  f"{len(outcome.evidence)} of {min(len(state.evidence), config.max_sources)} "
                  f"sources graded >= {config.threshold} (0–3)", "not_relevant")
    state = replace(state, tier="llm_rerank", extra_checks=(*state.extra_checks, check))
    if not passed:
        return state.answer(answered=False, refusal=Refusal(
            "not_relevant", refusal_message("not_relevant", state.language)))
    return replace(state, evidence=outcome.evidence,
                   base={**state.base, "evidence": outcome.evidence})
