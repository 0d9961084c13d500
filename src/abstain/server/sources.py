"""How the server names a document to its clients: the server's own paths, or paths under a
root, with links.

A file's source is its resolved path on the server (docs/INGEST.md): the identity of the
document, and what the CLI shows. A client of the HTTP service — a chat front end, a support
desk's web page — should not see ``/srv/deploy/docs/guides/backup.md``. With a source root
(``abstain serve --source-root DIR``) every source under it is sent relative to it
(``guides/backup.md``), and the root is cut from any other text that names such a file (a
check's detail); with a URL template too (``--source-url
'https://docs.example.com/{path}'``) each such source also carries its link in a ``url``
field beside it, which the web page renders as a link — a link only where the server made
one, never from a source's own text. Sources outside the root (a document uploaded by name,
another folder) are sent as they are. The store, the query log, the CLI and the document
management endpoints keep the real sources (they name documents by them); only answers are
renamed: JSON answers and every streamed event (:meth:`SourceView.shown`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from abstain.errors import ConfigError
from abstain.stream import Event

PATH_FIELD = "{path}"
"""Where a URL template puts the source's path under the root."""


@dataclass(frozen=True, slots=True)
class SourceView:
    """Renames sources under ``root``: relative to it, with a link made from ``url`` (a
    template holding ``{path}``). Neither set: sources are sent as they are."""

    root: str | None = None
    url: str | None = None
    _prefix: str = field(default="", init=False, repr=False, compare=False)
    """The root, resolved once, with its trailing separator."""

    def __post_init__(self) -> None:
        if self.url is not None:
            if self.root is None:
                raise ConfigError("a source URL template needs a source root (--source-root)")
            if PATH_FIELD not in self.url:
                raise ConfigError(f"the source URL template must hold {PATH_FIELD}: "
                                  f"{self.url!r}")
        if self.root is not None:
            root = Path(self.root).expanduser()
            if not root.is_dir():
                raise ConfigError(f"the source root {self.root!r} is not a folder on this "
                                  "server: nothing would be renamed")
            object.__setattr__(self, "_prefix", str(root.resolve()).rstrip("/") + "/")

    @property
    def renames(self) -> bool:
        return bool(self._prefix)

    def path(self, source: str) -> str | None:
        """``source``'s path under the root (``guides/backup.md``); None outside it."""
        if not self._prefix or not source.startswith(self._prefix):
            return None
        return PurePosixPath(*Path(source[len(self._prefix):]).parts).as_posix()

    def link(self, source: str) -> str | None:
        """The link of ``source`` under the root, when a URL template is set."""
        path = self.path(source)
        return None if path is None or self.url is None else self.url.replace(
            PATH_FIELD, quote(path))

    def shown(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """``data`` (an answer's JSON, an event's data) as a client gets it: each ``source``
        under the root relative to it, with its ``url`` beside it; the root cut from any
        other text."""
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key == "source" and isinstance(value, str) and self.path(value) is not None:
                out[key] = self.path(value)
                link = self.link(value)
                if link is not None:
                    out["url"] = link
            else:
                out[key] = self._value(value)
        return out

    def event(self, event: Event) -> Event:
        """A streamed event as a client gets it (:meth:`shown`)."""
        return event if not self.renames else replace(event, data=self.shown(event.data))

    def answer_json(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """An ``Answer.to_json()`` as a client gets it (:meth:`shown`)."""
        return dict(payload) if not self.renames else self.shown(payload)

    def _value(self, value: Any) -> Any:
        if isinstance(value, Mapping):
            return self.shown(value)
        if isinstance(value, list | tuple):
            return [self._value(v) for v in value]
        if isinstance(value, str) and self._prefix in value:
            return value.replace(self._prefix, "")
        return value
