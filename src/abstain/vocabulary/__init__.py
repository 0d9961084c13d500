"""Controlled vocabularies: SKOS files and SKOSMOS servers, loaded into the store per workspace.

A vocabulary is read whole (:mod:`abstain.vocabulary.skos` for files,
:mod:`abstain.vocabulary.skosmos` for servers) and written in one transaction, so
lookups are local and a failed refresh changes nothing. The pipeline consults it before
retrieval (:mod:`abstain.terminology`); docs/VOCABULARY.md has the whole story::

    abstain vocab add terms.ttl --workspace grid
    abstain vocab add https://skosmos.example.org/rest/v1/grid --workspace grid
    abstain vocab refresh --workspace grid
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from abstain.config import DEFAULT_WORKSPACE
from abstain.errors import ConfigError, StoreError, VocabularyError
from abstain.stores.vocab_base import Concept, VocabularyInfo, VocabularyStore

if TYPE_CHECKING:
    import httpx

    from abstain.stores.base import Store

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


@dataclass(frozen=True, slots=True)
class VocabularySource:
    """Where a vocabulary comes from: a SKOS file or a SKOSMOS server (``http(s)://…``)."""

    location: str
    name: str = ""
    """The vocabulary's name in the workspace; "" derives it (the file's stem, the vocid)."""
    vocid: str = ""
    """The SKOSMOS vocabulary id, when the URL does not end in ``/rest/v1/ID``."""
    fmt: str = ""
    """The RDF format of a file (turtle, xml, json-ld, nt); "" reads the extension."""

    @property
    def kind(self) -> str:
        return "skosmos" if re.match(r"^https?://", self.location, re.I) else "file"

    def resolved(self) -> VocabularySource:
        """A file's location made absolute (so a refresh from another folder finds it)."""
        if self.kind == "file":
            return VocabularySource(str(Path(self.location).expanduser().resolve()), self.name,
                                    self.vocid, self.fmt)
        return self

    @classmethod
    def of(cls, info: VocabularyInfo) -> VocabularySource:
        return cls(info.location, info.name, info.vocid)


def find_vocabulary(store: Store) -> VocabularyStore | None:
    """The store's vocabularies, or None for a store kind that keeps none."""
    from abstain.stores.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        from abstain.stores.sqlite_vocab import SQLiteVocabulary

        return SQLiteVocabulary(store)
    try:
        from abstain.stores.postgres import PostgresStore
    except ImportError:  # the postgres extra is not installed: no such store exists
        return None
    if isinstance(store, PostgresStore):
        from abstain.stores.postgres_vocab import PostgresVocabulary

        return PostgresVocabulary(store)
    return None


def open_vocabulary(store: Store) -> VocabularyStore:
    found = find_vocabulary(store)
    if found is None:
        raise StoreError(f"{type(store).__name__} keeps no vocabularies (SQLite and "
                         "PostgreSQL do)")
    return found


def read_concepts(source: VocabularySource, *, timeout: float | None = None,
                  transport: httpx.BaseTransport | None = None) -> tuple[str, list[Concept]]:
    """``(vocid, concepts)`` of a source; a SKOSMOS source names its vocabulary id."""
    if source.kind == "file":
        from abstain.vocabulary.skos import read_file

        return "", read_file(source.location, source.fmt or None)
    from abstain.vocabulary.skosmos import DEFAULT_TIMEOUT, Endpoint, SkosmosClient

    endpoint = Endpoint.parse(source.location, source.vocid or None)
    with SkosmosClient(endpoint, timeout=timeout or DEFAULT_TIMEOUT,
                       transport=transport) as client:
        vocid = client.vocid()
        return vocid, client.concepts(vocid)


def load(store: Store, workspace: str, source: VocabularySource, *,
         timeout: float | None = None,
         transport: httpx.BaseTransport | None = None) -> VocabularyInfo:
    """Read a vocabulary and store it in the workspace (replacing one of the same name)."""
    from abstain.stores.base import check_workspace

    check_workspace(workspace)
    source = source.resolved()
    vocabularies = open_vocabulary(store)
    vocid, concepts = read_concepts(source, timeout=timeout, transport=transport)
    if not concepts:
        raise VocabularyError(f"{source.location} holds no SKOS concepts "
                              "(no skos:Concept and no skos:prefLabel)")
    name = source.name or _default_name(source, vocid)
    if not re.fullmatch(NAME_PATTERN, name):
        raise VocabularyError(f"invalid vocabulary name {name!r}: use 1 to 64 letters, "
                              "digits, '_', '.' or '-'")
    unique = list({c.uri: c for c in concepts}.values())
    base = source.location if source.kind == "file" else _base(source.location)
    info = VocabularyInfo(workspace, name, source.kind, base, vocid, len(unique))
    vocabularies.replace_vocabulary(info, unique)
    return next(v for v in vocabularies.vocabularies(workspace) if v.name == name)


def refresh(store: Store, workspace: str, names: Sequence[str] = (), *,
            configured: Sequence[VocabularySource] = (), timeout: float | None = None,
            transport: httpx.BaseTransport | None = None) -> list[VocabularyInfo]:
    """Read the workspace's vocabularies again from where they came from (all, or ``names``),
    and load the ``configured`` ones (abstain.toml) that it does not hold yet."""
    sources = {v.name: VocabularySource.of(v)
               for v in open_vocabulary(store).vocabularies(workspace)}
    for source in configured:
        sources[source.name or _default_name(source, source.vocid)] = source
    unknown = [n for n in names if n not in sources]
    if unknown:
        raise VocabularyError(f"no vocabulary {', '.join(map(repr, unknown))} in workspace "
                              f"{workspace!r}; `abstain vocab list` shows them")
    return [load(store, workspace, replace(sources[n], name=n), timeout=timeout,
                 transport=transport) for n in (names or sorted(sources))]


def configured(path: Path, workspace: str) -> list[VocabularySource]:
    """The ``[vocabularies.NAME]`` tables of an abstain.toml for ``workspace``::

        [vocabularies.grid]
        source = "terms/grid.ttl"        # a SKOS file (relative to the toml) or a SKOSMOS URL
        workspace = "default"            # optional
        vocid = "grid"                   # optional: the SKOSMOS vocabulary id
        format = "turtle"                # optional: the file's RDF format
    """
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")).get("vocabularies", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: 'vocabularies' must be a table of [vocabularies.NAME]")
    out = []
    for name, table in data.items():
        where = f"{path}: [vocabularies.{name}]"
        if not isinstance(table, dict) or not isinstance(table.get("source"), str):
            raise ConfigError(f"{where} needs source = a SKOS file or a SKOSMOS URL")
        extra = set(table) - {"source", "workspace", "vocid", "format"}
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(extra))}; known: "
                              "source, workspace, vocid, format")
        if str(table.get("workspace", DEFAULT_WORKSPACE)) != workspace:
            continue
        source = VocabularySource(table["source"], str(name), str(table.get("vocid", "")),
                                  str(table.get("format", "")))
        if source.kind == "file" and not Path(source.location).expanduser().is_absolute():
            source = replace(source, location=str(path.parent / source.location))
        out.append(source)
    return out


def _default_name(source: VocabularySource, vocid: str) -> str:
    if source.kind == "skosmos":
        return vocid
    stem = Path(source.location).stem
    return re.sub(r"[^A-Za-z0-9_.-]", "-", stem).lstrip("_.-")[:64] or "vocabulary"


def _base(url: str) -> str:
    from abstain.vocabulary.skosmos import Endpoint

    return Endpoint.parse(url).base
