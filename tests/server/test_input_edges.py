"""Edges of the input: lone surrogates, long file names, a missing Content-Type, offline docs."""

from __future__ import annotations

import httpx

from tests.server.conftest import Env
from tests.server.helpers import bearer, parse_sse
from tests.server.test_documents import WS, scratch  # noqa: F401  (fixture)

SURROGATE = b'{"question": "How do I reset the admin \\ud800 password?"}'


def test_a_lone_surrogate_is_422_not_500(server: Env) -> None:
    for path in ("ask", "ask/stream"):
        response = httpx.post(f"{server.url}/v1/workspaces/docs/{path}", content=SURROGATE,
                              headers={**bearer(server.keys.docs),
                                       "Content-Type": "application/json"}, timeout=30)
        assert response.status_code == 422, path
        assert response.json()["error"]["code"] == "invalid_request"
        assert "lone surrogate" in response.json()["error"]["message"]


def test_a_stream_event_that_cannot_be_encoded_is_an_error_event() -> None:
    from abstain.server.sse import SSEEncoder, utf8
    from abstain.stream import Event

    encoder = SSEEncoder()
    chunk = utf8(encoder.encode(Event("sentence", {"n": 1, "text": "bad \ud800"})), encoder)
    assert parse_sse(chunk.decode()) == [("error", {"error": {
        "code": "invalid_input", "message": "the text is not valid Unicode (a lone surrogate)"}})]


def test_a_long_file_name_keeps_its_extension(scratch: httpx.Client) -> None:  # noqa: F811
    name = "n" * 300 + ".md"
    response = scratch.post(WS, files={"file": (name, b"# Long\n\nA long name.", "text/markdown")})
    assert response.status_code == 201, response.text
    source = response.json()["added"][0]
    assert len(source) == 255 and source.endswith(".md")


def test_a_body_without_json_content_type_gets_a_hint(server: Env) -> None:
    response = httpx.post(f"{server.url}/v1/workspaces/docs/ask",
                          content=b'{"question": "How do I reset the admin password?"}',
                          headers={**bearer(server.keys.docs),
                                   "Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == (
        "send the body as JSON with the header 'Content-Type: application/json' "
        "(got 'application/x-www-form-urlencoded')")


def test_api_docs_work_offline(server: Env) -> None:
    for page, asset in (("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")):
        html = httpx.get(f"{server.url}{page}").text
        assert f"/static-offline-docs/{asset}" in html and "cdn" not in html.lower()
        assert httpx.get(f"{server.url}/static-offline-docs/{asset}").status_code == 200
