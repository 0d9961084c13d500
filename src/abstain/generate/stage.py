"""The generate stage: the generator writes from the evidence the gate let through.

A generator that fails (:class:`~abstain.errors.LLMError`: unreachable, slow, malformed)
ends the trace in the refusal ``llm_error``, with the failed calls in the audit trail. One
that refuses its own answer (:attr:`~abstain.records.Generation.refusal`: the extractive
answerer's quote that the reader does not read as answering) ends it in that reason, with
the check that decided.
The stream, which generates sentence by sentence, records its generation with
:func:`generated` and a failure with :func:`failed`.
"""

from __future__ import annotations

import time

from abstain.errors import LLMError
from abstain.generate.base import Generator
from abstain.records import Check, CheckName, Generation, RefusalReason, Stage
from abstain.trace import Trace, ms_since


def generate(trace: Trace, generator: Generator) -> Trace:
    """The trace with the generator's answer, or ended in ``llm_error``; an ended trace
    passes through."""
    if trace.ended:
        return trace
    started = time.perf_counter()
    assert trace.parsed is not None
    try:
        generation = generator.generate(trace.parsed, trace.evidence)
    except LLMError as exc:
        return failed(trace, exc, started)
    return generated(trace, generation, started)


def generated(trace: Trace, generation: Generation, started: float) -> Trace:
    """The trace with ``generation``, or ended in the refusal the generator gave its own
    answer (the extractive answerer's quote that does not read as answering)."""
    stage = Stage("generate", timings_ms=(("generate_ms", ms_since(started)),),
                  checks=generation.checks, calls=generation.calls, notes=generation.notes)
    if generation.refusal is not None:
        return trace.refuse(stage, generation.refusal)
    return trace.then(stage, generation=generation)


def failed(trace: Trace, exc: LLMError, started: float) -> Trace:
    """Generation failed: the refusal ``llm_error`` that records the failed calls."""
    check = Check(CheckName.GENERATION, False,
                  exc.calls[-1].outcome if exc.calls else "error", "ok", str(exc),
                  RefusalReason.LLM_ERROR)
    return trace.refuse(Stage("generate", timings_ms=(("generate_ms", ms_since(started)),),
                              checks=(check,), calls=exc.calls,
                              notes=(f"generation failed: {exc}",)), RefusalReason.LLM_ERROR)
