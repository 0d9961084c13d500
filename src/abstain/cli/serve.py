"""`abstain serve` and `abstain keys` (create, list, revoke)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from abstain.cli.common import ask_options, fail, print_json, resolve_options

if TYPE_CHECKING:
    from abstain.server.keys import KeyStore
    from abstain.server.sources import SourceView

_KEYS_OPTION = click.option(
    "--keys", "keys_path", envvar="ABSTAIN_KEYS", metavar="FILE",
    type=click.Path(dir_okay=False),
    help="API key file (SQLite) [env ABSTAIN_KEYS; default: keys.db in the user data "
         "directory].")


def _key_store(path: str | None) -> KeyStore:
    from abstain.server.keys import KeyStore, default_keys_path

    return KeyStore(path or default_keys_path())


def _require_server_extra() -> None:
    from abstain.errors import MissingDependency

    for module, package in (("fastapi", "fastapi"), ("uvicorn", "uvicorn"),
                            ("multipart", "python-multipart"),
                            ("fastapi_offline", "fastapi-offline")):
        try:
            __import__(module)
        except ImportError as exc:
            raise MissingDependency(package, "server") from exc


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port.")
@click.option("--db", "db", envvar="ABSTAIN_DB", metavar="FILE",
              type=click.Path(dir_okay=False),
              help="SQLite database file [env ABSTAIN_DB; default: abstain.toml's store, "
                   "else the user data directory].")
@click.option("--store", "store", envvar="ABSTAIN_STORE", metavar="URL",
              help="Store location: a SQLite path or a postgresql:// URL [env ABSTAIN_STORE].")
@ask_options
@_KEYS_OPTION
@click.option("--rate", type=click.FloatRange(min=0), default=None, metavar="N",
              help="Requests per second per key (token bucket refill) [default: 10; 0: off].")
@click.option("--burst", type=click.IntRange(min=1), default=None, metavar="N",
              help="Requests a key may make at once [default: 30].")
@click.option("--query-batching/--no-query-batching", default=True, show_default=True,
              help="Let concurrent questions share one query-embedding call.")
@click.option("--max-json-kib", type=click.IntRange(min=1), default=None, metavar="KIB",
              help="Largest JSON body accepted, in KiB (413 above it); a chat front end "
                   "sends the whole conversation each turn [default: 64].")
@click.option("--source-root", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Show clients the sources under DIR relative to it (guides/backup.md), "
                   "not the server's paths [default: sources as stored].")
@click.option("--source-url", default=None, metavar="TEMPLATE",
              help="With --source-root: send each of those sources with its link ('url'), "
                   "the path put in for {path} ('https://docs.example.com/{path}').")
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
@click.pass_context
def serve(ctx: click.Context, /, host: str, port: int, keys_path: str | None,
          rate: float | None, burst: int | None, query_batching: bool,
          max_json_kib: int | None, source_root: str | None, source_url: str | None,
          log_level: str, **_options: object) -> None:
    """Run the HTTP service: JSON and streaming answers, documents, a web page at /.

    Every /v1 request needs 'Authorization: Bearer KEY'; create keys with
    `abstain keys create`. The embedder is loaded once at start-up; GET /ready
    answers 200 once it is. API reference: /docs and /openapi.json. Chat front
    ends and the `openai` SDK connect to /v1 (model = the workspace).

    Asking takes the same options as `abstain ask`, from flags, environment or
    abstain.toml, whose [workspaces.NAME] tables override them per workspace
    (`abstain config show` prints the effective values).

    \b
    Examples:
      abstain keys create --workspace default
      abstain serve --db kb.db --port 8000
      abstain serve --db kb.db --source-root ./docs \\
          --source-url 'https://docs.example.com/{path}'
      abstain serve --db kb.db --preset strict --calibration cal.json \\
          --llm http://localhost:11434/v1 --llm-model llama3.2
      curl -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
           -d '{"question": "How do I reset the admin password?"}' \\
           http://127.0.0.1:8000/v1/workspaces/default/ask
    """
    _check_port(host, port)
    _require_server_extra()
    from abstain.server import ServerConfig, create_app
    from abstain.server import serve as run
    from abstain.server.config import DEFAULT_BURST, DEFAULT_RATE, MAX_JSON_BYTES

    resolved = resolve_options(ctx)
    _say_if_new_store(resolved.options.store)
    keys = _key_store(keys_path)
    if not keys.list():
        click.secho("No API keys yet: create one with `abstain keys create --workspace WS`.",
                    fg="yellow", err=True)
    config = ServerConfig(sources=_source_view(source_root, source_url),
                          rate=DEFAULT_RATE if rate is None else rate,
                          burst=burst or DEFAULT_BURST, query_batching=query_batching,
                          max_json_bytes=(MAX_JSON_BYTES if max_json_kib is None
                                          else max_json_kib * 1024))
    app = create_app(keys=keys, options=resolved, config=config)
    click.echo(f"abstain serving on http://{host}:{port}/  (keys: {keys.path})", err=True)
    try:
        run(app, host=host, port=port, log_level=log_level)
    finally:
        keys.close()


def _say_if_new_store(location: str | None) -> None:
    """The server creates a SQLite store that is not there (documents can be added through
    it); a mistyped --db would otherwise serve an empty one without a word."""
    from pathlib import Path

    from abstain.stores import sqlite_path

    file = sqlite_path(location)
    if file is None:  # PostgreSQL
        return
    path = Path(file).expanduser()
    if not path.exists():
        click.secho(f"{path} does not exist: serving a new, empty store (add documents with "
                    "`abstain ingest` or POST /v1/workspaces/WS/documents)", fg="yellow",
                    err=True)


def _source_view(root: str | None, url: str | None) -> SourceView:
    from abstain.errors import ConfigError
    from abstain.server.sources import SourceView

    try:
        return SourceView(root, url)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--source-root / --source-url") from exc


def _check_port(host: str, port: int) -> None:
    """Fail at once, before any model loads, when the address cannot be served on."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        fail(f"cannot serve on {host}: {exc.strerror or exc}", "see: abstain serve --help")
        return
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            fail(f"cannot serve on {host}:{port}: {exc.strerror or exc}",
                 "another server holds that port? choose another with --port")


