"""One configuration: flags > environment > abstain.toml [workspaces.NAME] > file > default."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstain.cli.main import cli
from abstain.errors import ConfigError
from abstain.options import AskOptions, resolve
from tests.llm_support import KEYS_Q

TOML = """\
store = "kb.db"
preset = "strict"
llm-model = "llama3.2"
llm_timeout = 20

[workspaces.legal]
strictness = "paranoid"
preset = "lenient"
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "abstain.toml"
    path.write_text(TOML, encoding="utf-8")
    return path


def test_each_option_names_its_origin(config: Path) -> None:
    resolved = resolve({"strictness": "strict"}, config=str(config),
                       environ={"ABSTAIN_LLM_MODEL": "qwen"})
    assert resolved.options == AskOptions(store=str(config.parent / "kb.db"), preset="strict",
                                          llm_model="qwen", llm_timeout=20.0,
                                          strictness="strict")
    assert resolved.origins["store"] == str(config)
    assert resolved.origins["llm_model"] == "env ABSTAIN_LLM_MODEL"
    assert resolved.origins["strictness"] == "flag --strictness"
    assert resolved.origins["reader"] == "default"


@pytest.mark.parametrize(("store", "read"), [
    ("kb.db", "{here}/kb.db"), ("../kb.db", "{here}/../kb.db"), ("/srv/kb.db", "/srv/kb.db"),
    ("postgresql://kb@db/kb", "postgresql://kb@db/kb"), (":memory:", ":memory:")])
def test_a_store_named_in_the_file_is_relative_to_the_file(tmp_path: Path, store: str,
                                                           read: str) -> None:
    """As the calibration files are: the same file works from any folder (a newcomer's
    `--config ../abstain.toml` found no database at `../kb.db`)."""
    path = tmp_path / "cfg" / "abstain.toml"
    path.parent.mkdir()
    path.write_text(f"store = {store!r}\n", encoding="utf-8")
    resolved = resolve({}, config=str(path), environ={})
    assert resolved.options.store == read.format(here=path.parent)


def test_workspace_overrides_yield_to_flags(config: Path) -> None:
    resolved = resolve({"preset": "balanced"}, config=str(config), environ={})
    options, origins = resolved.for_workspace("legal")
    assert (options.workspace, options.preset, options.strictness) == \
        ("legal", "balanced", "paranoid")
    assert origins["strictness"] == f"{config} [workspaces.legal]"
    assert origins["preset"] == "flag --preset"
    other, _ = resolved.for_workspace("support")
    assert other.strictness == "balanced"


def test_a_workspaces_table_applies_to_that_workspace_only(tmp_path: Path) -> None:
    """Found by a newcomer: with [workspaces.default] (the asked workspace) in the file, a
    server gave every workspace default's overrides — its main pipeline and each other
    workspace's options started from the merged ones."""
    path = tmp_path / "abstain.toml"
    path.write_text('preset = "balanced"\n[workspaces.default]\npreset = "lenient"\n'
                    '[workspaces.legal]\nstrictness = "paranoid"\n', encoding="utf-8")
    resolved = resolve({}, config=str(path), environ={})
    assert resolved.options.preset == "lenient"  # asking in default (the CLI)
    assert resolved.shared.preset == "balanced"  # a server's main pipeline: no table
    legal, origins = resolved.for_workspace("legal")
    assert (legal.preset, legal.strictness) == ("balanced", "paranoid")
    assert origins["preset"] == str(path)
    assert resolved.for_workspace("hr")[0].preset == "balanced"
    assert resolved.for_workspace("default")[0].preset == "lenient"


def test_the_file_comes_from_the_environment_or_the_current_folder(config: Path) -> None:
    assert resolve({}, environ={"ABSTAIN_CONFIG": str(config)}).path == config
    assert resolve({}, environ={}, cwd=config.parent).path == config
    assert resolve({}, environ={}, cwd=config.parent / "elsewhere").path is None


@pytest.mark.parametrize(("text", "message"), [
    ("prest = 'strict'\n", "unknown option 'prest'"),
    ("reader = 'yes'\n", "reader must be true, false or one of 'veto', 'decides', 'off'"),
    ("reader = 1\n", "reader must be bool"),
    ("preset = 'wild'\n", "abstain.toml: preset: unknown preset 'wild'"),
    ("strictness = 'extreme'\n", "abstain.toml: strictness: unknown strictness 'extreme'"),
    ("[workspaces.a]\nstore = 'x.db'\n", "[workspaces.a] unknown option 'store'"),
    ("store = \n", "cannot read"),
    ('[workspaces."bad name"]\npreset = "strict"\n', "invalid workspace name 'bad name'"),
    ("[workspace.legal]\npreset = 'strict'\n", "go in [workspaces.NAME] tables"),
    ("llm_timeout = -5\n", "abstain.toml: llm_timeout must be > 0 seconds, not -5"),
    ("preset = 'strcit'\n", "each also with"),
])
def test_bad_files_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "abstain.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        resolve({}, config=str(path), environ={})


