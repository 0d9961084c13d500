"""The app factory: one shared pipeline, the routes, health and readiness, the web page."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool

from abstain import __version__
from abstain.config import Settings
from abstain.embed.batching import QueryBatcher
from abstain.options import Resolved, close_shared
from abstain.server import ask, documents, errors, metrics, openai_compat, review
from abstain.server.config import STREAM_THREADS, ServerConfig
from abstain.server.keys import KeyStore
from abstain.server.limits import BodyLimitMiddleware
from abstain.server.ratelimit import RateLimiter
from abstain.server.state import Services, StreamFn, services
from abstain.stream import stream_answer

if TYPE_CHECKING:
    from abstain.pipeline import Pipeline

log = logging.getLogger("abstain.server")
STATIC = Path(str(resources.files("abstain.server").joinpath("static")))
_PAGE_HEADERS = {"Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
                 "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def create_app(pipeline: Pipeline | None = None, *, keys: KeyStore,
               settings: Settings | None = None, config: ServerConfig | None = None,
               stream: StreamFn = stream_answer, options: Resolved | None = None) -> FastAPI:
    """Build the app around ``pipeline``, or one opened at start-up from ``options``
    (:func:`abstain.options.resolve`: flags, environment, abstain.toml) or ``settings``.

    A pipeline passed in stays the caller's to close; one the app opens is closed
    at shutdown. ``options``' per-workspace overrides become pipelines that share the
    store and the embedder. ``stream`` is the event source of ``…/ask/stream``.
    """
    cfg = config or ServerConfig()
    svc = Services(keys=keys, config=cfg, stream=stream,
                   limiter=RateLimiter(cfg.rate, cfg.burst))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = pipeline is None
        if pipeline is not None:
            pipe = pipeline
        elif options is not None:
            # no workspace's table: each workspace with one gets its own pipeline below
            pipe = await run_in_threadpool(options.shared.open_pipeline)
        else:
            from abstain.pipeline import Pipeline

            pipe = await run_in_threadpool(Pipeline.from_settings, settings or Settings())
        if options is not None:
            try:
                svc.workspace_pipelines = {
                    name: options.for_workspace(name)[0].sharing(pipe)
                    for name in options.overrides}
            except BaseException:
                if owned:
                    await run_in_threadpool(pipe.close)
                raise
        pipes = [pipe, *svc.workspace_pipelines.values()]
        if cfg.query_batching:
            svc.query_batcher = QueryBatcher(pipe.embedder)
            for each in pipes:
                each.retriever.embedder = svc.query_batcher
        await run_in_threadpool(pipe.embedder.embed_batch, ["ready"])
        svc.stream_threads = anyio.CapacityLimiter(STREAM_THREADS)
        observer = app.state.metrics.observe if app.state.metrics is not None else None
        if observer is not None:
            for each in pipes:
                each.observers.append(observer)
        svc.pipeline, svc.model = pipe, pipe.embedder.name
        log.info("abstain server ready (model %s)", svc.model)
        try:
            yield
        finally:
            svc.pipeline = None
            if observer is not None:
                for each in pipes:
                    each.observers.remove(observer)
            for each in pipes:
                each.retriever.embedder = each.embedder
            for shared in svc.workspace_pipelines.values():
                close_shared(shared)
            svc.workspace_pipelines = {}
            if owned:
                await run_in_threadpool(pipe.close)

    # Swagger UI (/docs) and ReDoc (/redoc) from assets served by this server, not a CDN
    app = FastAPIOffline(title=cfg.title, version=__version__, lifespan=lifespan,
                         description="Answers from your documents, or says why it can't. "
                                     "See docs/SERVER.md.",
                         docs_url="/docs", redoc_url="/redoc")
    app.state.services = svc
    app.state.metrics = _metrics()
    errors.install(app)
    app.add_middleware(BodyLimitMiddleware, max_upload_bytes=cfg.max_upload_bytes,
                       max_json_bytes=cfg.max_json_bytes)
    app.include_router(documents.router)
    app.include_router(ask.router)
    app.include_router(review.router)
    app.include_router(metrics.router)
    app.include_router(openai_compat.router)
    app.add_api_route("/health", health, methods=["GET"], tags=["service"],
                      summary="Liveness: the process answers")
    app.add_api_route("/ready", ready, methods=["GET"], tags=["service"],
                      summary="Readiness: store reachable, model loaded",
                      responses=errors.error_responses(503))
    app.add_api_route("/", page, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _metrics() -> metrics.Metrics | None:
    """The app's Prometheus registry; None (and /metrics answers 503) without the package."""
    from abstain.errors import MissingDependency

    try:
        return metrics.Metrics()
    except MissingDependency as exc:
        log.warning("GET /metrics is off: %s", exc)
        return None


async def health() -> dict[str, str]:
    return {"status": "ok", "version": __version__}


async def ready(request: Request) -> JSONResponse:
    svc = services(request)
    pipe = svc.pipeline
    if pipe is None or svc.model is None:
        return JSONResponse(errors.error_body("not_ready", "the model is still loading"),
                            status_code=503, headers={"Retry-After": "1"})
    try:
        workspaces = await run_in_threadpool(pipe.store.workspaces)
    except Exception as exc:
        log.warning("readiness: store unreachable: %s", exc)
        return JSONResponse(errors.error_body("store_unreachable",
                                              f"the store cannot be read: {exc}"),
                            status_code=503, headers={"Retry-After": "5"})
    batcher = svc.query_batcher
    return JSONResponse({"status": "ready", "model": svc.model, "workspaces": len(workspaces),
                         "streams_active": svc.streams.active,
                         "vector_index_loads": getattr(pipe.store, "index_loads", None),
                         "query_embeddings": None if batcher is None else
                         {"texts": batcher.texts, "model_calls": batcher.calls}})


async def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", headers=_PAGE_HEADERS)
