"""Upload (multipart files or JSON text), list and delete a workspace's documents.

Each document becomes visible whole or not at all, so a failed or cancelled
upload leaves nothing half-written. Unreadable files (not UTF-8, a broken PDF,
empty) are skipped and reported as the CLI reports them; when no file is
readable the upload is a 422. A batch naming one file twice is rejected whole.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import PurePosixPath, PureWindowsPath

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from abstain.errors import IngestError, SourceConflict
from abstain.ingest import IngestReport, document_id
from abstain.ingest.parse import decode_text, readable, unsupported
from abstain.server.auth import Workspace
from abstain.server.errors import ApiError, error_responses
from abstain.server.models import (
    DOCUMENT_LIST_SCHEMA,
    INGEST_SCHEMA,
    UPLOAD_BODY,
    TextDocument,
    json_response,
    link,
)
from abstain.server.state import services

router = APIRouter(prefix="/v1/workspaces/{ws}/documents", tags=["documents"])
MAX_FILES = 20
MAX_NAME = 255
_DOCS = "/v1/workspaces/{ws}/documents"
_UPLOAD_LINKS = {
    "DeleteDocument": link("DELETE", _DOCS + "/{document_id}", "Delete the first document",
                           ws="$request.path.ws", document_id="$response.body#/documents/0/id"),
    "ListDocuments": link("GET", _DOCS, "List the workspace's documents", ws="$request.path.ws"),
    "Ask": link("POST", "/v1/workspaces/{ws}/ask", "Ask in the workspace", ws="$request.path.ws"),
}
_FORMATS = {".md": "md", ".markdown": "md", ".txt": "txt", ".html": "html", ".htm": "html"}


@router.post("", status_code=201, summary="Add or replace documents",
             openapi_extra={"requestBody": UPLOAD_BODY},
             responses={201: json_response(INGEST_SCHEMA, "What was ingested", _UPLOAD_LINKS),
                        **error_responses(400, 401, 403, 409, 413, 415, 422, 429, 503)})
async def upload(request: Request, ws: Workspace) -> JSONResponse:
    """Multipart `file` fields (.md .txt .html .pdf), or JSON `{"text", "source", "format",
    "title"}`. Re-sending a source replaces that document; an unchanged one is a no-op."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    skipped: list[tuple[str, str]] = []
    items: list[TextDocument | _Upload]
    if content_type == "multipart/form-data":
        items, skipped = await _files(request)
    elif content_type == "application/json" or content_type.endswith("+json"):
        items = [_text_document(await request.body())]
    else:
        raise ApiError(415, "unsupported_media_type",
                       "send multipart/form-data with 'file' fields, or application/json")
    if not items:  # every file was unreadable: an error, as for one file
        raise ApiError(422, "unreadable_document",
                       "; ".join(f"{source}: {reason}" for source, reason in skipped))
    pipe = services(request).ready_pipeline()

    def ingest() -> IngestReport:
        report = IngestReport(skipped=list(skipped))
        for doc in items:
            try:
                if isinstance(doc, _Upload):
                    report.merge(pipe.ingest_bytes(doc.data, source=doc.source, workspace=ws))
                else:
                    report.merge(pipe.ingest_text(doc.text, source=doc.source, fmt=doc.format,
                                                  title=doc.title, workspace=ws))
            except IngestError as exc:
                report.skipped.append((doc.source, exc.reason))
        return report

    try:
        report = await run_in_threadpool(ingest)
    except SourceConflict as exc:
        raise ApiError(409, "source_conflict", str(exc)) from exc
    if not (report.added or report.updated or report.unchanged):  # every file unreadable
        raise ApiError(422, "unreadable_document",
                       "; ".join(f"{source}: {reason}" for source, reason in report.skipped))
    sources = [*report.added, *report.updated, *report.unchanged]
    return JSONResponse({
        "added": report.added, "updated": report.updated, "unchanged": report.unchanged,
        "skipped": [{"source": s, "reason": r} for s, r in report.skipped],
        "chunks": report.chunks,
        "screened": report.screened_json(),
        "read_as": [{"source": s, "as": a} for s, a in report.read_as],
        "documents": [{"id": document_id(ws, s), "source": s} for s in sources],
    }, status_code=201)


@router.get("", summary="List documents",
            responses={200: json_response(DOCUMENT_LIST_SCHEMA, "The workspace's documents"),
                       **error_responses(401, 403, 422, 429, 503)})
