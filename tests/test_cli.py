from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from abstain.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        full = f"{prefix}{name}"
        out.append((full, command))
        if isinstance(command, click.Group):
            out += _commands(command, f"{full} ")
    return out


@pytest.mark.parametrize(("name", "command"), _commands(cli))
def test_every_command_has_help_and_is_documented(name: str, command: click.Command) -> None:
    assert command.help and len(command.help) > 20, name
    result = CliRunner().invoke(cli, [*name.split(), "--help"])
    assert result.exit_code == 0, result.output
    assert f"abstain {name}" in (ROOT / "docs" / "CLI.md").read_text(), name


def test_search_json_schema(sample_db: str) -> None:
    result = CliRunner().invoke(cli, ["search", "what does E1207 mean", "--db", sample_db,
                                      "--json", "-k", "3"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["question"] == "what does E1207 mean"
    assert len(payload["hits"]) == 3
    required = {"source", "title", "chunk_id", "parent_id", "text", "vector_rank",
                "vector_distance", "keyword_rank", "keyword_score", "fused_score", "in_both"}
    for hit in payload["hits"]:
        assert required <= set(hit)
        assert hit["vector_rank"] is None or hit["vector_rank"] >= 1
        assert hit["in_both"] == (hit["vector_rank"] is not None
                                  and hit["keyword_rank"] is not None)
    assert any("E1207" in h["text"] for h in payload["hits"])
    scores = [h["fused_score"] for h in payload["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_ask_json_schema_for_answer_and_refusal(sample_db: str) -> None:
    runner = CliRunner()
    ok = json.loads(runner.invoke(cli, ["ask", "Which port does the Quillstack client REST API "
                                        "listen on?", "--db", sample_db, "--json"]).output)
    assert set(ok) >= {"question", "answered", "answer", "refusal", "confidence",
                       "display_confidence", "triage", "citations", "checks", "llm_called",
                       "timings_ms"}
    assert ok["answered"] is True and ok["refusal"] is None and ok["llm_called"] is False
    assert {"n", "source", "chunk_id", "quote"} <= set(ok["citations"][0])
    assert {"name", "passed", "value", "threshold", "detail"} <= set(ok["checks"][0])
    no = json.loads(runner.invoke(cli, ["ask", "What does ADR-0050 decide?", "--db", sample_db,
                                        "--json"]).output)
    assert no["answered"] is False and no["answer"] is None
    assert no["refusal"]["reason"] == "unknown_entity"
    assert no["refusal"]["suggestions"]


def test_ask_debug_prints_every_check(sample_db: str) -> None:
    result = CliRunner().invoke(cli, ["ask", "What does ADR-0050 decide?", "--db", sample_db,
                                      "--debug"])
    assert result.exit_code == 0
    for name in ("evidence", "best_distance", "answer_gate", "term_coverage",
                 "entity_existence", "calibrated_confidence"):
        assert name in result.output
    assert "FAIL entity_existence" in result.output
    assert "threshold=" in result.output


def test_ingest_docs_list_and_rm(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "kb.db")
    (tmp_path / "a.md").write_text("# A\n\nalpha text here")
    (tmp_path / "bad.pdf").write_bytes(b"not a pdf")
    result = runner.invoke(cli, ["ingest", str(tmp_path / "a.md"), str(tmp_path / "bad.pdf"),
                                 "--db", db, "--embedder", "hashing", "-q"])
    assert result.exit_code == 0, result.output
    assert "1 added" in result.output and "1 skipped" in result.output
    listing = json.loads(runner.invoke(cli, ["docs", "list", "--db", db, "--json"]).output)
    assert [d["source"] for d in listing] == [str(tmp_path / "a.md")]
    # another workspace's empty listing names those that hold documents, as ask does
    other = runner.invoke(cli, ["docs", "list", "--db", db, "-w", "hrr"]).output
    assert "no documents in workspace 'hrr' (workspaces: default)" in other
    doc_id = listing[0]["id"]
    assert runner.invoke(cli, ["docs", "rm", doc_id, "--db", db]).exit_code == 0
    assert runner.invoke(cli, ["docs", "rm", doc_id, "--db", db]).exit_code == 1
    assert json.loads(runner.invoke(cli, ["docs", "list", "--db", db, "--json"]).output) == []


def test_errors_are_one_line_not_tracebacks(sample_db: str, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["ask", "Which port does replication use?", "--db", sample_db,
                                      "--workspace", "nope"])
    assert result.exit_code == 1
    assert "Error: workspace 'nope' has no documents" in result.output
    assert "Traceback" not in result.output
    (tmp_path / "junk.db").write_bytes(b"this is not a database" * 100)
    result = runner.invoke(cli, ["search", "x", "--db", str(tmp_path / "junk.db")])
    assert result.exit_code == 1 and "Error:" in result.output
    assert "Traceback" not in result.output
    # A flag out of range is refused by its own name (exit code 2, click's usage error) …
    result = runner.invoke(cli, ["search", "x", "--db", sample_db, "--candidates", "0"])
    assert result.exit_code == 2 and "Invalid value for '--candidates'" in result.output
    # … and a file a settings object rejects is a ConfigError: one line, exit code 1.
    junk = tmp_path / "cal.json"
    junk.write_text('{"not": "a calibration"}')
    result = runner.invoke(cli, ["ask", "x", "--db", sample_db, "--calibration", str(junk)])
    assert result.exit_code == 1 and result.output.startswith(
        f"Error: cannot read calibration file {junk}") and result.output.count("\n") == 1


def test_db_env_var_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha text here")
    monkeypatch.setenv("ABSTAIN_DB", str(tmp_path / "env.db"))
    result = CliRunner().invoke(cli, ["ingest", str(tmp_path / "a.md"), "--embedder",
                                      "hashing", "-q"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "env.db").exists()


def test_cli_reference_is_current() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_cli_docs",
                                                  ROOT / "scripts" / "gen_cli_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "CLI.md").read_text() == module.generate(), (
        "docs/CLI.md is stale: run python scripts/gen_cli_docs.py")


def test_python_dash_m_abstain_is_the_command() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "abstain", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("abstain, version")


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # starlette's multipart
def test_serve_says_when_its_store_does_not_exist(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A mistyped --db served an empty store without a word (a newcomer's find); the server
    may create it, since documents can be added through it, but says so."""
    pytest.importorskip("uvicorn")
    import abstain.server
    from abstain.stores.sqlite import SQLiteStore

    served: list[object] = []
    monkeypatch.setattr(abstain.server, "serve", lambda app, **kw: served.append(app))
    keys = tmp_path / "keys.db"
    typo = tmp_path / "typo.db"
    result = CliRunner().invoke(cli, ["serve", "--db", str(typo), "--keys", str(keys),
                                      "--port", "0"])
    assert result.exit_code == 0, result.output
    assert served and f"{typo} does not exist: serving a new, empty store" in result.output
    kb = tmp_path / "kb.db"
    SQLiteStore(kb).close()
    again = CliRunner().invoke(cli, ["serve", "--db", str(kb), "--keys", str(keys),
                                     "--port", "0"])
    assert again.exit_code == 0 and "does not exist" not in again.output
    as_url = CliRunner().invoke(cli, ["serve", "--store", f"sqlite:///{kb}", "--keys",
                                      str(keys), "--port", "0"])  # the same file (a review)
    assert as_url.exit_code == 0 and "does not exist" not in as_url.output


def test_a_refusal_on_the_topic_names_the_closest_passage(sample_db: str) -> None:
    """A newcomer found an on-topic refusal pointed nowhere; a made-up name has no
    closest passage to show."""
    runner = CliRunner()
    on_topic = runner.invoke(cli, ["ask", "Which port does the Quillstack web admin console "
                                          "listen on?", "--db", sample_db])
    assert on_topic.exit_code == 0 and "Refused (low_coverage" in on_topic.output
    assert "Closest passage: " in on_topic.output and "qa/network-ports.md" in on_topic.output
    made_up = runner.invoke(cli, ["ask", "What does ADR-0050 decide?", "--db", sample_db])
    assert "Refused (unknown_entity" in made_up.output
    assert "Closest passage" not in made_up.output


def test_a_question_that_starts_with_a_flag_is_shown_where_it_goes() -> None:
    """"abstain ask "-l vs -L?"" reads -l as an option of ask: the error says to put the
    question after '--'; other commands' unknown options keep click's message."""
    result = CliRunner().invoke(cli, ["ask", "-l vs -L in grep?"])
    assert result.exit_code == 2
    assert "No such option '-l'" in result.output
    assert "abstain ask --db kb.db -- \"-l …\"" in result.output
    other = CliRunner().invoke(cli, ["ingest", "--bogus"])
    assert other.exit_code == 2 and "goes last" not in other.output
