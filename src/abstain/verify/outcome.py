"""A generation checked sentence by sentence becomes the Answer: verified, corrected or refused.

Called from :mod:`abstain.respond` (and the stream) when the pipeline has a
verifier; the verifier's note and every correction are in ``notes``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from abstain.align import generated_type_check
from abstain.answer import Answer, Refusal, triage
from abstain.generate.base import Generation
from abstain.generate.prompts import context_texts
from abstain.messages import refusal_message
from abstain.verify.base import support_threshold, verifier_name
from abstain.verify.correct import conclude
from abstain.verify.sentences import SentenceVerdict, check_sentence

if TYPE_CHECKING:
    from abstain.pipeline import Pipeline
    from abstain.respond import Prepared


def verified_answer(pipe: Pipeline, state: Prepared, generation: Generation,
                    verdicts: Sequence[SentenceVerdict] | None = None) -> Answer:
    if generation.clarifying:
        from abstain.generate.clarify import clarification

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