async def list_documents(request: Request, ws: Workspace) -> JSONResponse:
    pipe = services(request).ready_pipeline()
    rows = await run_in_threadpool(pipe.store.list_documents, ws)
    return JSONResponse({"workspace": ws, "documents": [dataclasses.asdict(r) for r in rows]})


@router.delete("/{document_id}", status_code=204, summary="Delete a document and its chunks",
               responses={204: {"description": "Deleted"},
                          **error_responses(401, 403, 404, 422, 429, 503)})
async def delete_document(request: Request, ws: Workspace, document_id: str) -> Response:
    pipe = services(request).ready_pipeline()
    if not await run_in_threadpool(pipe.store.delete_document, ws, document_id):
        raise ApiError(404, "unknown_document", f"no document {document_id!r} in {ws!r}")
    return Response(status_code=204)


def _text_document(raw: bytes) -> TextDocument:
    try:
        payload = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(400, "malformed_json", "the request body is not valid JSON") from exc
    try:
        return TextDocument.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(422, "invalid_request", f"{where}: {first['msg']}") from exc


async def _files(request: Request) -> tuple[list[TextDocument | _Upload],
                                           list[tuple[str, str]]]:
    """The files to ingest and (source, reason) for each that cannot be, as the CLI reports
    them (a file whose format is parsed from its bytes is judged when it is ingested). Two
    files with one name reject the whole upload; so do files of types no parser reads, when
    every file is one (415: one ``.exe``), else they are skipped as the CLI skips them."""
    try:
        form = await request.form(max_files=MAX_FILES, max_fields=MAX_FILES)
    except ApiError:
        raise
    except Exception as exc:  # python-multipart / starlette parse errors
        raise ApiError(400, "malformed_multipart", f"cannot read the form: {exc}") from exc
    try:
        uploads = [v for v in form.getlist("file") if isinstance(v, UploadFile)]
        if not uploads:
            raise ApiError(422, "invalid_request", "send at least one 'file' field")
        names = [_source_name(u.filename) for u in uploads]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ApiError(422, "duplicate_source",
                           f"{', '.join(twice)}: sent more than once in one upload; a name "
                           "identifies a document in its workspace, so nothing was ingested. "
                           "Rename the files or upload them separately.")
        docs: list[TextDocument | _Upload] = []
        skipped: list[tuple[str, str]] = []
        unsupported_types: list[ApiError] = []
        for name, upload in zip(names, uploads, strict=True):
            try:
                doc = _decode(name, await upload.read())
            except IngestError as exc:
                skipped.append((name, exc.reason))
                continue
            except ApiError as exc:
                if exc.code != "unsupported_media_type":
                    raise
                unsupported_types.append(exc)
                skipped.append((name, exc.message.removeprefix(f"{name}: ")))
                continue
            docs.append(doc)
        if unsupported_types and len(unsupported_types) == len(uploads):
            raise unsupported_types[0]
        return docs, skipped
    finally:
        await form.close()


def _source_name(filename: str | None) -> str:
    """The file's base name; a client's directories never reach the store."""
    name = PureWindowsPath(PurePosixPath(filename or "").name).name.strip()
    if len(name) > MAX_NAME:
        suffix = PurePosixPath(name).suffix
        suffix = suffix if len(suffix) <= 16 else ""
        name = name[:MAX_NAME - len(suffix)] + suffix  # keep the extension
    return name or "upload"


@dataclasses.dataclass(frozen=True, slots=True)
class _Upload:
    """A file whose format is parsed from its bytes (PDF, reST, Word, PowerPoint, Excel,
    notebooks, mail, CSV): ingested as the CLI ingests the file, structure and all."""

    source: str
    data: bytes


def _decode(source: str, data: bytes) -> TextDocument | _Upload:
    """The upload as text to ingest, or as bytes to parse by its suffix."""
    suffix = PurePosixPath(source).suffix.lower()
    if not readable(suffix):
        raise ApiError(415, "unsupported_media_type",
                       f"{source}: {unsupported(source, suffix, listed=True).reason}")
    if suffix not in _FORMATS:
        return _Upload(source, data)
    text = decode_text(data, source)  # the CLI's decoder: UTF-8 or a reported skip
    if not text.strip():
        raise IngestError(source, "the document is empty")
    fmt = _FORMATS[suffix]
    return TextDocument(text=text, source=source, format=fmt)  # type: ignore[arg-type]
