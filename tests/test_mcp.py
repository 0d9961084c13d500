"""`abstain mcp` with the official MCP SDK's own client: stdio (the command as a subprocess)
and streamable HTTP (a real local port, behind API keys)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="needs the mcp extra: pip install "
                                                   "'abstain[mcp]'")
pytest.importorskip("uvicorn", reason="the HTTP transport runs on uvicorn")

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from abstain.embed.base import Embedder
from abstain.pipeline import Pipeline
from abstain.server import KeyStore, ServerThread
from abstain.stores.sqlite import SQLiteStore
from tests.conftest import SAMPLE_CORPUS

ANSWERED = "How do I reset the admin password?"
REFUSED = "What does ADR-0050 decide?"
TOOLS = {"ask", "search", "list_documents"}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> Path:
    path = tmp_path_factory.mktemp("mcp") / "kb.db"
    with Pipeline(SQLiteStore(path), minilm) as pipe:
        pipe.ingest([SAMPLE_CORPUS / "adr", SAMPLE_CORPUS / "qa/reset-admin-password.md"],
                    workspace="docs")
        pipe.ingest_text("# Other\n\nThe other workspace holds one note.", source="other.md",
                         workspace="other")
    return path


def _run(scenario: Any) -> Any:
    return anyio.run(scenario)


def _structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def _text(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def _check_answer_and_refusal(answered: CallToolResult, refused: CallToolResult) -> None:
    answer = _structured(answered)
    assert answer["answered"] is True and answer["refusal"] is None
    assert answer["workspace"] == "docs" and answer["answer"]
    assert answer["citations"] and all(c["quote"] and c["source"] for c in answer["citations"])
    assert "[1]" in answer["answer"] and "[1]" in _text(answered)

    refusal = _structured(refused)
    assert refusal["answered"] is False and refusal["answer"] is None
    assert refusal["citations"] == []
    assert refusal["refusal"]["reason"] == "unknown_entity"
    assert refusal["refusal"]["missing"] == ["ADR-0050"]
    assert "ADR-0012" in refusal["refusal"]["suggestions"]
    text = _text(refused)
    assert text.startswith("REFUSED (unknown_entity)") and "ADR-0012" in text


def test_stdio_lists_tools_answers_and_refuses(db: Path) -> None:
    abstain = Path(sys.executable).with_name("abstain")
    params = StdioServerParameters(command=str(abstain),
                                   args=["mcp", "--db", str(db), "--workspace", "docs"],
                                   env={k: v for k, v in os.environ.items()
                                        if k.startswith(("XDG_", "PATH", "HOME"))})

    async def scenario() -> tuple[Any, ...]:
        async with Client(params) as client:
            tools = await client.list_tools()
            answered = await client.call_tool("ask", {"question": ANSWERED})
            refused = await client.call_tool("ask", {"question": REFUSED})
            docs = await client.call_tool("list_documents", {})
            other = await client.call_tool("list_documents", {"workspace": "other"})
            return tools, answered, refused, docs, other

    tools, answered, refused, docs, other = _run(scenario)
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name) == TOOLS
    assert by_name["ask"].output_schema is not None
    assert "refus" in (by_name["ask"].description or "")
    _check_answer_and_refusal(answered, refused)
    sources = [d["source"] for d in _structured(docs)["documents"]]
    assert len(sources) == 13 and any("reset-admin-password" in s for s in sources)
    assert [d["source"] for d in _structured(other)["documents"]] == ["other.md"]


@pytest.fixture(scope="module")
def http(db: Path, tmp_path_factory: pytest.TempPathFactory,
         minilm: Embedder) -> Iterator[tuple[str, dict[str, str]]]:
    from abstain.mcp.http import http_app
    from abstain.mcp.server import Pipelines, create_server

    keys = KeyStore(tmp_path_factory.mktemp("mcp-keys") / "keys.db")
    made = {"docs": keys.create(workspace="docs")[1],
            "other": keys.create(workspace="other")[1]}
    record, revoked = keys.create(workspace="docs")
    keys.revoke(record.id)
    made["revoked"] = revoked
    pipe = Pipeline(SQLiteStore(db), minilm, workspace="default")
    server = create_server(Pipelines(pipe), keys=keys)
    with ServerThread(http_app(server, keys)) as running:  # type: ignore[arg-type]
        yield f"{running.url}/mcp", made
    pipe.close()
    keys.close()


@asynccontextmanager
async def _http_client(url: str, key: str) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"},
                                  timeout=60) as http_client, \
            Client(streamable_http_client(url, http_client=http_client)) as client:  # type: ignore[arg-type]
        yield client


def test_http_lists_tools_answers_and_refuses(http: tuple[str, dict[str, str]]) -> None:
    url, keys = http

    async def scenario() -> tuple[Any, ...]:
        async with _http_client(url, keys["docs"]) as client:
            tools = await client.list_tools()
            # no workspace named: the key's own
            answered = await client.call_tool("ask", {"question": ANSWERED})
            refused = await client.call_tool("ask", {"question": REFUSED,
                                                     "workspace": "docs"})
            search = await client.call_tool("search", {"question": ANSWERED, "top_k": 3})
            forbidden = await client.call_tool("ask", {"question": ANSWERED,
                                                       "workspace": "other"})
            return tools, answered, refused, search, forbidden

    tools, answered, refused, search, forbidden = _run(scenario)
    assert {t.name for t in tools.tools} == TOOLS
    _check_answer_and_refusal(answered, refused)
    hits = _structured(search)["hits"]
    assert len(hits) == 3 and "reset-admin-password" in hits[0]["source"]
    assert [h["n"] for h in hits] == [1, 2, 3]
    assert forbidden.is_error and "not 'other'" in _text(forbidden)


@pytest.mark.parametrize(("key", "code"), [(None, "missing_key"), ("revoked", "invalid_key"),
                                           ("abk_00000000_wrong", "invalid_key")])
def test_http_needs_a_live_key(http: tuple[str, dict[str, str]], key: str | None,
                               code: str) -> None:
    import httpx

    url, keys = http
    headers = {} if key is None else {"Authorization": f"Bearer {keys.get(key, key)}"}
    response = httpx.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 1,
                                                      "method": "tools/list"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == code
    assert httpx.get(url.removesuffix("/mcp") + "/health").json() == {"status": "ok"}


def test_asks_with_the_options_of_ask_and_serve(tmp_path: Path, minilm: Embedder) -> None:
    """abstain.toml through options.resolve: a preset for the server, an LLM for one
    workspace ([workspaces.llm]); a call in that workspace is written by the LLM."""
    from abstain.mcp.server import Pipelines, create_server
    from abstain.options import resolve
    from abstain.pipeline import PRESETS
    from abstain.testing import ScriptedOpenAIServer
    from tests.llm_support import DOCS, FAITHFUL, KEYS_Q

    db = tmp_path / "kb.db"
    with Pipeline(SQLiteStore(db), minilm) as pipe:
        for ws in ("plain", "llm"):
            for name, text in DOCS.items():
                pipe.ingest_text(text, source=name, workspace=ws)
    with ScriptedOpenAIServer(default=FAITHFUL) as llm:
        config = tmp_path / "abstain.toml"
        config.write_text(f'preset = "strict"\n[workspaces.llm]\nllm = "{llm.url}"\n'
                          'preset = "lenient"\nstrictness = "loose"\n', encoding="utf-8")
        resolved = resolve({"store": str(db), "workspace": "plain"}, config=str(config),
                           environ={})
        pipelines = Pipelines.open(resolved)
        try:
            assert pipelines.main.gate.thresholds == PRESETS["strict"]
            assert pipelines.for_workspace("llm").gate.thresholds == PRESETS["lenient"]

            async def scenario() -> tuple[Any, ...]:
                async with Client(create_server(pipelines)) as client:
                    plain = await client.call_tool("ask", {"question": KEYS_Q})
                    written = await client.call_tool("ask", {"question": KEYS_Q,
                                                             "workspace": "llm"})
                    return plain, written

            plain, written = _run(scenario)
        finally:
            pipelines.close()
    assert _structured(plain)["workspace"] == "plain"
    assert _structured(written)["answered"] is True
    assert _structured(written)["answer"].startswith("API keys are rotated every 30 days")
    assert len(llm.chat_requests) == 1


def test_bad_calls_are_tool_errors_with_a_message(db: Path, minilm: Embedder) -> None:
    """An unknown workspace, a malformed or empty name: `isError` results that say what is
    wrong; an empty or blank question is the pipeline's refusal, as over HTTP (a newcomer saw
    "" give pydantic's error text and "   " a refusal); the server goes on."""
    from abstain.mcp.server import Pipelines, create_server

    pipe = Pipeline(SQLiteStore(db), minilm, workspace="docs")

    async def scenario() -> list[CallToolResult]:
        async with Client(create_server(Pipelines(pipe, owned=False))) as client:
            return [await client.call_tool("ask", args) for args in (
                {"question": ANSWERED, "workspace": "nowhere"},
                {"question": ANSWERED, "workspace": "../etc"},
                {"question": ANSWERED, "workspace": ""},
                {"question": ""},
                {"question": "   "},
                {"question": "Why? " * 1200},
                {"question": ANSWERED},
                {"question": "", "workspace": "nowhere"},
                {"question": "thanks!", "workspace": "nowhere"})]

    try:
        unknown, malformed, unnamed, empty, blank, long, fine, *nowhere = _run(scenario)
    finally:
        pipe.close()
    assert unknown.is_error and "nowhere" in _text(unknown)
    assert malformed.is_error and "workspace" in _text(malformed)
    assert unnamed.is_error and "invalid workspace name" in _text(unnamed)
    assert _structured(empty)["refusal"]["reason"] == "invalid_question"
    assert _structured(blank)["refusal"]["reason"] == "invalid_question"  # as `abstain ask`
    assert not long.is_error and _structured(long)["refusal"]["reason"] == "question_too_long"
    assert _structured(fine)["answered"] is True
    # a workspace that does not exist is the error, whatever the question (a newcomer's ""
    # to "nope" was refused invalid_question, where HTTP answers 404 unknown_workspace)
    assert all(r.is_error and "'nowhere' has no documents" in _text(r) for r in nowhere)
    assert "Traceback" not in "".join(_text(r) for r in (unknown, malformed, unnamed))
    # a refusal about the question, not the documents, does not say the documents lack it
    assert "do not support an answer" not in _text(long)
    assert "do not support an answer" not in _text(blank)