def test_config_show(config: Path) -> None:
    result = CliRunner().invoke(cli, ["config", "show", "--config", str(config),
                                      "--workspace", "legal", "--reader", "--json"],
                                env={"ABSTAIN_LLM_URL": "http://127.0.0.1:9/v1"})
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    options = shown["options"]
    assert options["strictness"] == {"value": "paranoid",
                                     "origin": f"{config} [workspaces.legal]"}
    assert options["reader"] == {"value": True, "origin": "flag --reader"}
    assert options["llm"] == {"value": "http://127.0.0.1:9/v1", "origin": "env ABSTAIN_LLM_URL"}
    assert options["workspace"]["origin"] == "flag --workspace"
    text = CliRunner().invoke(cli, ["config", "show", "--config", str(config)]).output
    assert re.search(r"^  preset +strict ", text, re.M) and "[workspaces.legal]" in text
    assert re.search(r"^  reader +veto ", text, re.M)  # the default: it reads and vetoes
    off = CliRunner().invoke(cli, ["config", "show", "--config", str(config), "--no-reader"])
    assert re.search(r"^  reader +off ", off.output, re.M) and "flag --no-reader" in off.output


@pytest.mark.parametrize(("text", "reader"), [
    ("reader = 'veto'\n", None), ("reader = 'decides'\n", True), ("reader = 'off'\n", False),
    ("reader = false\n", False)])
def test_the_file_names_the_reader_as_config_show_does(tmp_path: Path, text: str,
                                                       reader: bool | None) -> None:
    path = tmp_path / "abstain.toml"
    path.write_text(text, encoding="utf-8")
    assert resolve({}, config=str(path), environ={}).options.reader is reader


def test_config_show_names_the_flag_given(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["config", "show", "--db", str(tmp_path / "x.db"),
                                      "--preset", "strict+reader", "--json"])
    assert result.exit_code == 0, result.output
    options = json.loads(result.output)["options"]
    assert options["store"]["origin"] == "flag --db"
    assert options["preset"] == {"value": "strict+reader", "origin": "flag --preset"}
    text = CliRunner().invoke(cli, ["config", "show", "--db", str(tmp_path / "x.db")]).output
    rows = [line for line in text.splitlines() if line.startswith("  ") and "[" not in line]
    assert len({line.index(line.split()[1]) for line in rows}) == 1  # one column of values


def test_asking_an_llm_to_rewrite_or_rerank_needs_an_llm() -> None:
    with pytest.raises(ConfigError, match=r"^--rewrite needs an LLM to ask: add --llm URL"):
        AskOptions(rewrite=True)
    with pytest.raises(ConfigError, match=r"^--rewrite and --llm-rerank need an LLM"):
        AskOptions(rewrite=True, llm_rerank=True)
    assert AskOptions(llm_rerank=True, llm="local").llm_rerank


def test_ask_reads_the_file(tmp_path: Path, kb: Path) -> None:
    path = tmp_path / "abstain.toml"
    path.write_text(f'store = "{kb}"\npreset = "strict"\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["ask", KEYS_Q, "--json", "--config", str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["evidence"]


def test_every_store_command_uses_the_files_store(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a newcomer: in a folder with abstain.toml, `ask` used its store while `log
    on`, `docs list`, `ingest` … used the user data directory's. Flags and the environment
    still win."""
    monkeypatch.chdir(tmp_path)
    for name in ("ABSTAIN_DB", "ABSTAIN_STORE", "ABSTAIN_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "abstain.toml").write_text('store = "team.db"\n', encoding="utf-8")
    (tmp_path / "leave.md").write_text("# Leave\n\nEmployees get 28 days of paid leave.\n")
    runner = CliRunner()
    ingested = runner.invoke(cli, ["ingest", "leave.md", "--embedder", "hashing"])
    assert ingested.exit_code == 0, ingested.output
    assert (tmp_path / "team.db").exists()
    assert "leave.md" in runner.invoke(cli, ["docs", "list"]).output
    assert str(tmp_path / "team.db") in runner.invoke(cli, ["log", "on"]).output
    other = runner.invoke(cli, ["docs", "list", "--db", str(tmp_path / "other.db")])
    assert other.exit_code == 1 and "no database" in other.output  # the flag wins
