"""abstain's HTTP service (``pip install 'abstain[server]'``, ``abstain serve``).

::

    app.py        create_app(): one shared pipeline, routes, /health, /ready, the web page
    documents.py  POST/GET/DELETE /v1/workspaces/{ws}/documents
    ask.py        POST /v1/workspaces/{ws}/ask and …/ask/stream
    sse.py        events -> Server-Sent Events or a plain-text stream
    auth.py       bearer keys, workspace access, rate limit (FastAPI dependencies)
    keys.py       the key file: hashed per-workspace and admin keys (no web dependencies)
    ratelimit.py  per-key token bucket
    limits.py     request body limits (413)
    errors.py     every error as {"error": {"code", "message"}}
    runner.py     serve() and ServerThread (a real server in a thread)

Names that need FastAPI are imported on first use, so ``abstain keys`` works
without the ``server`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from abstain.server.config import ServerConfig
from abstain.server.keys import ApiKey, KeyStore, default_keys_path

if TYPE_CHECKING:
    from abstain.server.app import create_app
    from abstain.server.runner import ServerThread, serve

__all__ = ["ApiKey", "KeyStore", "ServerConfig", "ServerThread", "create_app",
           "default_keys_path", "serve"]
_LAZY = {"create_app": "abstain.server.app", "ServerThread": "abstain.server.runner",
         "serve": "abstain.server.runner"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        try:
            module = import_module(_LAZY[name])
        except ImportError as exc:
            from abstain.errors import MissingDependency

            raise MissingDependency(exc.name or "fastapi", "server") from exc
        return getattr(module, name)
    raise AttributeError(f"module 'abstain.server' has no attribute {name!r}")
