"""Request bodies (pydantic) and the OpenAPI schemas of responses built from abstain's JSON.

Responses are the library's own ``to_json()`` output, returned as is; their
schemas here document the stable fields and allow additional ones, so the
server never filters a field the library adds.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

TextFormat = Literal["md", "markdown", "txt", "text", "html"]


def valid_unicode(value: str) -> str:
    """Reject text that cannot be UTF-8 (a lone UTF-16 surrogate from a JSON ``\\ud800``)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"not valid Unicode: a lone surrogate at position {exc.start}"
                         ) from None
    return value


class Clarifies(BaseModel):
    """The clarifying question a user's question answers (a refusal ``unknown_term``)."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The question that was answered with a clarifying "
                                      "question (the refusal's `question`).")
    term: str = Field(description="The term it asked about (the refusal's `missing[0]`).")

    @field_validator("question", "term")
    @classmethod
    def _unicode(cls, value: str) -> str:
        return valid_unicode(value)


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The question. Longer than 4,000 characters is refused "
                                      "with reason `question_too_long` (HTTP 200).")
    clarifies: Clarifies | None = Field(
        default=None, description="Set when `question` is the user's reply to a clarifying "
        "question (refusal `unknown_term`): a short reply takes the unclear term's place in "
        "the earlier question, a longer one is added to it, a question replaces it.")

    @field_validator("question")
    @classmethod
    def _unicode(cls, value: str) -> str:
        return valid_unicode(value)

    def asked(self) -> str:
        """The question to answer, with the reply to a clarifying question read in."""
        if self.clarifies is None:
            return self.question
        from abstain.terminology import reply_to_clarification

        return reply_to_clarification(self.clarifies.question, self.clarifies.term,
                                      self.question)


class TextDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, description="The document's content.")
    source: str = Field(min_length=1, max_length=512,
                        description="Its name in the workspace; re-sending the same source "
                                    "replaces the document.")
    format: TextFormat = "md"
    title: str | None = Field(default=None, max_length=512)

    @field_validator("text", "source", "title")
    @classmethod
    def _unicode(cls, value: str | None) -> str | None:
        return None if value is None else valid_unicode(value)


_NULLABLE_STR = {"type": ["string", "null"]}

CITATION_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["n", "source", "chunk_id", "quote"],
    "properties": {"n": {"type": "integer"}, "source": {"type": "string"},
                   "chunk_id": {"type": "string"}, "quote": {"type": "string"},
                   "title": {"type": "string"},
                   "url": {"type": "string", "description": "The source's link, when the "
                           "server makes one (`abstain serve --source-url`)"}},
}
REFUSAL_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["reason", "message"],
    "properties": {"reason": {"type": "string"}, "message": {"type": "string"},
                   "suggestions": {"type": "array", "items": {"type": "string"}},
                   "missing": {"type": "array", "items": {"type": "string"}}},
}
ANSWER_SCHEMA: dict[str, Any] = {
    "title": "Answer", "type": "object",
    "description": "Answer.to_json(): the same schema as `abstain ask --json` (docs/SCHEMA.md).",
    "required": ["question", "answered", "answer", "refusal", "confidence",
                 "display_confidence", "triage", "citations", "checks", "llm_called"],
    "properties": {
        "question": {"type": "string"}, "answered": {"type": "boolean"},
        "answer": _NULLABLE_STR,
        "refusal": {"anyOf": [REFUSAL_SCHEMA, {"type": "null"}]},
        "confidence": {"type": "number"}, "display_confidence": {"type": "number"},
        "triage": {"type": "string"},
        "citations": {"type": "array", "items": CITATION_SCHEMA},
        "checks": {"type": "array", "items": {"type": "object"}},
        "llm_called": {"type": "boolean"},
        "timings_ms": {"type": "object"},
        "language": {"type": "string"},
    },
}
DOCUMENT_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["id", "workspace", "source", "title", "chunks"],
    "properties": {"id": {"type": "string"}, "workspace": {"type": "string"},
                   "source": {"type": "string"}, "title": {"type": "string"},
                   "content_hash": {"type": "string"}, "curated": {"type": "boolean"},
                   "published": {"type": "boolean"}, "chunks": {"type": "integer"},
                   "updated_at": {"type": "string"}},
}
DOCUMENT_LIST_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["workspace", "documents"],
    "properties": {"workspace": {"type": "string"},
                   "documents": {"type": "array", "items": DOCUMENT_SCHEMA}},
}
INGEST_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["added", "updated", "unchanged", "skipped", "documents"],
    "properties": {
        "added": {"type": "array", "items": {"type": "string"}},
        "updated": {"type": "array", "items": {"type": "string"}},
        "unchanged": {"type": "array", "items": {"type": "string"}},
        "skipped": {"type": "array", "items": {"type": "object"}},
        "chunks": {"type": "integer"},
        "screened": {"type": "array", "items": {
            "type": "object", "properties": {"source": {"type": "string"},
                                             "left_out": {"type": "string"},
                                             "first": {"type": "string"}}}},
        "read_as": {"type": "array", "items": {
            "type": "object", "properties": {"source": {"type": "string"},
                                             "as": {"type": "string"}}}},
        "documents": {"type": "array", "items": {
            "type": "object", "properties": {"id": {"type": "string"},
                                             "source": {"type": "string"}}}},
    },
}
UPLOAD_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "multipart/form-data": {"schema": {
            "type": "object", "required": ["file"],
            "properties": {"file": {"type": "array", "items": {"type": "string",
                                                              "format": "binary"}}}}},
        "application/json": {"schema": TextDocument.model_json_schema()},
    },
}


def json_response(schema: dict[str, Any], description: str,
                  links: dict[str, Any] | None = None) -> dict[str, Any]:
    response = {"description": description, "content": {"application/json": {"schema": schema}}}
    return {**response, "links": links} if links else response


def link(method: str, path: str, description: str, **parameters: str) -> dict[str, Any]:
    """An OpenAPI link from a response to the operation ``method path`` (what a client,
    and the stateful fuzzing in tests/server/test_fuzz.py, may call next with it)."""
    pointer = path.replace("~", "~0").replace("/", "~1")
    return {"operationRef": f"#/paths/{pointer}/{method.lower()}", "description": description,
            "parameters": parameters}
