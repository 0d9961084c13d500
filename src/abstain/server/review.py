"""Review the query log over HTTP (admin keys only): list entries, label one per click.

``GET /v1/workspaces/{ws}/log`` lists a workspace's logged questions, newest first;
``POST /v1/workspaces/{ws}/log/{id}/label`` with ``{"expected": "answer" | "refuse",
"note": "…"}`` labels one. The web page's review tab uses both. Labels feed
``abstain calibrate --from-log`` and ``abstain eval --from-log`` (docs/TUNING.md).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from abstain.querylog import LogEntry, QueryLog, open_log
from abstain.server.auth import Workspace, api_key
from abstain.server.errors import ApiError, error_responses
from abstain.server.keys import ApiKey
from abstain.server.models import link
from abstain.server.state import services

router = APIRouter(prefix="/v1/workspaces/{ws}/log", tags=["review"])
_ERRORS = error_responses(400, 401, 403, 404, 413, 422, 429, 503)


class LabelRequest(BaseModel):
    expected: Literal["answer", "refuse"] = Field(
        description="answer: the documents hold the answer; refuse: they do not.")
    note: str = Field("", max_length=2000)


async def admin_workspace(ws: Workspace, key: Annotated[ApiKey, Depends(api_key)]) -> str:
    if not key.admin:
        raise ApiError(403, "forbidden", f"key {key.id} is not an admin key; reviewing the "
                                         "query log needs one")
    return ws


AdminWorkspace = Annotated[str, Depends(admin_workspace)]


def _log(request: Request) -> QueryLog:
    return open_log(services(request).ready_pipeline().store)


@router.get("", summary="Logged questions of the workspace, newest first (admin key)",
            responses={200: {"description": "The entries", "links": {"Label": link(
                "POST", "/v1/workspaces/{ws}/log/{entry_id}/label", "Label the newest entry",
                ws="$request.path.ws", entry_id="$response.body#/entries/0/id")}}, **_ERRORS})
async def list_entries(request: Request, ws: AdminWorkspace,
                       decision: Annotated[Literal["all", "answered", "refused"],
                                           Query()] = "all",
                       unlabelled: bool = False,
                       limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> JSONResponse:
    qlog = _log(request)
    answered = None if decision == "all" else decision == "answered"

    def read() -> dict[str, Any]:
        entries = qlog.entries(ws, answered=answered, labelled=False if unlabelled else None,
                               limit=limit)
        return {"enabled": qlog.settings().enabled, "entries": [_json(e) for e in entries]}

    return JSONResponse(await run_in_threadpool(read))


@router.post("/{entry_id}/label", summary="Label one logged question (admin key)",
             responses=_ERRORS)
async def label(request: Request, ws: AdminWorkspace,
                entry_id: Annotated[int, Path(ge=1, le=2**62)],
                body: LabelRequest) -> JSONResponse:
    qlog = _log(request)

    def write() -> LogEntry | None:
        if not qlog.label(ws, entry_id, body.expected, body.note):
            return None
        return qlog.get(ws, entry_id)

    entry = await run_in_threadpool(write)
    if entry is None:
        raise ApiError(404, "not_found", f"no log entry {entry_id} in workspace {ws!r}")
    return JSONResponse(_json(entry))


def _json(entry: LogEntry) -> dict[str, Any]:
    return {**entry.to_json(), "label_agrees": entry.label_agrees}
