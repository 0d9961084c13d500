"""`abstain ask` with an LLM: --llm / --llm-model / --strictness and the ABSTAIN_LLM_* env."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstain.cli import cli
from abstain.testing import ScriptedOpenAIServer, down_url
from tests.llm_support import FABRICATED, KEYS_Q


def test_ask_json_reports_removed_claims_and_faithfulness(
        kb: Path, server: ScriptedOpenAIServer) -> None:
    server.script(f"API keys are rotated every 30 days [1]. {FABRICATED} [1]")
    result = CliRunner().invoke(cli, ["ask", KEYS_Q, "--db", str(kb), "--llm", server.url,
                                      "--llm-model", "tiny", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["answered"] and payload["unsupported_claims"] == [FABRICATED]
    assert payload["triage"] == "verification_failed"
    assert 0 < payload["faithfulness"] <= 1
    assert set(payload["faithfulness_components"]) == {
        "support", "retrieval", "generation", "generation_logprob", "kept_share"}
    assert server.chat_requests[0].body["model"] == "tiny"


def test_env_configures_the_llm_and_its_key(kb: Path, server: ScriptedOpenAIServer,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ABSTAIN_LLM_URL", server.url)
    monkeypatch.setenv("ABSTAIN_LLM_MODEL", "from-env")
    monkeypatch.setenv("ABSTAIN_LLM_API_KEY", "sk-test")
    server.script(f"API keys are rotated every 30 days [1]. {FABRICATED} [1]")
    result = CliRunner().invoke(cli, ["ask", KEYS_Q, "--db", str(kb)])
    assert result.exit_code == 0, result.output
    assert "removed (unsupported): " + FABRICATED in result.output
    assert "faithfulness=" in result.output
    [request] = server.chat_requests
    assert request.body["model"] == "from-env"
    assert request.headers.get("Authorization") == "Bearer sk-test"


def test_strictness_paranoid_refuses_and_down_server_is_one_line(
        kb: Path, server: ScriptedOpenAIServer) -> None:
    server.script(f"API keys are rotated every 30 days [1]. {FABRICATED} [1]")
    result = CliRunner().invoke(cli, ["ask", KEYS_Q, "--db", str(kb), "--llm", server.url,
                                      "--strictness", "paranoid", "--json"])
    payload = json.loads(result.output)
    assert payload["refusal"]["reason"] == "low_faithfulness"

    result = CliRunner().invoke(cli, ["ask", KEYS_Q, "--db", str(kb), "--llm", down_url(),
                                      "--debug"])
    assert result.exit_code == 0, result.output
    assert "Refused (llm_error" in result.output
    assert "LLM answer: default unreachable" in result.output
    assert "Traceback" not in result.output
