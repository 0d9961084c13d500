"""Every error the server returns is JSON: ``{"error": {"code", "message"}}``.

Handlers here turn HTTP errors, validation errors, abstain's own errors and
anything unexpected into that shape; a traceback never reaches a client.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from abstain.errors import AbstainError, InputError, UnknownWorkspace

log = logging.getLogger("abstain.server")

_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
          405: "method_not_allowed", 406: "not_acceptable", 409: "conflict",
          413: "payload_too_large",
          415: "unsupported_media_type", 422: "invalid_request", 429: "rate_limited",
          500: "internal_error", 503: "not_ready"}


class ApiError(HTTPException):
    """An HTTP error with a stable machine-readable code."""

    def __init__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(status, message, headers)
        self.code = code
        self.message = message


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **extra}}


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["error"],
    "properties": {"error": {"type": "object", "required": ["code", "message"],
                             "properties": {"code": {"type": "string"},
                                            "message": {"type": "string"}}}},
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for the given error statuses."""
    return {s: {"description": _CODES.get(s, "error").replace("_", " "),
                "content": {"application/json": {"schema": ERROR_SCHEMA}}} for s in statuses}


def install(app: FastAPI) -> None:
    app.add_exception_handler(HTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(AbstainError, _abstain_error)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, _unexpected)


async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if isinstance(exc, ApiError):
        code, message = exc.code, exc.message
    elif exc.status_code == 400 and content_type.endswith("json"):
        # the framework could not read the body (bytes that are not UTF-8 text)
        code, message = "malformed_json", "the request body is not valid JSON (UTF-8 text)"
    else:
        code = _CODES.get(exc.status_code, f"http_{exc.status_code}")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    return JSONResponse(error_body(code, message), status_code=exc.status_code,
                        headers=exc.headers)


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return JSONResponse(error_body("malformed_json", "the request body is not valid JSON"),
                            status_code=400)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if (request.method == "POST" and not content_type.endswith("json")
            and any(tuple(e.get("loc", ()))[:1] == ("body",) for e in errors)):
        hint = ("send the body as JSON with the header 'Content-Type: application/json'"
                + (f" (got {content_type!r})" if content_type else ""))
        return JSONResponse(error_body("invalid_request", hint), status_code=422)
    details = [{"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", ""))}
               for e in errors[:20]]
    first = details[0] if details else {"loc": [], "msg": "invalid request"}
    message = f"{'.'.join(first['loc']) or 'request'}: {first['msg']}"
    return JSONResponse(error_body("invalid_request", message, details=details),
                        status_code=422)


async def _abstain_error(request: Request, exc: AbstainError) -> JSONResponse:
    if isinstance(exc, UnknownWorkspace):
        return JSONResponse(error_body("unknown_workspace", str(exc)), status_code=404)
    if isinstance(exc, InputError):
        return JSONResponse(error_body("invalid_input", str(exc)), status_code=422)
    log.error("abstain error on %s %s: %s", request.method, request.url.path, exc)
    return JSONResponse(error_body("service_error", str(exc)), status_code=503,
                        headers={"Retry-After": "5"})


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return JSONResponse(error_body("internal_error", "internal server error"), status_code=500)
