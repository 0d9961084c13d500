"""After an answer is built: stage logs, the query log, observers (metrics), trace spans.

:meth:`Pipeline.ask` (and the verified stream) hand every finished :class:`Answer` to
:func:`observe`, once, with the values it needs (the store whose log records it, the
calibration's name, the observers), not the pipeline itself. It

* logs each stage through the standard :mod:`logging` module, one logger per stage
  (``abstain.retrieve``, ``abstain.gate``, ``abstain.generate``, ``abstain.verify``,
  ``abstain.querylog``) at DEBUG, silent unless the application configures logging;
* writes the query-log entry when the store's log is on (``abstain log on``);
* calls the pipeline's ``observers`` (the server's Prometheus metrics are one);
* emits OpenTelemetry spans per stage when ``opentelemetry-api`` is installed
  (``pip install 'abstain[otel]'``), rebuilt from the answer's measured timings.

None of this can fail the answer: a failure is logged as a warning and, for the query
log, also added to the answer's ``notes`` (a fallback is never silent).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from abstain.answer import Answer
    from abstain.stores.base import Store

STAGES = ("retrieve", "gate", "generate", "verify")
loggers = {name: logging.getLogger(f"abstain.{name}") for name in (*STAGES, "querylog")}
log = logging.getLogger("abstain.observe")
_STAGE_TIMINGS = {"retrieve": ("embed_ms", "vector_ms", "keyword_ms", "retrieve_ms",
                               "rerank_ms"),
                  "gate": ("gate_ms",), "generate": ("generate_ms",), "verify": ("verify_ms",)}


def observe(answer: Answer, *, log_to: Store | None = None, calibration: str = "",
            observers: Sequence[Callable[[Answer], None]] = ()) -> Answer:
    """Log, record and report one finished answer; returns it (with a note if logging failed).

    ``log_to``: the store whose query log records the answer when ``abstain log on`` enabled
    it there (None: never record); ``calibration``: the name the entry gives for the
    calibration in use; ``observers``: called with the answer, in order."""
    _log_stages(answer)
    if log_to is not None:
        answer = _record(log_to, calibration, answer)
    for observer in observers:
        try:
            observer(answer)
        except Exception:
            log.warning("observer %r failed", observer, exc_info=True)
    _trace(answer)
    return answer


def _record(store: Store, calibration: str, answer: Answer) -> Answer:
    from abstain.querylog import entry_of, find_log

    qlog_logger = loggers["querylog"]
    try:
        qlog = find_log(store)
        if qlog is None:
            return answer
        settings = qlog.settings()
        if not settings.enabled:
            return answer
        entry_id = qlog.append(entry_of(answer, redact=settings.redact,
                                        calibration=calibration),
                               retention_days=settings.retention_days)
    except Exception as exc:
        qlog_logger.warning("query log: could not record the question: %s", exc,
                            exc_info=True)
        return replace(answer, notes=(*answer.notes,
                                      f"query log: not recorded ({type(exc).__name__}: {exc})"))
    qlog_logger.debug("logged question as entry %d in workspace %s", entry_id,
                      answer.workspace)
    return answer


def _log_stages(answer: Answer) -> None:
    t = answer.timings_ms
    retrieve = loggers["retrieve"]
    if retrieve.isEnabledFor(logging.DEBUG):
        retrieve.debug("workspace %s: %d evidence chunks in %.1f ms (%s)", answer.workspace,
                       len(answer.evidence), t.get("retrieve_ms", 0.0),
                       ", ".join(f"{k} {v:.1f}" for k, v in t.items()
                                 if k in _STAGE_TIMINGS["retrieve"]))
    gate = loggers["gate"]
    if gate.isEnabledFor(logging.DEBUG):
        gate.debug("%s (confidence %.3f, %s): %s", "answer" if answer.answered
                   else f"refuse {answer.refusal.reason if answer.refusal else ''}",
                   answer.confidence, answer.triage,
                   "; ".join(f"{c.name} {'ok' if c.passed else 'FAIL'} {c.value}/{c.threshold}"
                             for c in answer.checks))
    for call in answer.llm_calls:
        level = logging.INFO if call.error else logging.DEBUG
        loggers["generate"].log(level, "LLM %s %s: %s in %.0f ms%s", call.purpose, call.model,
                                call.outcome, call.latency_ms,
                                f" ({call.error})" if call.error else "")
    verify = loggers["verify"]
    if answer.unsupported_claims or answer.faithfulness is not None:
        verify.debug("faithfulness %s, %d unsupported claims dropped", answer.faithfulness,
                     len(answer.unsupported_claims))


def stage_seconds(answer: Answer) -> dict[str, float]:
    """Seconds per stage (retrieve, gate, generate, verify, total), from the answer's timings."""
    t = answer.timings_ms
    out = {"retrieve": t.get("retrieve_ms", 0.0) + t.get("rerank_ms", 0.0)}
    for stage in ("gate", "generate", "verify"):
        if f"{stage}_ms" in t:
            out[stage] = t[f"{stage}_ms"]
    if "retrieve_ms" not in t:
        out.pop("retrieve")
    if "total_ms" in t:
        out["total"] = t["total_ms"]
    return {k: v / 1000 for k, v in out.items()}


def _trace(answer: Answer) -> None:
    """One ``abstain.ask`` span with a child per stage (needs opentelemetry-api)."""
    try:
        from opentelemetry import trace
    except ImportError:
        return
    try:
        _spans(trace.get_tracer("abstain"), answer)
    except Exception:
        log.warning("tracing failed", exc_info=True)


def _spans(tracer: Any, answer: Answer) -> None:
    from opentelemetry import trace

    stages = stage_seconds(answer)
    end = time.time_ns()
    start = end - int(stages.get("total", 0.0) * 1e9)
    attributes = {"abstain.workspace": answer.workspace, "abstain.answered": answer.answered,
                  "abstain.reason": answer.refusal.reason if answer.refusal else "",
                  "abstain.confidence": answer.confidence, "abstain.triage": answer.triage,
                  "abstain.llm_calls": len(answer.llm_calls)}
    root = tracer.start_span("abstain.ask", start_time=start, attributes=attributes)
    ctx = trace.set_span_in_context(root)
    at = start
    for stage in STAGES:
        if stage not in stages:
            continue
        child = tracer.start_span(f"abstain.{stage}", context=ctx, start_time=at)
        at += int(stages[stage] * 1e9)
        child.end(end_time=at)
    root.end(end_time=end)
