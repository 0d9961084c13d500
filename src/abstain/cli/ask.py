"""`abstain ask` and `abstain demo`."""

from __future__ import annotations

import click

from abstain.answer import Answer, shown_confidence
from abstain.cli.common import (
    ask_options,
    print_json,
    printable,
    resolve_options,
    settings_from,
    store_options,
)
from abstain.records import RefusalReason


@click.command()
@click.argument("question")
@store_options
@ask_options
@click.option("--json", "as_json", is_flag=True,
              help="Print the answer as JSON (schema in docs/SCHEMA.md).")
@click.option("--debug", is_flag=True, help="Show every gate check with value, threshold and "
                                            "decision, and the evidence scores.")
@click.pass_context
def ask(ctx: click.Context, /, question: str, as_json: bool, debug: bool,
        **_options: object) -> None:
    """Answer QUESTION from the documents, or refuse and say why.

    The gate runs before any model is called: no evidence, weak evidence,
    missing terms or an unknown identifier (ADR-0050, E9999, v9.9) refuse at
    once. Answers cite their sources as [n].

    With --llm an LLM writes the answer from the evidence the gate let through;
    every sentence is then verified against the sources it cites, unsupported
    ones are removed (listed under unsupported_claims in --json), and an answer
    whose faithfulness is below --strictness is refused.

    \b
    Examples:
      abstain ask "How do I rotate the API keys?" --db kb.db
      abstain ask "What does ADR-0050 decide?" --db kb.db --debug
      abstain ask "Wie wird das Wetter morgen?" --json
      abstain ask --db kb.db -- "-l or -L: which lists files?"   (a question starting with -)
      abstain ask "How do I rotate the API keys?" --llm http://localhost:11434/v1 \\
          --llm-model llama3.2 --strictness strict
      abstain ask "How do I rotate the API keys?" --llm local --json
      abstain ask "When was the 2.2 line retired?" --reader --debug
      abstain ask "How do I rotate the API keys?" --config abstain.toml

    Every option can also be set in abstain.toml (see `abstain config show`).
    """
    with resolve_options(ctx).options.open_pipeline(create_store=False) as pipe:
        answer = pipe.ask(question)
    if as_json:
        print_json(answer.audit_trail() if debug else answer.to_json())
        return
    render(answer, debug=debug)


_ON_TOPIC = frozenset({RefusalReason.UNANSWERABLE, RefusalReason.LOW_COVERAGE,
                       RefusalReason.ANSWER_TYPE_MISSING, RefusalReason.LOW_CONFIDENCE,
                       RefusalReason.ENTITY_NOT_IN_EVIDENCE})
"""Refusals whose kept evidence is on the question's topic but does not answer it: the text
output names the closest passage, where a reader would look next."""


def render(answer: Answer, *, debug: bool = False) -> None:
    if answer.read_as is not None:
        click.echo(f"Read as: {answer.read_as}")
    if answer.answered:
        click.secho(f"Answer ({answer.triage}, confidence {shown_confidence(answer.confidence)}):",
                    fg="green", bold=True)
        click.echo(answer.text)
        quotes: dict[tuple[int, str, str], list[str]] = {}
        for c in answer.citations:  # one line per marker: its quotes in answer order
            quotes.setdefault((c.n, c.source, c.chunk_id), []).append(" ".join(c.quote.split()))
        for (n, source, chunk_id), said in quotes.items():
            shown = " … ".join(f'"{q}"' for q in dict.fromkeys(said))
            click.echo(f"  [{n}] {printable(source)} ({chunk_id}): {shown}")
    else:
        assert answer.refusal is not None
        click.secho(f"Refused ({answer.refusal.reason}, confidence "
                    f"{shown_confidence(answer.confidence)}):", fg="yellow", bold=True)
        click.echo(answer.refusal.message)
        if answer.refusal.did_you_mean:
            click.echo(answer.refusal.did_you_mean)
        if answer.refusal.reason in _ON_TOPIC and answer.evidence:
            best = answer.evidence[0]
            where = " › ".join(best.chunk.heading_path) or best.document.title
            click.echo(f"Closest passage: {printable(best.source)}" + (f" › {where}" if where
                                                                        else ""))
    for claim in answer.unsupported_claims:
        click.secho(f"  removed (unsupported): {claim}", fg="red")
    faithful = "" if answer.faithfulness is None else f"faithfulness={answer.faithfulness:.2f}  "
    click.echo(f"llm_called={str(answer.llm_called).lower()}  {faithful}"
               f"{answer.timings_ms.get('total_ms', 0):.0f} ms")
    if debug:
        for call in answer.llm_calls:
            click.echo(f"  LLM {call.purpose}: {call.model} {call.outcome} "
                       f"{call.latency_ms:.0f} ms "
                       f"tokens{'≈' if call.tokens_estimated else '='}{call.prompt_tokens}/"
                       f"{call.completion_tokens}" + (f" ({call.error})" if call.error else ""))
        for note in answer.notes:
            click.echo(f"  note: {note}")
    if debug:
        click.secho("Gate checks:", bold=True)
        for check in answer.checks:
            mark = "PASS" if check.passed else "FAIL"
            click.echo(f"  {mark:4} {check.name:<22} value={_fmt(check.value)} "
                       f"threshold={_fmt(check.threshold)}  {check.detail}")
        click.secho("Evidence:", bold=True)
        for n, ev in enumerate(answer.evidence, start=1):
            h = ev.hit
            click.echo(f"  [{n}] conf={_fmt(ev.confidence)} fused={h.fused_score:.5f} "
                       f"vec={h.vector_rank}/{_fmt(h.vector_distance)} "
                       f"kw={h.keyword_rank}/{_fmt(h.keyword_score)} "
                       f"both={h.in_both} {printable(ev.source)}")


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "-" if value is None else str(value)


@click.command()
@click.option("--db", type=click.Path(dir_okay=False), metavar="FILE",
              help="Where to build the demo database [default: the user data directory].")
@click.option("--question", "questions", multiple=True, metavar="TEXT",
              help="Ask these instead of the built-in pair (repeatable).")
def demo(db: str | None, questions: tuple[str, ...]) -> None:
    """Ingest the bundled sample corpus, then answer one question and refuse another.

    Runs offline on the embedded defaults (SQLite + MiniLM int8). A second run
    reuses the database and skips unchanged files.
    """
    import os
    from importlib import resources
    from pathlib import Path

    from abstain.pipeline import Pipeline

    if db is None:
        from platformdirs import user_data_dir

        db = str(Path(user_data_dir("abstain", appauthor=False)) / "demo.db")
    corpus = Path(str(resources.files("abstain").joinpath("sample_corpus")))
    db = str(Path(db).resolve())
    os.chdir(corpus.parent)  # older demo databases recorded sources as sample_corpus/…
    click.secho(f"Ingesting the sample corpus into {db} …", bold=True)
    with Pipeline.from_settings(settings_from(db, None, "default")) as pipe:
        report = pipe.ingest([corpus.name])
        click.echo(report.summary())
        for q in questions or DEMO_QUESTIONS:
            click.echo()
            click.secho(f"Q: {q}", fg="cyan", bold=True)
            render(pipe.ask(q))


DEMO_QUESTIONS = (
    "How do I reset the admin password?",
    "What does ADR-0050 decide?",
)