def test_search_and_list_documents_say_what_ask_says(db: Path, minilm: Embedder) -> None:
    """Found by a newcomer: `search` searched a 2 MB question (its argument's description
    promised the 4,000-character limit), and `list_documents` answered an unknown workspace
    with an empty list where `ask` and `search` call it an error."""
    from abstain.mcp.server import Pipelines, create_server

    pipe = Pipeline(SQLiteStore(db), minilm, workspace="docs")

    async def scenario() -> list[CallToolResult]:
        async with Client(create_server(Pipelines(pipe, owned=False))) as client:
            return [await client.call_tool("search", {"question": "Why? " * 1200}),
                    await client.call_tool("search", {"question": " ? "}),
                    await client.call_tool("list_documents", {"workspace": "nowhere"}),
                    await client.call_tool("list_documents", {"workspace": "other"})]

    try:
        long, nothing, unknown, other = _run(scenario)
    finally:
        pipe.close()
    assert long.is_error and "question_too_long" in _text(long)
    assert nothing.is_error and "empty" in _text(nothing)
    assert unknown.is_error and "nowhere" in _text(unknown)
    assert [d["source"] for d in _structured(other)["documents"]] == ["other.md"]


def test_a_refusals_missing_words_are_labelled_by_what_they_lack() -> None:
    """Found by a newcomer: "Not found in the documents: Windows" followed a refusal saying
    Windows appears in the documents; only an unknown name is absent from every document."""
    from abstain.mcp.results import ask_text

    def text(reason: str, missing: list[str]) -> str:
        return ask_text({"question": "q", "workspace": "w", "answered": False, "answer": None,
                         "refusal": {"reason": reason, "message": "m", "suggestions": [],
                                     "missing": missing},
                         "confidence": 0.0, "triage": "no_match", "language": "en",
                         "citations": []})  # type: ignore[typeddict-item]

    assert "Not found in the documents: ADR-0050" in text("unknown_entity", ["ADR-0050"])
    beside = text("entity_not_in_evidence", ["Windows"])
    assert "Not in the passages found for this question: Windows" in beside
    assert "do not answer from memory" in beside
    assert "do not answer from memory" not in text("llm_error", [])


