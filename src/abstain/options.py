"""One configuration for ``ask``, ``serve`` and ``config show``: flags, environment, a file.

Each option comes from the first of these that sets it::

    a command-line flag  >  an environment variable  >  abstain.toml [workspaces.NAME]
                         >  abstain.toml (top level)  >  the default

The file is ``--config FILE``, else ``$ABSTAIN_CONFIG``, else ``abstain.toml`` in the
current directory when there is one. It is read with the standard library's
:mod:`tomllib`, only here, and only by the CLI and the server at start-up; the library
itself takes the resulting :class:`AskOptions` (or plain keyword arguments)::

    store = "kb.db"
    preset = "strict"
    calibration = "cal.json"
    llm = "http://localhost:11434/v1"
    llm_model = "llama3.2"

    [workspaces.legal]          # per-workspace overrides (asking only)
    strictness = "paranoid"
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abstain.config import DEFAULT_LLM_TIMEOUT, DEFAULT_WORKSPACE, Settings, replica_urls
from abstain.errors import ConfigError, InputError
from abstain.presets import Preset

if TYPE_CHECKING:
    from abstain.pipeline import Pipeline

ENV_CONFIG = "ABSTAIN_CONFIG"
CONFIG_NAME = "abstain.toml"
STRICTNESS_NAMES = ("loose", "balanced", "strict", "paranoid")

ENV_VARS: dict[str, tuple[str, ...]] = {
    "store": ("ABSTAIN_STORE", "ABSTAIN_DB"),
    "replicas": ("ABSTAIN_REPLICAS",),
    "workspace": ("ABSTAIN_WORKSPACE",),
    "embedder": ("ABSTAIN_EMBEDDER",),
    "llm": ("ABSTAIN_LLM_URL",),
    "llm_model": ("ABSTAIN_LLM_MODEL",),
}
_FLAGS = {"replicas": "replica"}
"""Option -> its command-line flag, where they differ."""
_NEGATED = frozenset({"reader"})
"""Options whose flag has a ``--no-`` form that gives False."""
READER_MODES: dict[str, bool | None] = {"veto": None, "decides": True, "off": False}
"""How the reader is named in abstain.toml (``reader = "off"``; true and false also do) and in
``config show``: None reads and vetoes (the default), True lets the reading decide
(``--reader``), False reads nothing (``--no-reader``)."""
WORKSPACE_KEYS = frozenset({"preset", "calibration", "answer_confidence", "llm", "llm_model",
                            "llm_timeout", "strictness", "reader", "rewrite", "llm_rerank"})
"""What a ``[workspaces.NAME]`` table may override (the store and embedder are shared)."""


def check_strictness(name: str) -> str:
    """``name`` if it names a strictness, else a ConfigError listing them."""
    if name not in STRICTNESS_NAMES:
        raise ConfigError(f"unknown strictness {name!r}; choose from "
                          f"{', '.join(STRICTNESS_NAMES)}")
    return name


@dataclass(frozen=True, slots=True)
class AskOptions:
    """Everything ``abstain ask`` can be told, as one value."""

    store: str | None = None
    """A SQLite path or a postgresql:// URL; None means the default database."""
    replicas: str | None = None
    """Read replicas of a postgresql:// store, separated by spaces (``--replica``, repeated;
    in abstain.toml a string or a list of strings)."""
    workspace: str = DEFAULT_WORKSPACE
    preset: str = "balanced"
    calibration: str | None = None
    """A calibration file written by ``abstain calibrate``."""
    answer_confidence: str | None = None
    """An answer-confidence file written by ``abstain calibrate --target answer-confidence``
    (None: the shipped one)."""
    embedder: str | None = None
    llm: str | None = None
    """An OpenAI-compatible base URL, or ``local``; None: the extractive answerer."""
    llm_model: str | None = None
    llm_timeout: float = DEFAULT_LLM_TIMEOUT
    """One deadline per LLM call, in seconds (connect and every read together)."""
    strictness: str = "balanced"
    reader: bool | None = None
    """None: the reader reads and vetoes (the default); True: the reading decides (as a
    ``+reader`` preset); False: nothing is read."""
    rewrite: bool = False
    llm_rerank: bool = False

    def __post_init__(self) -> None:
        Preset.parse(self.preset)
        check_strictness(self.strictness)
        positive_seconds("llm_timeout", self.llm_timeout)
        if (self.rewrite or self.llm_rerank) and not self.llm:
            wanted = [f for f, on in (("--rewrite", self.rewrite),
                                      ("--llm-rerank", self.llm_rerank)) if on]
            raise ConfigError(f"{' and '.join(wanted)} {'need' if len(wanted) > 1 else 'needs'}"
                              " an LLM to ask: add --llm URL (an OpenAI-compatible server) or "
                              "--llm local (in abstain.toml: llm = ...)")

    def settings(self, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return Settings(store=self.store, replicas=replica_urls(self.replicas),
                        workspace=self.workspace, embedder=self.embedder,
                        llm_url=self.llm, llm_model=self.llm_model,
                        llm_api_key=env.get("ABSTAIN_LLM_API_KEY"),
                        llm_timeout=self.llm_timeout)

    def pipeline_options(self) -> dict[str, Any]:
        """Keyword arguments of :class:`~abstain.pipeline.Pipeline` (not store/embedder)."""
        from abstain.answer_confidence import AnswerConfidence
        from abstain.confidence import Calibration
        from abstain.pipeline_options import GateOptions, LLMOptions, ReadingOptions

        preset, decides = Preset.parse(self.preset)
        calibration = Calibration.load(self.calibration) if self.calibration else None
        model = (AnswerConfidence.load(self.answer_confidence) if self.answer_confidence
                 else None)
        thresholds = preset.thresholds(reading_decides=decides or self.reader is True)
        return {"gate": GateOptions(thresholds, calibration=calibration,
                                    answer_confidence=model),
                "reading": ReadingOptions(reader=self.reader is not False),
                "llm": LLMOptions(strictness=self.strictness, rewrite_query=self.rewrite,
                                  llm_rerank=self.llm_rerank)}

    def open_pipeline(self, environ: Mapping[str, str] | None = None, *,
                      create_store: bool = True) -> Pipeline:
        """``create_store=False`` (commands that only read): a missing SQLite file is an error."""
        from abstain.pipeline import Pipeline

        return Pipeline.from_settings(self.settings(environ), create_store=create_store,
                                      **self.pipeline_options())

    def sharing(self, base: Pipeline, environ: Mapping[str, str] | None = None) -> Pipeline:
        """A pipeline with these options over ``base``'s store and embedder (close only
        ``base``; this one's generator is closed by :func:`close_shared`)."""
        from abstain.generate import load_generator
        from abstain.pipeline import Pipeline

        generator = load_generator(self.settings(environ)) if self.llm else None
        return Pipeline(base.store, base.embedder, workspace=self.workspace,
                        generator=generator, **self.pipeline_options())


def close_shared(pipe: Pipeline) -> None:
    """Close what a :meth:`AskOptions.sharing` pipeline owns: its generator only."""
    close = getattr(pipe.generator, "close", None)
    if close is not None:
        close()


@dataclass(frozen=True, slots=True)
class Resolved:
    """The effective options, where each came from, and the per-workspace overrides."""

    options: AskOptions
    origins: dict[str, str]
    path: Path | None = None
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``[workspaces.NAME]`` tables of the file, as given."""
    base: tuple[AskOptions, dict[str, str]] | None = None
    """The options and origins before the asked workspace's own table was applied (flags,
    environment, the file's top level): what every other workspace starts from. None when
    ``options`` are those."""

    @property
    def shared(self) -> AskOptions:
        """The options of a server's main pipeline: no workspace's table (each workspace that
        has one gets a pipeline of its own, :meth:`for_workspace`)."""
        return (self.base or (self.options, self.origins))[0]

    def for_workspace(self, name: str) -> tuple[AskOptions, dict[str, str]]:
        """The options for asking in ``name``: its file overrides over the shared options
        (never another workspace's), unless a flag or an environment variable set the
        option."""
        options, base_origins = self.base or (self.options, self.origins)
        table = self.overrides.get(name, {})
        values: dict[str, Any] = {"workspace": name}
        origins = {**base_origins, "workspace": "argument"}
        for key, value in table.items():
            if not base_origins[key].startswith(("flag", "env")):
                values[key] = value
                origins[key] = f"{self.path} [workspaces.{name}]"
        return replace(options, **values), origins


def config_path(explicit: str | None, environ: Mapping[str, str] | None = None,
                cwd: Path | None = None) -> Path | None:
    """``--config``, else ``$ABSTAIN_CONFIG``, else ``./abstain.toml`` if it exists."""
    env = os.environ if environ is None else environ
    chosen = explicit or env.get(ENV_CONFIG)
    if chosen:
        path = Path(chosen)
        if not path.is_file():
            raise ConfigError(f"config file {chosen} does not exist")
        return path
    local = (cwd or Path.cwd()) / CONFIG_NAME
    return local if local.is_file() else None


def load_file(path: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Top-level options and ``[workspaces.NAME]`` tables, checked against AskOptions."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    data.pop("vocabularies", None)  # read by abstain.vocabulary.configured (`vocab refresh`)
    tables = data.pop("workspaces", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: 'workspaces' must be a table of [workspaces.NAME] tables")
    top = _checked(data, path, "", set(_TYPES))
    overrides = {}
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [workspaces.{name}] must be a table")
        from abstain.stores.base import check_workspace  # numpy: not at the CLI's import

        try:
            check_workspace(str(name))
        except InputError as exc:
            raise ConfigError(f"{path}: [workspaces.{name}]: {exc}") from None
        overrides[str(name)] = _checked(table, path, f"[workspaces.{name}] ", WORKSPACE_KEYS)
    return top, overrides


_TYPES: dict[str, tuple[type, ...]] = {
    f.name: (bool,) if f.type in ("bool", "bool | None") else (int, float) if f.type == "float"
    else (str,)
    for f in fields(AskOptions)}


def positive_seconds(name: str, value: float) -> None:
    """A ConfigError naming ``name`` unless ``value`` is a positive number of seconds."""
    if value <= 0:
        raise ConfigError(f"{name} must be > 0 seconds, not {value!r}")


def _checked(table: dict[str, Any], path: Path, where: str, allowed: set[str] | frozenset[str]
             ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key not in allowed:
            raise ConfigError(f"{path}: {where}unknown option {raw_key!r}; known: "
                              f"{', '.join(sorted(allowed))}")
        if key == "reader" and isinstance(value, str):
            if value not in READER_MODES:
                raise ConfigError(f"{path}: {where}{raw_key} must be true, false or one of "
                                  f"{', '.join(repr(m) for m in READER_MODES)}, not {value!r}")
            out[key] = READER_MODES[value]
            continue
        named = {"preset": Preset.parse, "strictness": check_strictness}.get(key)
        if named is not None and isinstance(value, str):
            try:
                named(value)
            except ConfigError as exc:
                raise ConfigError(f"{path}: {where}{raw_key}: {exc}") from None
        if key == "replicas" and isinstance(value, list):
            if not all(isinstance(url, str) for url in value):
                raise ConfigError(f"{path}: {where}{raw_key} must be a list of URLs")
            value = " ".join(value)
        types = _TYPES[key]
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            kind = " or ".join(t.__name__ for t in types)
            hint = ("; per-workspace options go in [workspaces.NAME] tables"
                    if key == "workspace" and isinstance(value, dict) else "")
            raise ConfigError(f"{path}: {where}{raw_key} must be {kind}, not {value!r}{hint}")
        if key == "llm_timeout" and isinstance(value, int | float):  # its type just checked
            positive_seconds(f"{path}: {where}{raw_key}", value)
        if _relative_file(key, value):  # a file named in the file: relative to the file
            value = str(path.parent / str(value))
        out[key] = float(value) if key == "llm_timeout" else value
    return out


def _relative_file(key: str, value: object) -> bool:
    """A relative path to a file: the calibration files, and a SQLite store (not a URL)."""
    if key not in ("calibration", "answer_confidence", "store") or not isinstance(value, str):
        return False
    if key == "store" and ("://" in value or value == ":memory:"):
        return False
    return not Path(value).expanduser().is_absolute() and not value.startswith("~")


def resolve(flags: Mapping[str, Any], *, config: str | None = None,
            environ: Mapping[str, str] | None = None, cwd: Path | None = None,
            flag_names: Mapping[str, str] | None = None) -> Resolved:
    """The effective options. ``flags`` holds only what was given on the command line;
    ``flag_names`` the flag that gave an option where it has several (``--db`` for store)."""
    env = os.environ if environ is None else environ
    path = config_path(config, env, cwd)
    top, overrides = load_file(path) if path is not None else ({}, {})
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for f in fields(AskOptions):
        key = f.name
        env_hit = next(((v, env[v]) for v in ENV_VARS.get(key, ()) if env.get(v)), None)
        if flags.get(key) is not None:
            flag = (flag_names or {}).get(key) or _FLAGS.get(key, key.replace("_", "-"))
            if key in _NEGATED and flags[key] is False:
                flag = f"no-{flag}"
            values[key], origins[key] = flags[key], f"flag --{flag}"
        elif env_hit is not None:
            values[key], origins[key] = env_hit[1], f"env {env_hit[0]}"
        elif key in top:
            values[key], origins[key] = top[key], str(path)
        else:
            origins[key] = "default"
    options = AskOptions(**values)
    resolved = Resolved(options, origins, path, overrides)
    if options.workspace in overrides:
        merged, merged_origins = resolved.for_workspace(options.workspace)
        merged_origins["workspace"] = origins["workspace"]
        resolved = Resolved(merged, merged_origins, path, overrides, base=(options, origins))
    return resolved
