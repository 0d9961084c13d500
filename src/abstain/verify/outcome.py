"""The verify stage: a generation checked sentence by sentence ends the trace, verified,
corrected or refused.

With a verifier every sentence is checked (:mod:`abstain.verify.sentences`) and the
verdicts concluded (:mod:`abstain.verify.correct`); the verifier's note and every
correction are in ``notes``. Without one (the extractive answerer at ``balanced``), the
sentences stand as written. A clarifying question instead of an answer ends in
``needs_clarification`` (:mod:`abstain.generate.clarify`); no sentence at all in
``unsupported``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from abstain.align import generated_type_check
from abstain.evidence import Evidence
from abstain.generate.clarify import clarification
from abstain.generate.prompts import context_texts
from abstain.messages import refusal_message
from abstain.records import (
    Check,
    CheckName,
    Citation,
    Generation,
    Refusal,
    RefusalReason,
    Sentence,
    Stage,
)
from abstain.trace import VERIFICATION_FAILED, Outcome, Trace
from abstain.verify.base import Verifier, support_threshold, verifier_name
from abstain.verify.correct import conclude
from abstain.verify.faithfulness import Strictness
from abstain.verify.sentences import SentenceVerdict, check_sentence


def verify(trace: Trace, verifier: Verifier | None, strictness: Strictness,
           verdicts: Sequence[SentenceVerdict] | None = None) -> Trace:
    """End the trace of a generation; an ended trace passes through. ``verdicts`` are the
    per-sentence checks when the caller (the stream) already ran them."""
    generation = trace.generation
    if trace.ended or generation is None:
        return trace
    if generation.clarifying:
        return clarification(trace, generation)
    if verifier is None or not generation.sentences:
        return _unverified(trace, generation)
    texts = context_texts(trace.evidence)
    if verdicts is None:
        verdicts = [check_sentence(s, texts, verifier) for s in generation.sentences]
    result = conclude(verdicts, trace.evidence, strictness=strictness,
                      verifier=verifier_name(verifier), threshold=support_threshold(verifier),
                      logprob=generation.logprob, fallback_confidence=trace.confidence,
                      llm_reranked=trace.tier == "llm_rerank")
    note = getattr(verifier, "note", None)
    checks = result.checks
    refusal = result.refusal
    typed = None if refusal or trace.parsed is None else generated_type_check(
        trace.parsed, [v.sentence.text for v in result.kept])
    if typed is not None:
        checks = (*checks, typed)
        if not typed.passed:
            refusal = RefusalReason.ANSWER_TYPE_MISSING
    stage = Stage("verify", checks=checks, notes=(*((str(note),) if note else ()),
                                                  *result.notes))
    verified = Outcome(triage=VERIFICATION_FAILED if result.citation_failed else None,
                       unsupported_claims=result.unsupported_claims,
                       faithfulness=result.faithfulness,
                       faithfulness_components=result.components)
    if refusal is not None:
        message = refusal_message(refusal, trace.language,
                                  kind=typed.threshold if typed else None)
        return trace.end(replace(verified, refusal=Refusal(refusal, message)), stage)
    return trace.end(verified.with_sentences([v.shown for v in result.kept],
                                             result.citations(trace.evidence)), stage)


def as_written(sentence: Sentence) -> Sentence:
    """An unverified sentence as the answer shows it: its whitespace collapsed, but for a
    quoted code block (a unit of several lines), whose lines and indentation are the code."""
    lines = [line.rstrip() for line in sentence.text.strip("\n").split("\n")]
    if len([line for line in lines if line.strip()]) > 1:
        return Sentence("\n".join(lines), sentence.cites)
    return Sentence(" ".join(sentence.text.split()), sentence.cites)


def _unverified(trace: Trace, generation: Generation) -> Trace:
    if not generation.sentences:
        check = Check(CheckName.ANSWER_SENTENCES, False, 0, 1,
                      "no sentence of the evidence addresses the question",
                      RefusalReason.UNSUPPORTED)
        return trace.refuse(Stage("verify", checks=(check,)), RefusalReason.UNSUPPORTED)
    return trace.end(Outcome().with_sentences([as_written(s) for s in generation.sentences],
                                              _citations(generation.sentences, trace.evidence)),
                     Stage("verify"))


def _citations(sentences: Sequence[Sentence], evidence: Sequence[Evidence]
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
