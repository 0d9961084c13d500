"""Read replicas from the command line, the environment and abstain.toml (the replicas
themselves, and their fallbacks in the audit trail: tests/stores/test_replicas.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstain.cli.main import cli
from abstain.config import Settings
from abstain.errors import ConfigError
from abstain.options import resolve
from abstain.stores import open_store

R1 = "postgresql://app@replica1/kb"
R2 = "postgresql://app@replica2/kb"


def _shown(args: list[str], env: dict[str, str] | None = None) -> dict[str, str]:
    result = CliRunner().invoke(cli, ["config", "show", "--json", *args], env=env)
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.output)["options"]["replicas"])


def test_replica_flags_repeat_and_win_over_the_environment() -> None:
    assert _shown(["--replica", R1, "--replica", R2], env={"ABSTAIN_REPLICAS": "x"}) == {
        "value": f"{R1} {R2}", "origin": "flag --replica"}
    assert _shown([], env={"ABSTAIN_REPLICAS": f"{R1} {R2}"}) == {
        "value": f"{R1} {R2}", "origin": "env ABSTAIN_REPLICAS"}
    assert _shown([], env={"ABSTAIN_REPLICAS": ""}) == {"value": None, "origin": "default"}


def test_abstain_toml_takes_replicas_as_a_list_or_a_string(tmp_path: Path) -> None:
    path = tmp_path / "abstain.toml"
    path.write_text(f'store = "postgresql://app@primary/kb"\nreplicas = ["{R1}", "{R2}"]\n')
    options = resolve({}, config=str(path), environ={}).options
    assert options.settings({}).replicas == (R1, R2)
    path.write_text(f'replicas = "{R1}"\n')
    assert resolve({}, config=str(path), environ={}).options.settings({}).replicas == (R1,)
    path.write_text("replicas = [1, 2]\n")
    with pytest.raises(ConfigError, match="replicas must be a list of URLs"):
        resolve({}, config=str(path), environ={})


def test_settings_read_replicas_from_the_environment() -> None:
    assert Settings.from_env({"ABSTAIN_REPLICAS": f" {R1}\n{R2} "}).replicas == (R1, R2)
    assert Settings.from_env({}).replicas == ()


def test_replicas_of_a_sqlite_database_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="need a postgresql:// store"):
        open_store(str(tmp_path / "kb.db"), replicas=[R1])
    assert not (tmp_path / "kb.db").exists()
    result = CliRunner().invoke(cli, ["ask", "Who?", "--db", str(tmp_path / "kb.db"),
                                      "--replica", R1])
    assert result.exit_code == 1
    assert "Error: read replicas (--replica, ABSTAIN_REPLICAS) need a postgresql:// store" \
        in result.output
    assert "Traceback" not in result.output
