"""`abstain serve` itself: starts, loads the model, answers /ready, stops on SIGTERM."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def test_serve_starts_and_becomes_ready(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    abstain = Path(sys.executable).with_name("abstain")
    proc = subprocess.Popen(
        [str(abstain), "serve", "--db", str(tmp_path / "kb.db"), "--keys",
         str(tmp_path / "keys.db"), "--port", str(port), "--log-level", "warning"],
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
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0].decode()
    # uvicorn shuts down gracefully, then re-raises the signal it caught.
    assert proc.returncode in (0, -15), output
    assert "No API keys yet" in output and "Traceback" not in output
