"""`abstain vocab`: connect a SKOS vocabulary (file or SKOSMOS server) to a workspace."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from abstain.cli.common import print_json, settings_from, store_options

if TYPE_CHECKING:
    from abstain.stores.base import Store
    from abstain.stores.vocab_base import VocabularyInfo

_TIMEOUT = click.option("--timeout", type=click.FloatRange(min=0, min_open=True),
                        metavar="SECONDS", help="HTTP timeout per SKOSMOS request [default: 30].")


@contextmanager
def _store(db: str | None, store: str | None, workspace: str, *,
           create: bool = True) -> Iterator[Store]:
    from abstain.stores import open_store

    st = open_store(settings_from(db, store, workspace).store, create=create)
    try:
        yield st
    finally:
        st.close()


@click.group("vocab")
def vocab_group() -> None:
    """Connect a controlled vocabulary (SKOS) to a workspace: terms first.

    A workspace's vocabulary is consulted before its documents: "What is
    a CMZ?" is answered with the concept's definition, cited to its URI;
    an alternative label in a question finds documents that use the
    preferred one; and a term the question hinges on that neither the
    vocabulary nor the documents know is not guessed at: abstain asks
    what it means (reason unknown_term) and offers the nearest concepts.
    Reading SKOS needs: pip install 'abstain[vocab]' (docs/VOCABULARY.md).

    \b
    Examples:
      abstain vocab add terms.ttl --db kb.db
      abstain vocab add https://skosmos.example.org/rest/v1/grid --db kb.db
      abstain vocab list --db kb.db
      abstain vocab refresh --db kb.db
    """


@vocab_group.command("add")
@click.argument("source", metavar="FILE|URL")
@store_options
@click.option("--name", help="The vocabulary's name in the workspace [default: the file's "
                             "name, or the SKOSMOS vocabulary id].")
@click.option("--vocid", metavar="ID",
              help="SKOSMOS vocabulary id, when URL is the server's base URL (not "
                   ".../rest/v1/ID) and it serves several.")
@click.option("--format", "fmt", type=click.Choice(["turtle", "xml", "json-ld", "nt", "n3"]),
              help="RDF format of FILE [default: from its extension: .ttl .rdf .xml .owl "
                   ".jsonld .json .nt .n3].")
@_TIMEOUT
@click.option("--json", "as_json", is_flag=True, help="Print the vocabulary as JSON.")
def vocab_add(source: str, db: str | None, store: str | None, workspace: str, name: str | None,
              vocid: str | None, fmt: str | None, timeout: float | None, as_json: bool) -> None:
    """Load a SKOS vocabulary into a workspace (replacing one of the same name).

    FILE is SKOS in Turtle, RDF/XML, N-Triples or JSON-LD. URL is a SKOSMOS
    server: the vocabulary is read whole through its REST API and kept in
    the store, so lookups never wait on the server; `vocab refresh` reads
    it again. Every concept keeps its preferred, alternative and hidden
    labels, definitions, scope notes, notations and broader / narrower /
    related concepts, in every language. Nothing changes if it cannot be read.

    \b
    Examples:
      abstain vocab add grid-terms.ttl --workspace grid --db kb.db
      abstain vocab add https://skosmos.example.org/rest/v1/grid --workspace grid
      abstain vocab add https://skosmos.example.org --vocid grid --name terms
    """
    from abstain.vocabulary import VocabularySource, load

    with _store(db, store, workspace) as st:
        info = load(st, workspace, VocabularySource(source, name or "", vocid or "", fmt or ""),
                    timeout=timeout)
    _show([info], as_json, verb="loaded")


@vocab_group.command("list")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def vocab_list(db: str | None, store: str | None, workspace: str, as_json: bool) -> None:
    """List the workspace's vocabularies: name, concepts, languages, source, when loaded."""
    from abstain.vocabulary import open_vocabulary

    with _store(db, store, workspace, create=False) as st:
        rows = open_vocabulary(st).vocabularies(workspace)
    if not rows and not as_json:
        click.echo(f"no vocabularies in workspace {workspace!r}")
        return
    _show(rows, as_json)


@vocab_group.command("refresh")
@click.argument("names", nargs=-1)
@store_options
@click.option("--config", "config", metavar="FILE", type=click.Path(dir_okay=False),
              help="abstain.toml whose [vocabularies.NAME] tables to load too [env "
                   "ABSTAIN_CONFIG; default: ./abstain.toml if present].")
@_TIMEOUT
@click.option("--json", "as_json", is_flag=True, help="Print the vocabularies as JSON.")
def vocab_refresh(names: tuple[str, ...], db: str | None, store: str | None, workspace: str,
                  config: str | None, timeout: float | None, as_json: bool) -> None:
    """Read the workspace's vocabularies again (all, or NAMES) from their file or server.

    Vocabularies declared in abstain.toml for this workspace are loaded
    too; each one is replaced in one transaction, only once it was read
    whole.

    \b
    abstain.toml:
      [vocabularies.grid]
      source = "terms/grid.ttl"      # or https://skosmos.example.org/rest/v1/grid
      workspace = "default"
    """
    from abstain.options import config_path
    from abstain.vocabulary import configured, refresh

    path = config_path(config)
    declared = configured(path, workspace) if path is not None else []
    with _store(db, store, workspace) as st:
        rows = refresh(st, workspace, names, configured=declared, timeout=timeout)
    if not rows and not as_json:
        click.echo(f"no vocabularies in workspace {workspace!r}")
        return
    _show(rows, as_json, verb="refreshed")


@vocab_group.command("remove")
@click.argument("name")
@store_options
def vocab_remove(name: str, db: str | None, store: str | None, workspace: str) -> None:
    """Remove a vocabulary (its concepts and labels) from the workspace."""
    from abstain.vocabulary import open_vocabulary

    with _store(db, store, workspace, create=False) as st:
        removed = open_vocabulary(st).remove_vocabulary(workspace, name)
    if not removed:
        click.secho(f"Error: no vocabulary {name!r} in workspace {workspace!r} "
                    "(`abstain vocab list` shows them)", fg="red", err=True)
        raise SystemExit(1)
    click.echo(f"removed vocabulary {name!r} from workspace {workspace!r}")


def _show(rows: list[VocabularyInfo], as_json: bool, *, verb: str = "") -> None:
    if as_json:
        print_json([r.to_json() for r in rows])
        return
    for r in rows:
        where = f"{r.location} ({r.vocid})" if r.vocid else r.location
        langs = ",".join(r.languages) or "-"
        prefix = f"{verb} " if verb else ""
        click.echo(f"{prefix}{r.name}  {r.concepts} concepts  [{langs}]  {r.kind} {where}"
                   f"  {r.loaded_at}")