def test_the_http_command_serves_behind_keys(db: Path, tmp_path: Path) -> None:
    """`abstain mcp --transport http` itself: starts, needs a key, answers, stops on SIGTERM."""
    import socket
    import subprocess
    import time

    import httpx

    keys = KeyStore(tmp_path / "keys.db")
    key = keys.create(workspace="docs")[1]
    keys.close()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    abstain = Path(sys.executable).with_name("abstain")
    proc = subprocess.Popen(
        [str(abstain), "mcp", "--transport", "http", "--db", str(db), "--keys",
         str(tmp_path / "keys.db"), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        assert httpx.post(f"{url}/mcp", json={}).status_code == 401

        async def scenario() -> CallToolResult:
            async with _http_client(f"{url}/mcp", key) as client:
                return await client.call_tool("ask", {"question": REFUSED})

        refused = _run(scenario)
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0].decode()
    assert _structured(refused)["refusal"]["reason"] == "unknown_entity"
    assert "Traceback" not in output, output


def test_the_server_never_creates_a_store(tmp_path: Path) -> None:
    """Found by a newcomer: `abstain mcp --db typo.db` created an empty database and served
    it, every `ask` then failing; it reads only, so a missing store is the CLI's error."""
    from click.testing import CliRunner

    from abstain.cli import cli

    result = CliRunner().invoke(cli, ["mcp", "--db", str(tmp_path / "typo.db")])
    assert result.exit_code == 1 and "there is no database at" in result.output
    assert not (tmp_path / "typo.db").exists()
