"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from abstain.config import Settings
from abstain.errors import AbstainError

F = TypeVar("F", bound=Callable[..., Any])


def store_options(func: F) -> F:
    """--db / --store and --workspace, as every command that touches a store takes them."""
    func = click.option("--workspace", "-w", envvar="ABSTAIN_WORKSPACE", default="default",
                        show_default=True, help="Workspace (tenant) to read or write.")(func)
    func = click.option("--store", "store", envvar="ABSTAIN_STORE", metavar="URL",
                        help="Store location: a SQLite path or a postgresql:// URL "
                             "[env ABSTAIN_STORE].")(func)
    func = click.option("--db", "db", envvar="ABSTAIN_DB", metavar="FILE",
                        type=click.Path(dir_okay=False),
                        help="SQLite database file [env ABSTAIN_DB; default: the user data "
                             "directory].")(func)
    return func


def settings_from(db: str | None, store: str | None, workspace: str,
                  **extra: str | None) -> Settings:
    return Settings.from_env(store=store or db, workspace=workspace, **extra)


def print_json(payload: Any) -> None:
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2))


def fail(message: str, hint: str | None = None) -> None:
    click.secho(f"Error: {message}", fg="red", err=True)
    if hint:
        click.echo(hint, err=True)
    sys.exit(1)


class FriendlyGroup(click.Group):
    """Turns AbstainError (and a Ctrl-C) into one line on stderr instead of a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except AbstainError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            fail("interrupted")
        return None
