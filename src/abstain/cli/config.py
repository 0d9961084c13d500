"""`abstain config show`: the effective options and where each came from."""

from __future__ import annotations

from dataclasses import asdict

import click

from abstain.cli.common import ask_options, print_json, resolve_options, store_options
from abstain.options import READER_MODES


@click.group()
def config() -> None:
    """Inspect abstain's configuration (abstain.toml, environment, flags).

    Each option comes from the first of: a flag, an environment variable, the
    file's [workspaces.NAME] table, the file's top level, the default.
    """


@config.command("show")
@store_options
@ask_options
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def show(ctx: click.Context, /, as_json: bool, **_options: object) -> None:
    """Print the effective settings of `ask` (and `serve`) and where each came from.

    \b
    Examples:
      abstain config show
      abstain config show --config abstain.toml --workspace legal
      ABSTAIN_LLM_URL=http://localhost:11434/v1 abstain config show --json
    """
    resolved = resolve_options(ctx)
    values = asdict(resolved.options)
    if values["store"] is None:
        from abstain.config import default_db_path

        values["store"] = default_db_path()
    if as_json:
        print_json({"config_file": None if resolved.path is None else str(resolved.path),
                    "options": {k: {"value": v, "origin": resolved.origins[k]}
                                for k, v in values.items()},
                    "workspaces": resolved.overrides})
        return
    click.echo(f"config file: {resolved.path or '(none)'}")
    width = max(map(len, values))
    reader_shown = {mode: name for name, mode in READER_MODES.items()}
    for key, value in values.items():
        shown = reader_shown[value] if key == "reader" else "-" if value is None \
            else str(value).lower() if isinstance(value, bool) else str(value)
        click.echo(f"  {key:<{width}} {shown:<40} {resolved.origins[key]}")
    for name, table in resolved.overrides.items():
        pairs = ", ".join(f"{k}={v}" for k, v in table.items())
        click.echo(f"  [workspaces.{name}] {pairs}")
