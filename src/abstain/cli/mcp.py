"""`abstain mcp`: the documents as MCP tools for agents (stdio or streamable HTTP)."""

from __future__ import annotations

import click

from abstain.cli.common import ask_options, resolve_options, store_options


@click.command("mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio",
              show_default=True,
              help="stdio: the agent starts this command itself; http: streamable HTTP at "
                   "http://HOST:PORT/mcp, every request with an API key.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on (http).")
@click.option("--port", default=8001, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (http).")
@store_options
@ask_options
@click.option("--keys", "keys_path", envvar="ABSTAIN_KEYS", metavar="FILE",
              type=click.Path(dir_okay=False),
              help="API key file of `abstain keys` (http) [env ABSTAIN_KEYS; default: "
                   "keys.db in the user data directory].")
@click.option("--log-level", default="warning", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]),
              help="Log level (http; logs go to stderr).")
@click.pass_context
def mcp(ctx: click.Context, /, transport: str, host: str, port: int, keys_path: str | None,
        log_level: str, **_options: object) -> None:
    """Serve the documents to agents over MCP: tools ask, search, list_documents.

    `ask` returns the answer with numbered citations and quotes, or the refusal
    with its reason, message and suggestions, both as structured content and as
    text; `search` the fused evidence; `list_documents` what a workspace holds.
    A call may name a workspace; the default is --workspace (or, over HTTP, the
    workspace of a workspace key). Asking takes the same options as `abstain ask`
    and `serve`, from flags, environment or abstain.toml. Client configuration
    for Claude, Cursor and VS Code: docs/MCP.md.

    \b
    Examples:
      abstain mcp --db kb.db --workspace docs            (stdio, started by the agent)
      abstain keys create --workspace docs
      abstain mcp --transport http --db kb.db --port 8001 --preset strict
    """
    from abstain.mcp import require_mcp

    require_mcp()
    from abstain.mcp.server import Pipelines, create_server

    resolved = resolve_options(ctx)
    if transport == "stdio":
        pipelines = Pipelines.open(resolved)
        try:
            create_server(pipelines).run("stdio")
        finally:
            pipelines.close()
        return

    from abstain.mcp.http import MCP_PATH, serve_http
    from abstain.server.keys import KeyStore, default_keys_path

    keys = KeyStore(keys_path or default_keys_path())
    if not keys.list():
        click.secho("No API keys yet: create one with `abstain keys create --workspace WS`.",
                    fg="yellow", err=True)
    pipelines = Pipelines.open(resolved)
    try:
        click.echo(f"abstain MCP on http://{host}:{port}{MCP_PATH}  (keys: {keys.path})",
                   err=True)
        serve_http(create_server(pipelines, keys=keys), keys, host=host, port=port,
                   log_level=log_level)
    finally:
        pipelines.close()
        keys.close()
