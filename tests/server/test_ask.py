"""The JSON ask endpoint, service endpoints, and the answers bad requests get."""

from __future__ import annotations

import httpx
import pytest

from tests.server.conftest import Env
from tests.server.helpers import ANSWERED, REFUSED, bearer


def _ask(env: Env, payload: object = None, *, content: bytes | None = None,
         headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(f"{env.url}/v1/workspaces/docs/ask",
                      headers={**bearer(env.keys.docs), **(headers or {})}, timeout=30,
                      json=payload, content=content)


def test_ask_answers_with_the_cli_schema(server: Env) -> None:
    body = _ask(server, {"question": ANSWERED}).json()
    expected = server.pipeline.ask(ANSWERED, workspace="docs").to_json()
    volatile = {"timings_ms"}
    assert {k: v for k, v in body.items() if k not in volatile} == \
        {k: v for k, v in expected.items() if k not in volatile}
    assert body["answered"] is True and body["citations"]


def test_ask_refuses_without_an_llm_call(server: Env) -> None:
    body = _ask(server, {"question": REFUSED}).json()
    assert body["answered"] is False and body["llm_called"] is False
    assert body["refusal"]["reason"] == "unknown_entity"  # nothing kept; ADR-0050 is nowhere


def test_long_question_is_a_refusal_not_an_error(server: Env) -> None:
    response = _ask(server, {"question": "why " * 1200})
    assert response.status_code == 200
    assert response.json()["refusal"]["reason"] == "question_too_long"


@pytest.mark.parametrize(("kwargs", "status", "code"), [
    ({"content": b'{"question": ', "headers": {"content-type": "application/json"}}, 400,
     "malformed_json"),
    ({"content": b"\xff\xfe", "headers": {"content-type": "application/json"}}, 400,
     "malformed_json"),
    ({"content": b'{"question": "reset \xff password"}',
      "headers": {"content-type": "application/json"}}, 400, "malformed_json"),
    ({"content": b'["question"]', "headers": {"content-type": "application/json"}}, 422,
     "invalid_request"),
    ({"content": b'{"question": 7}', "headers": {"content-type": "application/json"}}, 422,
     "invalid_request"),
    ({"content": b'{"q": "hi"}', "headers": {"content-type": "application/json"}}, 422,
     "invalid_request"),
])
def test_bad_bodies(server: Env, kwargs: dict, status: int, code: str) -> None:  # type: ignore[type-arg]
    response = _ask(server, **kwargs)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


def test_bad_workspace_name_and_unknown_route(server: Env) -> None:
    bad = httpx.post(f"{server.url}/v1/workspaces/..%2Fetc/ask", json={"question": "x"},
                     headers=bearer(server.keys.admin))
    assert bad.status_code in (404, 422) and "error" in bad.json()
    missing = httpx.get(f"{server.url}/v2/nothing")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    wrong = httpx.get(f"{server.url}/v1/workspaces/docs/ask", headers=bearer(server.keys.docs))
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def test_health_ready_openapi_and_page(server: Env) -> None:
    assert httpx.get(f"{server.url}/health").json()["status"] == "ok"
    ready = httpx.get(f"{server.url}/ready").json()
    assert ready["status"] == "ready" and ready["model"].startswith("all-MiniLM")
    spec = httpx.get(f"{server.url}/openapi.json").json()
    assert {"/v1/workspaces/{ws}/ask", "/v1/workspaces/{ws}/ask/stream",
            "/v1/workspaces/{ws}/documents", "/v1/workspaces/{ws}/documents/{document_id}",
            "/health", "/ready"} <= set(spec["paths"])
    page = httpx.get(f"{server.url}/")
    assert page.status_code == 200 and "<title>abstain" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert httpx.get(f"{server.url}/static/app.js").status_code == 200
