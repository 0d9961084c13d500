"""How the server names a document to its clients: the server's own paths, or paths under a
root, or links.

A file's source is its resolved path on the server (docs/INGEST.md): the identity of the
document, and what the CLI shows. A client of the HTTP service — a chat front end, a support
desk's web page — should not see ``/srv/deploy/docs/guides/backup.md``. With a source root
(``abstain serve --source-root DIR``) every source under it is shown relative to it
(``guides/backup.md``); with a URL template too (``--source-url
'https://docs.example.com/{path}'``) as a link. Sources outside the root (a document
uploaded by name, another folder) are shown as they are. The store, the query log and the
CLI keep the real sources; only what the server sends is renamed: JSON answers
(:meth:`SourceView.answer`) and every streamed event (:meth:`SourceView.event`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from abstain.answer import Answer
from abstain.errors import ConfigError
from abstain.stream import Event

PATH_FIELD = "{path}"
"""Where a URL template puts the source's path under the root."""


@dataclass(frozen=True, slots=True)
class SourceView:
    """Renames sources under ``root``: relative to it, or into ``url`` (a template holding
    ``{path}``). Neither set: sources are sent as they are."""

    root: str | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        if self.url is not None:
            if self.root is None:
                raise ConfigError("a source URL template needs a source root (--source-root)")
            if PATH_FIELD not in self.url:
                raise ConfigError(f"the source URL template must hold {PATH_FIELD}: "
                                  f"{self.url!r}")

    @property
    def renames(self) -> bool:
        return self.root is not None

    def show(self, source: str) -> str:
        """``source`` as a client sees it."""
        if self.root is None:
            return source
        try:
            under = Path(source).relative_to(Path(self.root).expanduser().resolve())
        except ValueError:
            return source
        path = PurePosixPath(*under.parts).as_posix()
        if self.url is None:
            return path
        return self.url.replace(PATH_FIELD, quote(path))

    def answer(self, answer: Answer) -> Answer:
        """``answer`` with its citations' and evidence's sources shown."""
        if not self.renames:
            return answer
        return replace(
            answer,
            citations=tuple(replace(c, source=self.show(c.source)) for c in answer.citations),
            evidence=tuple(replace(e, document=replace(e.document,
                                                       source=self.show(e.document.source)))
                           for e in answer.evidence))

    def event(self, event: Event) -> Event:
        """A streamed event with every ``source`` in its data shown."""
        if not self.renames:
            return event
        return replace(event, data=self._shown(event.data))

    def _shown(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return {key: (self.show(value) if key == "source" and isinstance(value, str)
                      else self._value(value)) for key, value in data.items()}

    def _value(self, value: Any) -> Any:
        if isinstance(value, Mapping):
            return self._shown(value)
        if isinstance(value, list | tuple):
            return [self._value(v) for v in value]
        return value
