"""API keys: random secrets, stored only as SHA-256 hashes in a small SQLite file.

A key looks like ``abk_1a2b3c4d_<32 random characters>``. The part after the
first underscore is its public id (what ``abstain keys list`` shows and what
``abstain keys revoke`` takes); the whole key is shown once, at creation.
A key belongs to one workspace, or is an admin key for all of them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from abstain.errors import InputError

KEY_PREFIX = "abk"
ENV_KEYS = "ABSTAIN_KEYS"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    id         TEXT PRIMARY KEY,
    hash       TEXT NOT NULL,
    workspace  TEXT,
    admin      INTEGER NOT NULL DEFAULT 0,
    label      TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    revoked_at TEXT
)
"""
_COLUMNS = "id, workspace, admin, label, created_at, revoked_at"


def default_keys_path() -> str:
    """``keys.db`` in the user data directory, beside the default ``abstain.db``."""
    from platformdirs import user_data_dir

    return str(Path(user_data_dir("abstain", appauthor=False)) / "keys.db")


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: str
    workspace: str | None
    admin: bool
    label: str
    created_at: str
    revoked_at: str | None = None

    def can_access(self, workspace: str) -> bool:
        return self.admin or self.workspace == workspace

    @property
    def scope(self) -> str:
        return "admin" if self.admin else f"workspace:{self.workspace}"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class KeyStore:
    """The key file. Safe to share between threads; other processes see changes at once."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                   timeout=10)
        self._db.execute(_SCHEMA)

    def create(self, *, workspace: str | None = None, admin: bool = False,
               label: str = "") -> tuple[ApiKey, str]:
        """A new key; returns its record and the secret (the only time it is readable)."""
        if admin == (workspace is not None):
            raise InputError("a key is either for one workspace (--workspace WS) or --admin")
        with self._lock:
            while True:
                key_id = secrets.token_hex(4)
                secret = f"{KEY_PREFIX}_{key_id}_{secrets.token_urlsafe(24)}"
                record = ApiKey(key_id, workspace, admin, label, _now())
                try:
                    self._db.execute(
                        "INSERT INTO api_keys (id, hash, workspace, admin, label, created_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (key_id, _digest(secret), workspace, int(admin), label,
                         record.created_at))
                except sqlite3.IntegrityError:
                    continue
                return record, secret

    def verify(self, secret: str) -> ApiKey | None:
        """The live key ``secret`` is, or None (unknown, wrong or revoked)."""
        parts = secret.split("_", 2)
        key_id = parts[1] if len(parts) == 3 and parts[0] == KEY_PREFIX else ""
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS}, hash FROM api_keys WHERE id = ?",
                                   (key_id,)).fetchone()
        expected = row[6] if row else _digest("")
        matches = hmac.compare_digest(expected, _digest(secret))
        if row is None or not matches or row[5] is not None:
            return None
        return _record(row)

    def revoke(self, id_or_prefix: str) -> ApiKey:
        """Revoke by id (``1a2b3c4d``), by a unique prefix of it, or by the key itself."""
        wanted = id_or_prefix.strip().removeprefix(f"{KEY_PREFIX}_").split("_")[0].lower()
        if len(wanted) < 4:
            raise InputError("give at least 4 characters of the key id (see `abstain keys list`)")
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE id LIKE ? ",
                                    (wanted.replace("%", "").replace("_", "") + "%",)
                                    ).fetchall()
            if not rows:
                raise InputError(f"no key with id {wanted!r}; see `abstain keys list`")
            if len(rows) > 1:
                raise InputError(f"{wanted!r} matches {len(rows)} keys; give more characters")
            revoked_at = rows[0][5] or _now()
            self._db.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ?",
                             (revoked_at, rows[0][0]))
        return _record((*rows[0][:5], revoked_at))

    def list(self) -> list[ApiKey]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM api_keys ORDER BY created_at, id"
                                    ).fetchall()
        return [_record(r) for r in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _record(row: tuple[object, ...]) -> ApiKey:
    return ApiKey(id=str(row[0]), workspace=None if row[1] is None else str(row[1]),
                  admin=bool(row[2]), label=str(row[3]), created_at=str(row[4]),
                  revoked_at=None if row[5] is None else str(row[5]))
