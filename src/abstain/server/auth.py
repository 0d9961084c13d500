"""Bearer keys, workspace access and the per-key rate limit, as FastAPI dependencies.

Order of checks: no or unknown key -> 401; over the key's rate -> 429 with
``Retry-After``; a workspace key on another workspace -> 403. Admin keys may
use every workspace.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from abstain.server.config import WORKSPACE_PATTERN
from abstain.server.errors import ApiError
from abstain.server.keys import ApiKey
from abstain.server.ratelimit import retry_after
from abstain.server.state import services

bearer = HTTPBearer(auto_error=False, scheme_name="ApiKey",
                    description="`Authorization: Bearer abk_…` — create keys with "
                                "`abstain keys create`.")
_CHALLENGE = {"WWW-Authenticate": "Bearer"}


async def api_key(request: Request,
                  credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
                  ) -> ApiKey:
    if credentials is None:
        raise ApiError(401, "missing_key", "send an API key as 'Authorization: Bearer KEY'",
                       _CHALLENGE)
    svc = services(request)
    key = svc.keys.verify(credentials.credentials)
    if key is None:
        raise ApiError(401, "invalid_key", "the API key is unknown or revoked", _CHALLENGE)
    wait = svc.limiter.acquire(key.id)
    if wait > 0:
        raise ApiError(429, "rate_limited",
                       f"too many requests for key {key.id}; retry in {retry_after(wait)} s",
                       {"Retry-After": retry_after(wait)})
    return key


async def workspace(ws: Annotated[str, Path(pattern=WORKSPACE_PATTERN, max_length=64,
                                            description="Workspace (tenant) name.")],
                    key: Annotated[ApiKey, Depends(api_key)]) -> str:
    """The path's workspace, once the key may use it."""
    if not key.can_access(ws):
        raise ApiError(403, "forbidden",
                       f"key {key.id} is for workspace {key.workspace!r}, not {ws!r}")
    return ws


Workspace = Annotated[str, Depends(workspace)]
