"""Answering a question without letting a language model hold up anything else.

Retrieval and the gate run in the shared thread pool, as every other request's blocking
work does; generation by an LLM runs in a pool of its own per generator
(``ServerConfig.llm_threads`` threads each). So a hung or slow LLM can hold at most that
many threads: ``/ready``, ``/health``, uploads, refusals and workspaces with another
generator are never queued behind it. Each LLM call is bounded by its generator's
overall deadline; a call that failed or timed out is recorded in the answer's audit
trail and logged here (for streams too).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING

import anyio
from starlette.concurrency import run_in_threadpool

from abstain.answer import Answer
from abstain.generate.stage import generate
from abstain.stream import Event
from abstain.trace import answer_of
from abstain.verify.outcome import verify

if TYPE_CHECKING:
    from abstain.pipeline import Pipeline
    from abstain.server.state import Services
    from abstain.trace import Trace

log = logging.getLogger("abstain.server")


def llm_before_gate(pipe: Pipeline) -> bool:
    """Whether an LLM may be called before the gate decides (query rewrite, LLM rerank,
    or a clarifying question on zero hits)."""
    return bool(pipe.rewrite_query or pipe.llm_rerank is not None
                or (pipe.clarify_on_empty and pipe.generator.uses_llm))


async def answer(svc: Services, pipe: Pipeline, question: str, workspace: str) -> Answer:
    llm_pool = svc.llm_pool(pipe)
    if llm_before_gate(pipe):  # pipe.ask observes the answer (log, query log, metrics)
        result = await anyio.to_thread.run_sync(
            lambda: pipe.ask(question, workspace=workspace), limiter=llm_pool)
    else:
        trace = await run_in_threadpool(pipe.gate_question, question, workspace)
        if not trace.ended:  # an LLM writes in its own pool; the extractive one in the shared
            limiter = llm_pool if pipe.generator.uses_llm else None
            trace = await anyio.to_thread.run_sync(_written, pipe, trace, limiter=limiter)
        result = await run_in_threadpool(lambda: pipe.observe(answer_of(trace)))
    log_llm_failures(result)
    return result


def _written(pipe: Pipeline, trace: Trace) -> Trace:
    """Generate and verify, as :meth:`Pipeline.ask` does after the gate."""
    return verify(generate(trace, pipe.generator), pipe.verifier, pipe.strictness)


def logged(events: Iterator[Event], workspace: str, *,
           shown: Callable[[Event], Event] = lambda event: event
           ) -> Generator[Event, None, None]:
    """Pass a stream's events through, logging a failed LLM generation from its ``done``
    answer, each as the client sees it (``shown``: its sources renamed,
    :class:`abstain.server.sources.SourceView`); closing this closes the source (so an LLM
    stream stops too)."""
    try:
        for event in events:
            if event.kind == "done":
                for check in event.data.get("checks", ()):
                    if check.get("name") == "generation" and not check.get("passed"):
                        log.warning("LLM answer call in workspace %r (stream): %s (%s)",
                                    workspace, check.get("value"), check.get("detail"))
            yield shown(event)
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()


def log_llm_failures(result: Answer) -> None:
    for call in result.llm_calls:
        if call.outcome != "ok":
            log.warning("LLM %s call in workspace %r: %s after %.0f ms (%s)", call.purpose,
                        result.workspace, call.outcome, call.latency_ms, call.error or "")
