"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from abstain.config import Settings
from abstain.errors import AbstainError
from abstain.presets import Preset

if TYPE_CHECKING:
    from abstain.options import Resolved

F = TypeVar("F", bound=Callable[..., Any])


def store_options(func: F) -> F:
    """--db / --store and --workspace, as every command that touches a store takes them."""
    func = click.option("--workspace", "-w", envvar="ABSTAIN_WORKSPACE", default="default",
                        callback=_workspace,
                        help="Workspace (tenant) to read or write: letters, digits, '_', "
                             "'.', '-' [env ABSTAIN_WORKSPACE; default: default].")(func)
    func = click.option("--store", "store", envvar="ABSTAIN_STORE", metavar="URL",
                        help="Store location: a SQLite path or a postgresql:// URL "
                             "[env ABSTAIN_STORE; it wins over ABSTAIN_DB, a flag over "
                             "both].")(func)
    func = click.option("--db", "db", envvar="ABSTAIN_DB", metavar="FILE",
                        type=click.Path(dir_okay=False),
                        help="SQLite database file [env ABSTAIN_DB; default: abstain.toml's "
                             "store, else the user data directory].")(func)
    return func


def _workspace(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from abstain.errors import InputError
    from abstain.stores.base import check_workspace

    try:
        return check_workspace(value)
    except InputError as exc:
        raise click.BadParameter(str(exc)) from exc


def settings_from(db: str | None, store: str | None, workspace: str,
                  **extra: str | None) -> Settings:
    """The settings of a command that touches a store: ``--store`` / ``--db`` (or their
    environment variables, :func:`given_store`), else the store ``abstain.toml`` names
    (:func:`configured_store`)."""
    return Settings.from_env(store=given_store(db, store) or configured_store(),
                             workspace=workspace, **extra)


def given_store(db: str | None, store: str | None) -> str | None:
    """The store of ``--db`` / ``--store`` as ``ask`` resolves it: a flag on the command line
    beats either environment variable (``--db kb.db`` is not overruled by an exported
    ``ABSTAIN_STORE``); of two flags, or of two variables, ``--store`` / ``ABSTAIN_STORE``."""
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    if (ctx is not None and db is not None and store is not None
            and ctx.get_parameter_source("db") == ParameterSource.COMMANDLINE
            and ctx.get_parameter_source("store") != ParameterSource.COMMANDLINE):
        return db
    return store or db


def configured_store() -> str | None:
    """The top-level ``store`` of the configuration file (``ABSTAIN_CONFIG``, else
    ``./abstain.toml``), relative to the file: every command of a configured project uses
    the store its ``ask`` and ``serve`` use (``log on`` turned on another store's log)."""
    from abstain.options import config_path, load_file

    path = config_path(None)
    if path is None:
        return None
    top, _ = load_file(path)
    value = top.get("store")
    return str(value) if value else None


def printable(text: str) -> str:
    """``text`` on one terminal line: control characters (a newline or tab in a file's
    name) written as escapes, so one document or citation stays one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else
                   repr(c)[1:-1] if c in "\n\t\r" else f"\\x{ord(c):02x}" for c in text)


def print_json(payload: Any) -> None:
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2))


def fail(message: str, hint: str | None = None) -> None:
    click.secho(f"Error: {message}", fg="red", err=True)
    if hint:
        click.echo(hint, err=True)
    sys.exit(1)


QUESTION_COMMANDS = ("ask", "search")
"""The commands whose argument is a question, which may start with a flag ("-l vs -L?")."""


class FriendlyGroup(click.Group):
    """Turns AbstainError (and a Ctrl-C) into one line on stderr instead of a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.NoSuchOption as exc:  # "abstain ask "-l vs -L?"": a question, not a flag
            if exc.ctx is None or exc.ctx.command.name not in QUESTION_COMMANDS:
                raise
            raise click.NoSuchOption(exc.option_name, ctx=exc.ctx, message=(
                f"{exc.message}\nA question that starts with '-' goes last, after the "
                f"options and '--': abstain {exc.ctx.command.name} --db kb.db "
                f"-- \"{exc.option_name} …\"")) from None
        except AbstainError as exc:
            fail(str(exc), _hint(exc))
        except KeyboardInterrupt:
            fail("interrupted")
        return None


ASK_OPTION_NAMES = ("config", "preset", "calibration", "answer_confidence", "embedder", "llm",
                    "llm_model", "llm_timeout", "strictness", "reader", "rewrite", "llm_rerank")


def ask_options(func: F) -> F:
    """The options of asking (abstain.toml keys of the same names; docs/CLI.md), shared by
    ``ask``, ``serve`` and ``config show``. Defaults are left to :mod:`abstain.options` so
    that each value's origin is known."""
    decorators = [
        click.option("--config", "config", metavar="FILE", type=click.Path(dir_okay=False),
                     help="abstain.toml to read [env ABSTAIN_CONFIG; default: ./abstain.toml "
                          "if present]. Flags and environment variables override it."),
        click.option("--replica", "replica", metavar="URL", multiple=True,
                     help="A read replica of the postgresql:// store (repeat for several): "
                          "questions are searched on the replicas in turn, writes and "
                          "everything else go to the primary. A replica that has not "
                          "replayed the last write within 0.2 s, or that fails, leaves the "
                          "question to the primary, and the answer's audit trail says so "
                          "[env ABSTAIN_REPLICAS, URLs separated by spaces]."),
        click.option("--preset", type=click.Choice(Preset.names()),
                     help="Gate thresholds [default: balanced]; a +reader preset lets the "
                          "reading decide (as --reader)."),
        click.option("--calibration", type=click.Path(exists=True, dir_okay=False),
                     help="Calibration file written by `abstain calibrate`: the gate "
                          "decides on its retrieval confidence instead of the answer "
                          "confidence."),
        click.option("--answer-confidence", type=click.Path(exists=True, dir_okay=False),
                     metavar="FILE",
                     help="Answer-confidence file written by `abstain calibrate --target "
                          "answer-confidence`, used instead of the shipped one; it decides "
                          "at its own threshold [default: the shipped model]."),
        click.option("--embedder", metavar="NAME",
                     help="Embedder the database was built with (as `ingest --embedder`) "
                          "[env ABSTAIN_EMBEDDER; default: the stored one, else MiniLM]."),
        click.option("--llm", "llm", metavar="URL|local",
                     help="Write the answer with an LLM: an OpenAI-compatible base URL "
                          "(Ollama, vLLM, llama.cpp, OpenAI) or `local` for the embedded "
                          "SmolLM2 [env ABSTAIN_LLM_URL; default: the extractive answerer, "
                          "no LLM]."),
        click.option("--llm-model", metavar="NAME",
                     help="Model name sent to the LLM server [env ABSTAIN_LLM_MODEL]. "
                          "The API key is read from ABSTAIN_LLM_API_KEY."),
        click.option("--llm-timeout", type=click.FloatRange(min=0, min_open=True),
                     metavar="SECONDS",
                     help="One deadline per LLM call: connect, every read and every retry "
                          "together [default: 60]."),
        click.option("--strictness",
                     type=click.Choice(["loose", "balanced", "strict", "paranoid"]),
                     help="How faithful a verified answer must be (0 / .5 / .7 / .9); below "
                          "it the answer becomes a refusal. Unsupported sentences are "
                          "removed except at loose [default: balanced]."),
        click.option("--reader/--no-reader", default=None,
                     help="By default abstain's own reading-level model (docs/MODEL_CARD.md) "
                          "reads the kept evidence and vetoes: it refuses (reason unanswerable) "
                          "when it reads no answer, or (extractive answers) reads no part of "
                          "the answer's quote as answering; otherwise the answer is what it "
                          "would be unread, but for the passage it reads as answering on the "
                          "same pages. "
                          "--reader lets its reading decide: its confidence, and the answer "
                          "quotes the passage it reads as answering on any page when that reads "
                          "clearly better than word overlap's (the precision setting, as the "
                          "preset's +reader); --no-reader reads nothing."),
        click.option("--rewrite", is_flag=True, default=None,
                     help="Let the LLM rewrite the question into a search query first "
                          "(needs --llm)."),
        click.option("--llm-rerank", is_flag=True, default=None,
                     help="Let the LLM grade the evidence 0–3 and drop what does not "
                          "answer (needs --llm)."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def resolve_options(ctx: click.Context) -> Resolved:
    """The effective options of a command with :func:`ask_options` (and store options)."""
    from click.core import ParameterSource

    from abstain.options import resolve

    params = ctx.params

    def given(name: str) -> bool:
        return (name in params and params[name] is not None
                and ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE)

    flags = {name: params[name] for name in ASK_OPTION_NAMES[1:] if given(name)}
    named: dict[str, str] = {}
    store = next((n for n in ("store", "db") if given(n)), None)
    if store is not None:
        flags["store"], named["store"] = params[store], store
    if given("replica") and params["replica"]:
        flags["replicas"] = " ".join(params["replica"])
    if given("workspace"):
        flags["workspace"] = params["workspace"]
    return resolve(flags, config=params.get("config"), flag_names=named)


def _hint(exc: AbstainError) -> str | None:
    """What to run next, for the errors a new user meets first."""
    from abstain.errors import NoDatabase, UnknownWorkspace

    if isinstance(exc, NoDatabase):
        return f"Create it by adding documents: abstain ingest FOLDER --db {exc.location}"
    if isinstance(exc, UnknownWorkspace) and exc.location:
        where = (f"--store {exc.location}" if "://" in exc.location
                 else f"--db {exc.location}")
        return (f"The store is {exc.location}. Add documents with: "
                f"abstain ingest FOLDER {where} --workspace {exc.workspace}")
    return None
