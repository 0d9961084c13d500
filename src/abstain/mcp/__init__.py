"""abstain as an MCP server (``abstain mcp``; the ``mcp`` extra): docs/MCP.md.

:mod:`abstain.mcp.server` builds the server and its tools, :mod:`abstain.mcp.results` shapes
what the tools return, :mod:`abstain.mcp.http` puts it behind API keys on streamable HTTP.
Nothing here is imported by ``import abstain``.
"""

from __future__ import annotations


def require_mcp() -> None:
    """Raise :class:`~abstain.errors.MissingDependency` unless the ``mcp`` SDK is installed."""
    from abstain.errors import MissingDependency

    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError as exc:
        raise MissingDependency("mcp", "mcp") from exc
