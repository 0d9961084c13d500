"""Fuzz the live OpenAPI spec with schemathesis: no 5xx, every response as the spec says.

Three passes over real HTTP, with keys:

* per operation, valid requests aimed at the ``fuzz`` workspace with its key (so they
  reach the pipeline), EXAMPLES["POSITIVE"] each;
* per operation, schema-violating requests with random paths, bodies and parameters,
  EXAMPLES["NEGATIVE"] each;
* stateful: sequences that follow the spec's links (upload -> delete / list / ask,
  log -> label) with the admin key in the ``fuzz`` workspace, STATEFUL runs of up to
  STEPS calls.

Every response must pass schemathesis' conformance checks (CHECKS: no server error, a
documented status, content type, headers and body schema). Bounded by the number of
examples, all of which are sent: about a minute. The counts are printed; the last
figures are in docs/RELIABILITY.md.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.server.conftest import Env
from tests.server.helpers import bearer

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis import checks  # noqa: E402

EXAMPLES = {"POSITIVE": 20, "NEGATIVE": 15}
STATEFUL, STEPS = 40, 6
CHECKS = [checks.not_a_server_error, checks.status_code_conformance,
          checks.content_type_conformance, checks.response_headers_conformance,
          checks.response_schema_conformance]


def _failure(label: str, response: Any, case: Any, exc: BaseException) -> str:
    first = " ".join(str(exc).split())[:1200]
    return f"{label}: {response.status_code} {first} for {case.as_curl_command()}"


def _ask_the_fuzz_workspace(case: Any) -> Any:
    """A chat request to the fuzz workspace that ends with a user's question (so it
    reaches the pipeline); the rest of the body stays as generated."""
    if isinstance(case.body, dict):
        case.body["model"] = "fuzz"
        case.body["messages"] = [*case.body.get("messages", []),
                                 {"role": "user", "content": "What does the fuzz note hold?"}]
    return case


def test_openapi_fuzzing_finds_no_server_errors(server: Env) -> None:
    spec = httpx.get(f"{server.url}/openapi.json").json()
    schema = schemathesis.openapi.from_dict(spec)
    headers = bearer(server.keys.fuzz)
    seen: dict[str, set[int]] = {}
    failures: list[str] = []
    sent = 0

    def fuzz(label: str, strategy: Any, examples: int) -> None:
        @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                  phases=[Phase.explicit, Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(case=strategy)
        def run(case: Any) -> None:
            nonlocal sent
            response = case.call(base_url=server.url, headers=headers, timeout=30)
            sent += 1
            seen.setdefault(label, set()).add(response.status_code)
            try:
                case.validate_response(response, checks=CHECKS)
            except BaseException as exc:  # schemathesis' FailureGroup
                failures.append(_failure(label, response, case, exc))

        try:
            run()
        except Unsatisfiable:
            # No way to violate the schema (an operation without parameters or body).
            seen.setdefault(label, set())

    for result in schema.get_all_operations():
        operation = result.ok()
        label = f"{operation.method.upper()} {operation.path}"
        for mode_name, examples in EXAMPLES.items():
            mode = getattr(schemathesis.GenerationMode, mode_name)
            fixed: dict[str, Any] = {"path_parameters": {"ws": "fuzz"}} if (
                mode_name == "POSITIVE" and "{ws}" in operation.path) else {}
            strategy = operation.as_strategy(mode, **fixed)
            if mode_name == "POSITIVE" and operation.path == "/v1/chat/completions":
                strategy = strategy.map(_ask_the_fuzz_workspace)
            fuzz(label, strategy, examples)

    print(f"{sent} requests; statuses: {({k: sorted(v) for k, v in seen.items()})}")
    assert not failures, "\n".join(failures)
    assert len(seen) >= 11, seen
    # The positive pass really reached the handlers, not only auth and validation.
    assert 200 in seen["POST /v1/workspaces/{ws}/ask"]
    assert 201 in seen["POST /v1/workspaces/{ws}/documents"]
    assert 200 in seen["POST /v1/chat/completions"]


def test_stateful_fuzzing_follows_links_without_server_errors(server: Env) -> None:
    spec = httpx.get(f"{server.url}/openapi.json").json()
    schema = schemathesis.openapi.from_dict(spec)
    admin = bearer(server.keys.admin)
    calls: dict[str, set[int]] = {}
    failures: list[str] = []
    sent: list[int] = []

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case: Any) -> None:
            if "ws" in (case.path_parameters or {}):
                case.path_parameters["ws"] = "fuzz"

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"base_url": server.url, "headers": admin, "timeout": 30}

        def validate_response(self, response: Any, case: Any, *args: Any,
                              **kwargs: Any) -> None:
            label = f"{case.operation.method.upper()} {case.operation.path}"
            calls.setdefault(label, set()).add(response.status_code)
            sent.append(response.status_code)
            try:
                case.validate_response(response, checks=CHECKS)
            except BaseException as exc:  # schemathesis' FailureGroup
                failures.append(_failure(label, response, case, exc))

    Workflow.run(settings=settings(max_examples=STATEFUL, stateful_step_count=STEPS,
                                   deadline=None, database=None, derandomize=True,
                                   suppress_health_check=list(HealthCheck)))
    print(f"{len(sent)} stateful requests; statuses: "
          f"{({k: sorted(v) for k, v in calls.items()})}")
    assert not failures, "\n".join(failures)
    assert 201 in calls["POST /v1/workspaces/{ws}/documents"]
    assert 204 in calls.get("DELETE /v1/workspaces/{ws}/documents/{document_id}", set())
