"""Keys: the auth matrix over real HTTP, the key file, the rate limit, the `keys` commands."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from abstain.cli.main import cli
from abstain.errors import InputError
from abstain.pipeline import Pipeline
from abstain.server import KeyStore, ServerConfig, create_app
from abstain.server.ratelimit import RateLimiter, retry_after
from tests.server.conftest import Env
from tests.server.helpers import ANSWERED, bearer

MATRIX = [
    # (key name or raw header, workspace, expected status, error code)
    (None, "docs", 401, "missing_key"),
    ("Bearer abk_00000000_not-a-real-key", "docs", 401, "invalid_key"),
    ("Basic dXNlcjpwYXNz", "docs", 401, "missing_key"),
    ("revoked", "docs", 401, "invalid_key"),
    ("other", "docs", 403, "forbidden"),
    ("docs", "other", 403, "forbidden"),
    ("docs", "docs", 200, None),
    ("admin", "docs", 200, None),
    ("admin", "other", 404, "unknown_workspace"),
]


@pytest.mark.parametrize(("who", "workspace", "status", "code"), MATRIX)
def test_auth_matrix_on_ask(server: Env, who: str | None, workspace: str, status: int,
                            code: str | None) -> None:
    headers: dict[str, str] = {}
    if who is not None:
        headers["Authorization"] = (who if " " in who
                                    else f"Bearer {getattr(server.keys, who)}")
    response = httpx.post(f"{server.url}/v1/workspaces/{workspace}/ask",
                          json={"question": ANSWERED}, headers=headers, timeout=30)
    assert response.status_code == status, response.text
    if code is None:
        assert response.json()["answered"] is True
    else:
        assert response.json()["error"]["code"] == code
    if status == 401:
        assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/v1/workspaces/docs/documents"),
    ("DELETE", "/v1/workspaces/docs/documents/0123456789abcdef"),
    ("POST", "/v1/workspaces/docs/documents"),
    ("POST", "/v1/workspaces/docs/ask/stream"),
])
def test_every_workspace_route_needs_a_key_for_that_workspace(server: Env, method: str,
                                                               path: str) -> None:
    url = server.url + path
    assert httpx.request(method, url).status_code == 401
    assert httpx.request(method, url, headers=bearer(server.keys.other)).status_code == 403


def test_admin_manages_any_workspace(server: Env) -> None:
    admin = bearer(server.keys.admin)
    created = httpx.post(f"{server.url}/v1/workspaces/admin-made/documents", headers=admin,
                         json={"text": "# Admin\n\nAdmins may write anywhere.",
                               "source": "admin.md"}, timeout=30)
    assert created.status_code == 201
    doc_id = created.json()["documents"][0]["id"]
    listed = httpx.get(f"{server.url}/v1/workspaces/admin-made/documents", headers=admin)
    assert [d["id"] for d in listed.json()["documents"]] == [doc_id]
    deleted = httpx.delete(f"{server.url}/v1/workspaces/admin-made/documents/{doc_id}",
                           headers=admin)
    assert deleted.status_code == 204


def test_keys_are_stored_hashed_and_revocable(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys.db")
    record, secret = store.create(workspace="docs", label="bot")
    assert secret.startswith(f"abk_{record.id}_") and len(secret) > 40
    raw = sqlite3.connect(tmp_path / "keys.db").execute("SELECT * FROM api_keys").fetchall()
    assert secret not in repr(raw) and secret.split("_", 2)[2] not in repr(raw)
    assert store.verify(secret) == record
    assert store.verify(secret + "x") is None
    assert store.verify(secret.replace(record.id, "ffffffff")) is None
    assert store.revoke(record.id[:5]).revoked_at is not None
    assert store.verify(secret) is None
    with pytest.raises(InputError):
        store.revoke("zzzz")
    with pytest.raises(InputError):
        store.create(workspace="docs", admin=True)
    store.close()


def test_rate_limit_answers_429_with_retry_after(corpus_pipeline: Pipeline,
                                                 keystore: tuple) -> None:  # type: ignore[type-arg]
    store, keys = keystore
    app = create_app(corpus_pipeline, keys=store, config=ServerConfig(rate=0.5, burst=2))
    with TestClient(app) as client:
        url = "/v1/workspaces/docs/documents"
        assert [client.get(url, headers=bearer(keys.docs)).status_code
                for _ in range(2)] == [200, 200]
        limited = client.get(url, headers=bearer(keys.docs))
        assert limited.status_code == 429
        assert limited.json()["error"]["code"] == "rate_limited"
        assert limited.headers["retry-after"] == "2"
        assert limited.json()["error"]["message"].endswith("retry in 2 s")
        # Buckets are per key: another key is not slowed down.
        assert client.get(url, headers=bearer(keys.admin)).status_code == 200


def test_token_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=2.0, burst=3, clock=lambda: now[0])
    assert [limiter.acquire("k") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.acquire("k") == pytest.approx(0.5)
    now[0] += 0.5
    assert limiter.acquire("k") == 0.0
    assert retry_after(0.01) == "1" and retry_after(1.2) == "2"
    assert RateLimiter(rate=0, burst=1).acquire("k") == 0.0


def test_keys_commands_create_list_revoke(tmp_path: Path) -> None:
    runner = CliRunner()
    path = str(tmp_path / "keys.db")
    created = runner.invoke(cli, ["keys", "create", "--workspace", "docs", "--keys", path])
    assert created.exit_code == 0, created.output
    key = created.output.strip().splitlines()[-1]
    assert key.startswith("abk_")
    admin = runner.invoke(cli, ["keys", "create", "--admin", "--keys", path])
    assert admin.output.strip().splitlines()[-1].startswith("abk_")
    listed = runner.invoke(cli, ["keys", "list", "--keys", path])
    assert "workspace:docs" in listed.output and "admin" in listed.output
    assert key not in listed.output
    key_id = key.split("_")[1]
    revoked = runner.invoke(cli, ["keys", "revoke", key_id, "--keys", path])
    assert revoked.exit_code == 0 and f"revoked key {key_id}" in revoked.output
    again = runner.invoke(cli, ["keys", "revoke", key_id, "--keys", path])  # says so (newcomer)
    assert again.exit_code == 0 and f"key {key_id} (workspace:docs) was already revoked at" \
        in again.output
    store = KeyStore(path)
    assert store.verify(key) is None
    store.close()
    bad = runner.invoke(cli, ["keys", "create", "--keys", path])
    assert bad.exit_code == 1 and "--admin" in bad.output
