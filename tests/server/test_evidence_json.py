"""`ask --json` and the HTTP answer carry the same evidence, named as in `search --json`."""

from __future__ import annotations

import json

import httpx
from click.testing import CliRunner

from abstain.cli.main import cli
from tests.server.conftest import Env
from tests.server.helpers import ANSWERED, REFUSED, bearer


def _cli(env: Env, *args: str) -> dict[str, object]:
    db = env.pipeline.store.path  # type: ignore[attr-defined]
    result = CliRunner().invoke(cli, [*args, "--db", db, "--workspace", "docs", "--json"])
    assert result.exit_code == 0, result.output
    payload: dict[str, object] = json.loads(result.output)
    return payload


def test_cli_and_http_agree_on_evidence(server: Env) -> None:
    for question in (ANSWERED, REFUSED):
        http = httpx.post(f"{server.url}/v1/workspaces/docs/ask", headers=bearer(server.keys.docs),
                          json={"question": question}, timeout=30).json()
        cli_json = _cli(server, "ask", question)
        assert http["evidence"] == cli_json["evidence"]
        assert http["evidence"], question


def test_evidence_fields(server: Env) -> None:
    answered = _cli(server, "ask", ANSWERED)
    hits = _cli(server, "search", ANSWERED)["hits"]
    evidence = answered["evidence"]
    assert isinstance(evidence, list) and isinstance(hits, list)
    first = evidence[0]
    assert first["n"] == 1 and first["used"] is True and first["cited"] is True
    assert set(hits[0]) <= set(first)  # the same names as search --json
    for name in ("vector_rank", "vector_distance", "keyword_rank", "keyword_score",
                 "fused_score", "confidence", "rerank_score", "chunk_id", "source", "title"):
        assert name in first
    refused = _cli(server, "ask", REFUSED)["evidence"]
    assert isinstance(refused, list)
    assert all(e["used"] is False and e["cited"] is False for e in refused)
