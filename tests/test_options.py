"""One configuration: flags > environment > abstain.toml [workspaces.NAME] > file > default."""

from __future__ import annotations

import json
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
    assert resolved.options == AskOptions(store="kb.db", preset="strict", llm_model="qwen",
                                          llm_timeout=20.0, strictness="strict")
    assert resolved.origins["store"] == str(config)
    assert resolved.origins["llm_model"] == "env ABSTAIN_LLM_MODEL"
    assert resolved.origins["strictness"] == "flag --strictness"
    assert resolved.origins["reader"] == "default"


def test_workspace_overrides_yield_to_flags(config: Path) -> None:
    resolved = resolve({"preset": "balanced"}, config=str(config), environ={})
    options, origins = resolved.for_workspace("legal")
    assert (options.workspace, options.preset, options.strictness) == \
        ("legal", "balanced", "paranoid")
    assert origins["strictness"] == f"{config} [workspaces.legal]"
    assert origins["preset"] == "flag --preset"
    other, _ = resolved.for_workspace("support")
    assert other.strictness == "balanced"


def test_the_file_comes_from_the_environment_or_the_current_folder(config: Path) -> None:
    assert resolve({}, environ={"ABSTAIN_CONFIG": str(config)}).path == config
    assert resolve({}, environ={}, cwd=config.parent).path == config
    assert resolve({}, environ={}, cwd=config.parent / "elsewhere").path is None


@pytest.mark.parametrize(("text", "message"), [
    ("prest = 'strict'\n", "unknown option 'prest'"),
    ("reader = 'yes'\n", "reader must be bool"),
    ("preset = 'wild'\n", "unknown preset 'wild'"),
    ("[workspaces.a]\nstore = 'x.db'\n", "[workspaces.a] unknown option 'store'"),
    ("store = \n", "cannot read"),
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
    assert "preset       strict" in text and "[workspaces.legal]" in text
    assert "reader       veto " in text  # the default: the reader reads and vetoes
    off = CliRunner().invoke(cli, ["config", "show", "--config", str(config), "--no-reader"])
    assert "reader       off " in off.output and "flag --no-reader" in off.output


def test_ask_reads_the_file(tmp_path: Path, kb: Path) -> None:
    path = tmp_path / "abstain.toml"
    path.write_text(f'store = "{kb}"\npreset = "strict"\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["ask", KEYS_Q, "--json", "--config", str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["evidence"]
