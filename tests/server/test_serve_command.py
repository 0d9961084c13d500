"""`abstain serve` itself: starts, loads the model, answers /ready, stops on SIGTERM."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from abstain.embed.base import Embedder


def test_serve_starts_and_becomes_ready(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    abstain = Path(sys.executable).with_name("abstain")
    proc = subprocess.Popen(
        [str(abstain), "serve", "--db", str(tmp_path / "kb.db"), "--keys",
         str(tmp_path / "keys.db"), "--port", str(port), "--log-level", "warning",
         "--max-json-kib", "1"],
        env={**os.environ}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        ready = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                ready = httpx.get(f"{url}/ready", timeout=2)
                if ready.status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        assert ready is not None and ready.status_code == 200, proc.poll()
        assert ready.json()["workspaces"] == 0
        assert httpx.get(f"{url}/v1/workspaces/docs/documents").status_code == 401
        big = httpx.post(f"{url}/v1/workspaces/docs/ask", json={"question": "x" * 2000})
        assert big.status_code == 413  # --max-json-kib 1
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0].decode()
    # uvicorn shuts down gracefully, then re-raises the signal it caught.
    assert proc.returncode in (0, -15), output
    assert "No API keys yet" in output and "Traceback" not in output


def test_serve_on_a_port_in_use_fails_at_once(tmp_path: Path) -> None:
    """Before any model loads, and without first saying it serves there."""
    from click.testing import CliRunner

    from abstain.cli.main import cli

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "kb.db"), "--keys",
                                          str(tmp_path / "keys.db"), "--port", str(port)])
    assert result.exit_code == 1
    assert f"Error: cannot serve on 127.0.0.1:{port}" in result.output
    assert "serving on" not in result.output and "Traceback" not in result.output


def test_serve_takes_the_ask_options_and_workspace_overrides(tmp_path: Path,
                                                             minilm: Embedder) -> None:
    """`serve --preset strict --calibration … --llm URL`, with abstain.toml overriding one
    workspace: the LLM is asked in that workspace only."""
    from importlib import resources

    from abstain.pipeline import Pipeline
    from abstain.server import KeyStore
    from abstain.stores.sqlite import SQLiteStore
    from abstain.testing import ScriptedOpenAIServer
    from tests.llm_support import DOCS, FAITHFUL, KEYS_Q

    db = tmp_path / "kb.db"
    with Pipeline(SQLiteStore(db), minilm) as pipe:
        for ws in ("plain", "llm"):
            for name, text in DOCS.items():
                pipe.ingest_text(text, source=name, workspace=ws)
    keys = KeyStore(tmp_path / "keys.db")
    key = keys.create(admin=True)[1]
    keys.close()
    calibration = str(resources.files("abstain").joinpath("data/calibration.json"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with ScriptedOpenAIServer(default=FAITHFUL) as llm:
        config = tmp_path / "abstain.toml"
        config.write_text(f'[workspaces.llm]\nllm = "{llm.url}"\npreset = "lenient"\n',
                          encoding="utf-8")
        abstain = Path(sys.executable).with_name("abstain")
        proc = subprocess.Popen(
            [str(abstain), "serve", "--db", str(db), "--keys", str(tmp_path / "keys.db"),
             "--port", str(port), "--log-level", "warning", "--config", str(config),
             "--preset", "strict", "--calibration", calibration, "--strictness", "loose"],
            env={**os.environ}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
            answers = {ws: httpx.post(f"{url}/v1/workspaces/{ws}/ask", timeout=30,
                                      headers={"Authorization": f"Bearer {key}"},
                                      json={"question": KEYS_Q}).json()
                       for ws in ("plain", "llm")}
        finally:
            proc.terminate()
            output = proc.communicate(timeout=30)[0].decode()
    assert "Traceback" not in output, output
    assert answers["plain"]["llm_called"] is False and answers["plain"]["evidence"]
    assert answers["llm"]["llm_called"] is True, answers["llm"]
    assert len(llm.chat_requests) == 1