@click.group()
def keys() -> None:
    """Create, list and revoke API keys for `abstain serve`.

    Keys are stored hashed (SHA-256); the key itself is printed once, on the
    last line of `keys create`. A workspace key may ask and manage documents in
    its workspace only; an admin key may use every workspace.
    """


@keys.command("create")
@click.option("--workspace", "-w", metavar="WS", help="The workspace this key may use.")
@click.option("--admin", is_flag=True, help="A key for every workspace.")
@click.option("--label", default="", help="A note to recognise the key by.")
@_KEYS_OPTION
def keys_create(workspace: str | None, admin: bool, label: str, keys_path: str | None) -> None:
    """Create a key; the key itself is the LAST line printed.

    \b
    Examples:
      abstain keys create --workspace support --label "inbox bot"
      KEY=$(abstain keys create --admin | tail -n 1)
    """
    from abstain.stores.base import check_workspace

    if workspace is not None:
        check_workspace(workspace)
    store = _key_store(keys_path)
    try:
        record, secret = store.create(workspace=workspace, admin=admin, label=label)
    finally:
        store.close()
    click.echo(f"created key {record.id} ({record.scope}) in {store.path}; "
               "it is shown only once:", err=True)
    click.echo(secret)


@keys.command("list")
@_KEYS_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def keys_list(keys_path: str | None, as_json: bool) -> None:
    """List keys (id, scope, label, created, revoked); never the keys themselves."""
    from dataclasses import asdict

    store = _key_store(keys_path)
    try:
        rows = store.list()
    finally:
        store.close()
    if as_json:
        print_json([asdict(r) for r in rows])
        return
    for r in rows:
        state = f"revoked {r.revoked_at}" if r.revoked_at else "active"
        click.echo(f"{r.id}  {r.scope:<24} {state:<30} {r.created_at}  {r.label}")
    if not rows:
        click.echo("no keys")


@keys.command("revoke")
@click.argument("key_id")
@_KEYS_OPTION
def keys_revoke(key_id: str, keys_path: str | None) -> None:
    """Revoke a key by its id, a unique prefix of the id, or the key itself.

    \b
    Example:
      abstain keys revoke 1a2b3c4d
    """
    store = _key_store(keys_path)
    try:
        before = {k.id: k.revoked_at for k in store.list()}
        record = store.revoke(key_id)
    finally:
        store.close()
    if before.get(record.id):  # revoking again changes nothing: say so
        click.echo(f"key {record.id} ({record.scope}) was already revoked at {record.revoked_at}")
    else:
        click.echo(f"revoked key {record.id} ({record.scope})")
