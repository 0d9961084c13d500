"""``GET /metrics``: Prometheus text format (prometheus-client), admin key required.

Every finished answer (JSON, SSE or text) reaches :meth:`Metrics.observe` as one of the
pipeline's observers, so the numbers are those of the answers clients actually got.

========================================  ==============================================
``abstain_questions_total``               {workspace}
``abstain_refusals_total``                {workspace, reason}
``abstain_answers_total``                 {workspace, triage}
``abstain_confidence``                    histogram {workspace, decision}
``abstain_stage_latency_seconds``         histogram {workspace, stage}: retrieve, gate,
                                          generate, verify, total
``abstain_llm_calls_total``               {workspace, purpose, outcome}
``abstain_llm_errors_total``              {workspace, purpose}
========================================  ==============================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Depends, Request, Response

from abstain.errors import MissingDependency
from abstain.observe import stage_seconds
from abstain.server.auth import api_key
from abstain.server.errors import ApiError, error_responses
from abstain.server.keys import ApiKey

if TYPE_CHECKING:
    from abstain.answer import Answer

CONFIDENCE_BUCKETS = tuple(round(0.1 * i, 1) for i in range(1, 11))
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

router = APIRouter(tags=["service"])


class Metrics:
    """The app's own registry (two apps in one process never share counters)."""

    def __init__(self) -> None:
        try:
            from prometheus_client import CollectorRegistry, Counter, Histogram
        except ImportError as exc:
            raise MissingDependency("prometheus_client", "server") from exc
        self.registry = CollectorRegistry()
        reg = self.registry
        self.questions = Counter("abstain_questions", "Questions answered or refused",
                                 ["workspace"], registry=reg)
        self.refusals = Counter("abstain_refusals", "Refusals by reason",
                                ["workspace", "reason"], registry=reg)
        self.answers = Counter("abstain_answers", "Answers by triage tier",
                               ["workspace", "triage"], registry=reg)
        self.confidence = Histogram("abstain_confidence", "Calibrated answer confidence",
                                    ["workspace", "decision"], buckets=CONFIDENCE_BUCKETS,
                                    registry=reg)
        self.latency = Histogram("abstain_stage_latency_seconds", "Time spent per stage",
                                 ["workspace", "stage"], buckets=LATENCY_BUCKETS,
                                 registry=reg)
        self.llm_calls = Counter("abstain_llm_calls", "Calls to a language model",
                                 ["workspace", "purpose", "outcome"], registry=reg)
        self.llm_errors = Counter("abstain_llm_errors", "Failed calls to a language model",
                                  ["workspace", "purpose"], registry=reg)

    def observe(self, answer: Answer) -> None:
        ws = answer.workspace
        self.questions.labels(ws).inc()
        if answer.answered:
            self.answers.labels(ws, answer.triage).inc()
        else:
            self.refusals.labels(ws, answer.refusal.reason if answer.refusal else "unknown").inc()
        decision = "answered" if answer.answered else "refused"
        self.confidence.labels(ws, decision).observe(answer.confidence)
        for stage, seconds in stage_seconds(answer).items():
            self.latency.labels(ws, stage).observe(seconds)
        for call in answer.llm_calls:
            self.llm_calls.labels(ws, call.purpose, call.outcome).inc()
            if call.error is not None:
                self.llm_errors.labels(ws, call.purpose).inc()

    def render(self) -> bytes:
        from prometheus_client import generate_latest

        return generate_latest(self.registry)


@router.get("/metrics", summary="Prometheus metrics (admin key)",
            response_class=Response, responses={
                200: {"description": "Prometheus text exposition format",
                      "content": {"text/plain": {"schema": {"type": "string"}}}},
                **error_responses(401, 403, 429, 503)})
async def metrics(request: Request, key: Annotated[ApiKey, Depends(api_key)]) -> Response:
    if not key.admin:
        raise ApiError(403, "forbidden", f"key {key.id} is not an admin key; /metrics "
                                         "covers every workspace")
    registry: Metrics | None = getattr(request.app.state, "metrics", None)
    if registry is None:
        raise ApiError(503, "service_error", "metrics need prometheus-client: "
                                             "pip install 'abstain[server]'")
    from prometheus_client import CONTENT_TYPE_LATEST

    return Response(registry.render(), media_type=CONTENT_TYPE_LATEST)
