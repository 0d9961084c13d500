"""Fuzz every operation of the live OpenAPI spec with schemathesis: no response is a 5xx.

Two passes per operation, over real HTTP: valid requests aimed at the ``fuzz``
workspace with its key (so they reach the pipeline), and schema-violating
requests with random paths, bodies and parameters. Bounded by the number of examples
per operation (EXAMPLES), all of which are sent: about 30 s.
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

EXAMPLES = {"POSITIVE": 20, "NEGATIVE": 15}


def test_openapi_fuzzing_finds_no_server_errors(server: Env) -> None:
    spec = httpx.get(f"{server.url}/openapi.json").json()
    schema = schemathesis.openapi.from_dict(spec)
    headers = bearer(server.keys.fuzz)
    seen: dict[str, set[int]] = {}
    server_errors: list[str] = []

    def fuzz(label: str, strategy: Any, examples: int) -> None:
        @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                  phases=[Phase.explicit, Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(case=strategy)
        def run(case: Any) -> None:
            response = case.call(base_url=server.url, headers=headers, timeout=30)
            seen.setdefault(label, set()).add(response.status_code)
            if response.status_code >= 500:
                server_errors.append(f"{label}: {response.status_code} "
                                     f"{response.text[:200]} for {case.as_curl_command()}")

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
            fuzz(label, operation.as_strategy(mode, **fixed), examples)

    print({k: sorted(v) for k, v in seen.items()})
    assert not server_errors, "\n".join(server_errors)
    assert len(seen) >= 7, seen
    # The positive pass really reached the handlers, not only auth and validation.
    assert 200 in seen["POST /v1/workspaces/{ws}/ask"]
    assert 201 in seen["POST /v1/workspaces/{ws}/documents"]
