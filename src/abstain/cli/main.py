"""Top-level group and the document commands (ingest, search, docs)."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from pathlib import Path

import click

from abstain import __version__
from abstain.cli.common import (
    FriendlyGroup,
    print_json,
    printable,
    settings_from,
    store_options,
)


@click.group(cls=FriendlyGroup, context_settings={"help_option_names": ["-h", "--help"],
                                                  "max_content_width": 100})
@click.version_option(__version__, prog_name="abstain")
def cli() -> None:
    """abstain: answers from your documents, or says why it can't.

    \b
    Get started with the bundled sample corpus:
      abstain demo                          ingest it and ask two questions
      abstain ingest docs/ --db kb.db       add your own files (.md .adoc .rst .pdf …)
      abstain search "error E1203" --db kb.db
      abstain ask "What does ADR-0007 decide?" --db kb.db --debug

    Every command that reads or writes documents takes --db FILE (or
    --store URL for PostgreSQL) and --workspace NAME. Without them the
    database is abstain.db in your user data directory.
    """


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@store_options
@click.option("--embedder", envvar="ABSTAIN_EMBEDDER", metavar="SPEC",
              help="minilm (default), e5 (multilingual-e5-small: the multilingual extra), "
                   "hashing, or openai:MODEL@BASE_URL.")
@click.option("--prune", is_flag=True,
              help="Sync each FOLDER: also remove its documents whose files are gone.")
@click.option("--follow-symlinks", is_flag=True,
              help="Ingest symlinks that lead outside the folder (skipped by default).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def ingest(paths: tuple[str, ...], db: str | None, store: str | None, workspace: str,
           embedder: str | None, prune: bool, follow_symlinks: bool, quiet: bool,
           as_json: bool) -> None:
    """Add files or folders of documents to a workspace.

    \b
    Formats (docs/INGEST.md):
      .md .markdown .mdx .txt .html .htm   always
      .rst .rest .docx .pptx .xlsx .xlsm   with pip install 'abstain[formats]'
      .pdf .ipynb .eml .mbox .csv .tsv     always
      .adoc .asciidoc .1 … .9 .man         always
      .gz (a compressed page: sed.1.gz)    always
    Headings, lists, tables, definitions and code keep their structure: a
    table row or list item is answered and cited whole.

    A file's document is named by its resolved path, so relative and absolute
    spellings are one document (docs/INGEST.md). Unchanged files are skipped;
    a changed file replaces its old version at once, when all its chunks are
    embedded; broken, non-UTF-8 or unsupported files are reported and skipped.
    A path that does not exist is an error, and nothing is ingested.

    \b
    Examples:
      abstain ingest handbook/ faq.md --db kb.db
      abstain ingest handbook/ --prune --db kb.db     sync: drop deleted files too
      abstain ingest contracts/ --workspace legal
    """
    from abstain.ingest.sources import check_paths_exist
    from abstain.pipeline import Pipeline

    check_paths_exist(paths)
    settings = settings_from(db, store, workspace, embedder=embedder)
    with Pipeline.from_settings(settings) as pipe:
        if getattr(pipe.store, "created", False):
            click.echo(f"new database {printable(str(pipe.store))}", err=True)
        files = sum(1 for _ in _iter(paths, follow_symlinks))
        bar = None if (quiet or as_json) else _Bar(files)
        try:
            report = pipe.ingest(list(paths), prune=prune, follow_symlinks=follow_symlinks,
                                 on_progress=bar.update if bar else None)
        finally:
            if bar is not None:
                bar.close()
    if as_json:
        print_json(report.to_json())
        return
    _print_skips(report.skipped)
    for source in report.removed:
        click.echo(f"removed {printable(source)} (file is gone)", err=True)
    for source, read_as in report.read_as:
        if read_as.startswith("plain text"):  # a fallback: the format's parser is missing
            click.secho(f"read {printable(source)} as {read_as}", fg="yellow", err=True)
    for source, left_out in report.screened:
        first = report.screened_quotes.get(source, "")
        click.secho(f"left out of {printable(source)}: {left_out} "
                    "(docs/INGEST.md#what-is-left-out)"
                    + (f'\n  first: "{printable(first)}"' if first else ""), fg="yellow",
                    err=True)
    if report.rebuilt_indexes:
        click.echo(f"rebuilt after the bulk load: {', '.join(report.rebuilt_indexes)} "
                   "(searches waited while they were built; docs/SCALING.md)", err=True)
    click.echo(f"{report.summary()} in workspace {workspace!r}")
    if not (report.added or report.updated or report.unchanged or report.removed):
        from abstain.ingest.parse import SUPPORTED_SUFFIXES

        n = len(report.skipped)
        why = ((f"all {n} files were skipped" if n > 1 else "the one file was skipped")
               + " (reasons above)" if n else "no file of a supported kind was found ("
               + " ".join(sorted(SUPPORTED_SUFFIXES)) + ")")
        click.secho(f"nothing was ingested: {why}", fg="yellow", err=True)
        raise SystemExit(1)
    if report.gone:
        n = len(report.gone)
        first = printable(report.gone[0])
        click.secho(f"{n} documents still answer though their files are gone, e.g. {first} "
                    "(--prune removes them)" if n > 1 else
                    f"1 document still answers though its file is gone: {first} (--prune "
                    "removes it)", fg="yellow", err=True)


UNSUPPORTED_LISTED = 5
"""Files of unsupported types named one per line; past this many they are counted by type."""


def _print_skips(skipped: list[tuple[str, str]]) -> None:
    unsupported = [(s, r) for s, r in skipped if r.startswith("unsupported file type")]
    for source, reason in skipped:
        if len(unsupported) <= UNSUPPORTED_LISTED or (source, reason) not in unsupported:
            click.secho(f"skipped {printable(source)}: {reason}", fg="yellow", err=True)
    if len(unsupported) > UNSUPPORTED_LISTED:
        kinds = Counter(r.removeprefix("unsupported file type ") for _, r in unsupported)
        counted = ", ".join(f"{k} ({n})" for k, n in kinds.most_common())
        click.secho(f"skipped {len(unsupported)} files of unsupported types: {counted} "
                    "(--json lists each)", fg="yellow", err=True)


def _iter(paths: tuple[str, ...], follow_symlinks: bool) -> list[tuple[str, Path]]:
    from abstain.ingest import iter_files

    return list(iter_files(paths, follow_symlinks=follow_symlinks))


class _Bar:
    """Chunks done (the total is unknown until each file is parsed), files as postfix.

    It moves per embedder batch ("embed"); a written batch ("chunks") adds the chunks
    that came from the embedding cache."""

    def __init__(self, files: int) -> None:
        from tqdm import tqdm

        self._files, self._done, self._embedded = files, 0, 0
        self._bar = tqdm(unit="chunk", desc="ingest", leave=False, disable=None,
                         mininterval=0.2)

    def update(self, event: str, n: int) -> None:
        if event == "embed":
            self._embedded += n
            self._bar.update(n)
        elif event == "chunks":
            self._bar.update(max(0, n - self._embedded))
            self._embedded = 0
        elif event == "file":
            self._done += n
            self._bar.set_postfix_str(f"{self._done}/{self._files} files")

    def close(self) -> None:
        self._bar.close()


@cli.command()
@click.argument("question")
@store_options
@click.option("-k", "top_k", default=5, show_default=True, type=click.IntRange(min=1),
              help="How many fused hits to print.")
@click.option("--candidates", default=30, show_default=True, type=click.IntRange(min=1),
              help="Rows each arm returns.")
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON (schema in docs/CLI.md).")
def search(question: str, db: str | None, store: str | None, workspace: str, top_k: int,
           candidates: int, as_json: bool) -> None:
    """Show the fused evidence for QUESTION: both arms, RRF (k=60), no answer.

    Each hit shows its vector rank and cosine distance, its keyword rank and
    BM25 score, the fused score, and whether both arms found it.

    \b
    Example:
      abstain search "what does E1203 mean" --db kb.db --json
    """
    from abstain.config import RetrievalConfig
    from abstain.pipeline import Pipeline

    settings = settings_from(db, store, workspace)
    with Pipeline.from_settings(settings, create_store=False,
                                retrieval=RetrievalConfig(candidates=candidates,
                                                          top_k=top_k)) as pipe:
        result = pipe.search(question)
    if as_json:
        print_json({"question": question, "hits": [e.to_json() for e in result.evidence]})
        return
    if not result.evidence:
        click.echo("no hits")
    for n, ev in enumerate(result.evidence, start=1):
        h = ev.hit
        arms = " + ".join(a for a, r in (("vector", h.vector_rank), ("keyword", h.keyword_rank))
                          if r is not None)
        click.secho(f"[{n}] {ev.document.title} — {ev.source}", bold=True)
        vec = "-" if h.vector_rank is None else f"#{h.vector_rank} d={h.vector_distance:.3f}"
        kw = "-" if h.keyword_rank is None else f"#{h.keyword_rank} bm25={h.keyword_score:.2f}"
        click.echo(f"    fused={h.fused_score:.5f}  vector {vec}  keyword {kw}  ({arms})")
        snippet = " ".join(ev.text.split())
        click.echo(f"    {snippet[:240]}{'…' if len(snippet) > 240 else ''}")


@cli.group()
def docs() -> None:
    """List or remove ingested documents."""


@docs.command("list")
@store_options
@click.option("--all-workspaces", is_flag=True, help="List every workspace's documents.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def docs_list(db: str | None, store: str | None, workspace: str, all_workspaces: bool,
              as_json: bool) -> None:
    """List documents with their id, workspace, flags, chunk count and source.

    Flags: C curated (front matter `curated: true`: ranked first, exempt from the
    confidence checks), P published (`published: false` keeps a draft out of
    answers); - for neither.
    """
    from abstain.stores import open_store

    settings = settings_from(db, store, workspace)
    st = open_store(settings.store, create=False)
    try:
        rows = st.list_documents(None if all_workspaces else workspace)
        known = st.workspaces() if not rows else []
    finally:
        st.close()
    if as_json:
        print_json([asdict(r) for r in rows])
        return
    for r in rows:
        flags = "".join(("C" if r.curated else "-", "P" if r.published else "-"))
        click.echo(f"{r.id}  {r.workspace:<12} {flags} {r.chunks:>4} "
                   f"{'chunk ' if r.chunks == 1 else 'chunks'}  "
                   f"{printable(r.source)}")
    if not rows:  # as ask says it: which workspaces do hold documents
        where = "" if all_workspaces else f" in workspace {workspace!r}"
        click.echo(f"no documents{where}"
                   + (f" (workspaces: {', '.join(known)})" if known else ""))


@docs.command("rm")
@click.argument("documents", nargs=-1, required=True)
@store_options
def docs_rm(documents: tuple[str, ...], db: str | None, store: str | None,
            workspace: str) -> None:
    """Delete documents (and their chunks) by id or by source, as `docs list`
    shows them; a file's path may be spelt as for `ingest` (relative to here).

    \b
    Examples:
      abstain docs rm 5e38c1d2a9f04b7e --db kb.db
      abstain docs rm handbook/old-policy.md --db kb.db
    """
    from abstain.ingest.sources import named
    from abstain.stores import open_store

    settings = settings_from(db, store, workspace)
    st = open_store(settings.store, create=False)
    missing = 0
    try:
        stored = st.list_documents(workspace)
        for name in documents:
            found = named(stored, name)
            for doc in found:
                if st.delete_document(workspace, doc.id):
                    click.echo(f"deleted {doc.id}  {printable(doc.source)}")
            if not found:
                missing += 1
                elsewhere = sorted({d.workspace for d in named(st.list_documents(None), name)})
                hint = (f" (it is in workspace {', '.join(map(repr, elsewhere))}: add -w)"
                        if elsewhere else " (`abstain docs list` shows ids and sources)")
                click.secho(f"Error: no document {printable(name)} in workspace "
                            f"{workspace!r}{hint}", fg="red", err=True)
    finally:
        st.close()
    if missing:
        raise SystemExit(1)


def main() -> None:
    cli(prog_name="abstain")


def _register() -> None:
    from abstain.cli.ask import ask, demo
    from abstain.cli.config import config
    from abstain.cli.evaluate import calibrate, eval_cmd
    from abstain.cli.log import log_group
    from abstain.cli.mcp import mcp
    from abstain.cli.pg import pg
    from abstain.cli.serve import keys, serve
    from abstain.cli.vocab import vocab_group

    for command in (ask, demo, eval_cmd, calibrate, serve, keys, mcp, config, pg, log_group,
                    vocab_group):
        cli.add_command(command)


_register()
