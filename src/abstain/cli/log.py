"""`abstain log`: turn the query log on or off, review and label entries, export, plot."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from abstain.answer import shown_confidence
from abstain.cli.common import fail, print_json, printable, settings_from, store_options

if TYPE_CHECKING:
    from abstain.querylog import LogEntry, QueryLog


@contextmanager
def opened_log(db: str | None, store: str | None,
               where: list[str] | None = None) -> Iterator[QueryLog]:
    """The store's query log; ``where`` receives the store's location, to name it."""
    from abstain.querylog import open_log
    from abstain.stores import open_store

    # the log belongs to a store of documents: a mistyped --db is an error, not a new store
    st = open_store(settings_from(db, store, "default").store, create=False)
    if where is not None:
        where.append(str(st))
    try:
        yield open_log(st)
    finally:
        st.close()


@click.group("log")
def log_group() -> None:
    """Record every question asked on a store; review, label and export them.

    The tuning loop (docs/TUNING.md): turn the log on, let real questions
    come in (CLI, library or server), label which answers were right and
    which refusals were wrong, then refit the gate from the labels.

    \b
    Examples:
      abstain log on --db kb.db --retention-days 30
      abstain log list --refused --since 7d --db kb.db
      abstain log label 42 --expected answer --db kb.db
      abstain calibrate --from-log --db kb.db -o cal.json --max-false-accept 0.05
    """


@log_group.command("on")
@store_options
@click.option("--retention-days", type=click.IntRange(1), metavar="N",
              help="Delete entries older than N days [default: keep them].")
@click.option("--redact", is_flag=True,
              help="Keep only the SHA-256 of each question, not its text nor the answer.")
def log_on(db: str | None, store: str | None, workspace: str, retention_days: int | None,
           redact: bool) -> None:
    """Record every question asked on this store (all workspaces), from now on.

    The setting lives in the store, so the CLI, the library and the server all
    follow it. Each entry keeps the time, workspace, question (or its hash),
    decision, refusal reason, confidence, features, every gate check with value
    and threshold, cited sources, latency and LLM calls.
    """
    from abstain.querylog import LogSettings

    settings = LogSettings(True, retention_days, redact)
    where: list[str] = []
    with opened_log(db, store, where) as qlog:
        qlog.configure(settings)
        pruned = qlog.prune(retention_days) if retention_days else 0
    click.echo(f"query log on for {printable(where[0])} ({_describe(settings)})"
               + (f"; deleted {pruned} entries past retention" if pruned else ""))


@log_group.command("off")
@store_options
def log_off(db: str | None, store: str | None, workspace: str) -> None:
    """Stop recording questions (entries already logged are kept)."""
    from dataclasses import replace

    with opened_log(db, store) as qlog:
        qlog.configure(replace(qlog.settings(), enabled=False))
    click.echo("query log off")


@log_group.command("status")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def log_status(db: str | None, store: str | None, workspace: str, as_json: bool) -> None:
    """Show whether the log is on, and how many entries the workspace holds."""
    with opened_log(db, store) as qlog:
        settings = qlog.settings()
        entries = qlog.entries(workspace)
    labelled = sum(e.expected is not None for e in entries)
    if as_json:
        print_json({**settings.to_json(), "workspace": workspace, "entries": len(entries),
                    "labelled": labelled})
        return
    click.echo(f"query log {'on' if settings.enabled else 'off'} ({_describe(settings)}); "
               f"workspace {workspace!r}: {len(entries)} entries, {labelled} labelled")


@log_group.command("list")
@store_options
@click.option("--refused", is_flag=True, help="Only refusals.")
@click.option("--answered", is_flag=True, help="Only answers.")
@click.option("--unlabelled", is_flag=True, help="Only entries nobody has labelled yet.")
@click.option("--since", metavar="WHEN", help="From this time on: 2026-05-01, "
                                              "2026-05-01T12:00, or 30m / 12h / 7d ago.")
@click.option("--limit", "-n", type=click.IntRange(1), default=50, show_default=True,
              help="At most this many entries, newest first.")
@click.option("--json", "as_json", is_flag=True, help="Print the entries as JSON.")
def log_list(db: str | None, store: str | None, workspace: str, refused: bool,
             answered: bool, unlabelled: bool, since: str | None, limit: int,
             as_json: bool) -> None:
    """List logged questions of the workspace, newest first.

    Each line: id, time, decision (answered, or the refusal reason), confidence,
    the label if any (✓ the gate agreed with it, ✗ it did not), the question.

    \b
    Examples:
      abstain log list --refused --since 7d --db kb.db
      abstain log list --unlabelled --json --db kb.db
    """
    from abstain.querylog import parse_since

    if refused and answered:
        fail("--refused and --answered together list nothing: give one (or neither, for all)")
    with opened_log(db, store) as qlog:
        rows = qlog.entries(workspace, answered=True if answered else False if refused else None,
                            since=parse_since(since) if since else None,
                            labelled=False if unlabelled else None, limit=limit)
    if as_json:
        print_json([e.to_json() for e in rows])
        return
    for e in rows:
        click.echo(_line(e))
    if not rows:
        click.echo(f"no logged questions in workspace {workspace!r}")


@log_group.command("show")
@click.argument("entry_id", type=int)
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the whole entry as JSON.")
def log_show(entry_id: int, db: str | None, store: str | None, workspace: str,
             as_json: bool) -> None:
    """Show one entry: the decision, every gate check, sources, timings, LLM calls."""
    with opened_log(db, store) as qlog:
        entry = qlog.get(workspace, entry_id)
    if entry is None:
        fail(f"no log entry {entry_id} in workspace {workspace!r}",
             "see: abstain log list")
        return
    if as_json:
        print_json({**entry.to_json(), "record": entry.record})
        return
    click.secho(_line(entry), bold=True)
    rec = entry.record
    if rec.get("answer"):
        click.echo(f"answer: {rec['answer']}")
    click.echo(f"triage {entry.triage}; latency {entry.latency_ms:.1f} ms; "
               f"LLM calls {entry.llm_calls}; sources: "
               + (", ".join(rec.get("cited_sources") or []) or "-"))
    click.echo("checks:")
    for c in rec.get("checks") or []:
        mark = click.style("pass", fg="green") if c["passed"] else click.style("FAIL", fg="red")
        click.echo(f"  {mark} {c['name']:<24} value {c['value']!s:<10} threshold "
                   f"{c['threshold']!s:<10} {c.get('detail') or ''}")
    click.echo("features: " + ", ".join(f"{k} {v:.4g}" for k, v in
                                        (rec.get("features") or {}).items()))
    for call in rec.get("llm_calls") or []:
        click.echo(f"LLM {call['purpose']} {call['model']}: {call['outcome']} "
                   f"{call['latency_ms']:.0f} ms")
    for note in rec.get("notes") or []:
        click.echo(f"note: {note}")
    if entry.expected:
        click.echo(f"label: expected {entry.expected}"
                   + (f" — {entry.note}" if entry.note else "")
                   + (f" (gold: {', '.join(entry.gold_sources)})" if entry.gold_sources else ""))


@log_group.command("label")
@click.argument("entry_ids", nargs=-1, required=True, type=int)
@click.option("--expected", type=click.Choice(["answer", "refuse"]), required=True,
              help="answer: the documents hold the answer; refuse: they do not.")
@click.option("--note", default=None,
              help="Why (kept with the label) [default: the entry's note, if any].")
@click.option("--gold-source", "gold_sources", multiple=True, metavar="SOURCE",
              help="A document that holds the answer (repeatable); lets eval judge "
                   "whether an answer cited the right source [default: the entry's].")
@store_options
def log_label(entry_ids: tuple[int, ...], expected: str, note: str | None,
              gold_sources: tuple[str, ...], db: str | None, store: str | None,
              workspace: str) -> None:
    """Label entries: should the gate have answered (answer) or refused (refuse)?

    Labelling an entry again keeps the note and gold sources it has unless new
    ones are given.

    \b
    Examples:
      abstain log label 12 --expected answer --db kb.db
      abstain log label 13 14 --expected refuse --note "not in the handbook" --db kb.db
    """
    with opened_log(db, store) as qlog:
        entries = {entry_id: qlog.get(workspace, entry_id) for entry_id in entry_ids}
        missing = [str(i) for i, entry in entries.items() if entry is None]
        if missing:  # all or nothing: a half-labelled batch is hard to redo
            fail(f"no log entry {', '.join(missing)} in workspace {workspace!r}; nothing "
                 "was labelled", "abstain log list -w NAME shows a workspace's entries "
                 "(each workspace numbers its own); add -w NAME")
        for entry_id, entry in entries.items():
            assert entry is not None
            kept_note = note if note is not None else entry.note or ""
            kept_gold = gold_sources or tuple(entry.gold_sources)
            qlog.label(workspace, entry_id, expected, kept_note, kept_gold)
            click.echo(f"labelled {entry_id}: expected {expected}")


@log_group.command("export")
@store_options
@click.option("--labelled", is_flag=True,
              help="Only labelled entries: always so, since the eval format needs a label "
                   "(kept for scripts that pass it).")
@click.option("--output", "-o", type=click.File("w", encoding="utf-8"), default="-",
              help="Where to write the JSONL [default: stdout].")
def log_export(db: str | None, store: str | None, workspace: str, labelled: bool,
               output: Any) -> None:
    """Write labelled entries in the `abstain eval` JSONL format.

    Redacted entries (only a hash) cannot be asked again and are skipped;
    `abstain eval --from-log` and `calibrate --from-log` still use them.

    \b
    Example:
      abstain log export --db kb.db -o traffic.jsonl
      abstain eval traffic.jsonl --db kb.db
    """
    with opened_log(db, store) as qlog:
        rows = qlog.entries(workspace, labelled=True)
    written = skipped = 0
    for e in reversed(rows):
        if e.question is None:
            skipped += 1
            continue
        output.write(json.dumps(e.to_labelled(), ensure_ascii=False) + "\n")
        written += 1
    click.echo(f"exported {written} labelled questions"
               + (f"; skipped {skipped} redacted" if skipped else ""), err=True)


@log_group.command("plot")
@store_options
@click.option("--output", "-o", type=click.Path(dir_okay=False), default="histogram.png",
              show_default=True, help="PNG to write (pip install 'abstain[plots]').")
@click.option("--threshold", type=float, metavar="T",
              help="The gate to mark [default: the threshold the logged asks ran with].")
def log_plot(db: str | None, store: str | None, workspace: str, output: str,
             threshold: float | None) -> None:
    """Draw the confidence histograms of labelled entries: should answer vs should refuse.

    The gate belongs where the two distributions cross; the line marks where it is.
    """
    from abstain.evaluate.plots import confidence_histograms

    with opened_log(db, store) as qlog:
        records = [e.to_record() for e in qlog.entries(workspace, labelled=True)]
    if not records:
        fail(f"no labelled entries in workspace {workspace!r}",
             "label some first: abstain log label ID --expected answer|refuse")
    path, cross = confidence_histograms(records, output, threshold=threshold,
                                        title=f"workspace {workspace}")
    click.echo(f"wrote {path} ({len(records)} labelled questions"
               + (f"; the distributions cross near {cross:.3f}" if cross is not None else "")
               + ")")


def _line(e: LogEntry) -> str:
    decision = "answered" if e.answered else f"refused ({e.reason})"
    label = ""
    if e.expected is not None:
        label = f" [{e.expected} {'✓' if e.label_agrees else '✗'}]"
    question = e.question if e.question is not None else f"sha256:{e.question_hash[:12]}…"
    return (f"{e.id:>6}  {e.created_at[:19]}  {decision:<34} {shown_confidence(e.confidence):>9}"
            f"{label}  {question}")


def _describe(settings: Any) -> str:
    keep = (f"kept {settings.retention_days} days" if settings.retention_days
            else "kept until deleted")
    return f"{keep}, {'questions hashed' if settings.redact else 'questions in clear'}"
