"""The tuning loop end to end: log on, ask, list, label, export, calibrate and eval from the log."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstain.answer_confidence import shipped_answer_confidence
from abstain.cli.main import cli
from abstain.embed import HashingEmbedder
from abstain.evaluate.data import read_jsonl
from abstain.pipeline import Pipeline
from abstain.querylog import open_log, question_hash
from abstain.stores.sqlite import SQLiteStore

QUESTIONS = Path(__file__).parent / "data" / "sample_questions.jsonl"


@pytest.fixture
def db(tmp_path: Path) -> str:
    from tests.conftest import SAMPLE_CORPUS

    path = tmp_path / "kb.db"
    with Pipeline(SQLiteStore(path), HashingEmbedder()) as pipe:
        pipe.ingest([SAMPLE_CORPUS])
    return str(path)


def _run(*args: str, ok: bool = True) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert (result.exit_code == 0) is ok, result.output
    return result.output


def _entries(db: str, *extra: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = json.loads(_run("log", "list", "--db", db, "--json",
                                                    "-n", "1000", *extra))
    return rows


def test_the_log_is_off_by_default(db: str) -> None:
    _run("ask", "What is the default value of storage.cache_mb?", "--db", db)
    assert _entries(db) == []
    assert "query log off" in _run("log", "status", "--db", db)


def test_the_tuning_loop_end_to_end(db: str, tmp_path: Path) -> None:
    assert f"query log on for {db} (kept 30 days, questions in clear)" in _run(
        "log", "on", "--db", db, "--retention-days", "30")  # the store named (newcomer)
    # a mistyped store is an error, not a new empty store whose log is on
    assert "there is no database" in _run("log", "on", "--db", db + ".typo", ok=False)
    assert not Path(db + ".typo").exists()
    questions = read_jsonl(QUESTIONS).questions
    # two questions through the CLI, the rest through the library: both are logged
    for item in questions[:2]:
        _run("ask", item.question, "--db", db)
    with Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe:
        for item in questions[2:]:
            notes = pipe.ask(item.question).notes
            assert not [n for n in notes if n.startswith("query log")]  # recorded
    entries = _entries(db)
    assert len(entries) == len(questions) == 60
    newest = entries[0]
    assert newest["question"] == questions[-1].question and newest["workspace"] == "default"
    assert {c["name"] for c in newest["checks"]} >= {"evidence", "answer_gate"}  # type: ignore[union-attr]
    assert all("threshold" in c and "value" in c for c in newest["checks"])  # type: ignore[union-attr]
    assert set(newest["features"]) == {"top_fused_norm", "in_both", "best_cosine",  # type: ignore[arg-type]
                                       "term_coverage"}
    refused = _entries(db, "--refused")
    answered = _entries(db, "--answered")
    assert len(refused) + len(answered) == 60 and refused and answered
    assert all(not e["answered"] and e["reason"] for e in refused)
    assert all(e["cited_sources"] for e in answered)
    assert _entries(db, "--since", "2999-01-01") == []

    shown = _run("log", "show", str(refused[0]["id"]), "--db", db)
    assert f"refused ({refused[0]['reason']})" in shown and "threshold" in shown

    # label every entry as the labelled file says (the reviewer's judgement)
    by_question = {q.question: q for q in questions}
    ids = {"answer": [], "refuse": []}  # type: dict[str, list[str]]
    for e in entries:
        ids[by_question[str(e["question"])].expected].append(str(e["id"]))
    for expected, chosen in ids.items():
        out = _run("log", "label", *chosen, "--expected", expected, "--db", db)
        assert out.count("labelled") == len(chosen)
    assert _entries(db, "--unlabelled") == []
    listing = _run("log", "list", "--db", db, "-n", "1000")
    assert "✓" in listing and "✗" in listing  # the gate's misses are marked

    exported = tmp_path / "traffic.jsonl"
    _run("log", "export", "--labelled", "--db", db, "-o", str(exported))
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert [(x["question"], x["expected"]) for x in lines] == [
        (q.question, q.expected) for q in questions]
    assert len(read_jsonl(exported).questions) == 60  # the `abstain eval` format

    cal = tmp_path / "cal.json"
    # 60 labels do not beat the shipped calibration on this corpus: written only when forced
    out = _run("calibrate", "--from-log", "--db", db, "-o", str(cal), ok=False)
    assert "worse than the current calibration (seed) on the same 60" in out
    assert not cal.exists()
    out = _run("calibrate", "--from-log", "--db", db, "-o", str(cal), "--force")
    assert "fit on 60 questions (30 answerable)" in out and "(written: --force)" in out
    fitted = json.loads(cal.read_text())
    assert fitted["fit_on"]["source"] == "query log (default)"
    # the same refusal to certify on too little data as with a labelled file
    out = _run("calibrate", "--from-log", "--db", db, "-o", str(tmp_path / "no.json"),
               "--max-false-accept", "0.01", ok=False)
    assert "cannot certify" in out and not (tmp_path / "no.json").exists()

    summary = json.loads(_run("eval", "--from-log", "--db", db, "--json"))
    assert summary["n"] == 60 and summary["counts_by_category"] == {"answerable": 30,
                                                                   "refuse": 30}
    # a newcomer's: --preset / --calibration changed nothing of a --from-log run, silently
    out = _run("eval", "--from-log", "--db", db, "--calibration", str(cal), ok=False)
    assert "cannot change a --from-log run" in out and "abstain calibrate" in out
    # the harness never logs its own questions
    assert len(_entries(db)) == 60


def test_a_refit_from_26_labelled_entries_worse_than_the_shipped_one_is_refused(
        db: str, tmp_path: Path) -> None:
    _run("log", "on", "--db", db)
    chosen = read_jsonl(QUESTIONS).questions[::2][:26]
    with Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe:
        for item in chosen:
            pipe.ask(item.question)
        qlog = open_log(pipe.store)
        by_question = {q.question: q.expected for q in chosen}
        for e in qlog.entries("default"):
            qlog.label("default", e.id, by_question[str(e.question)])
    cal = tmp_path / "cal.json"
    out = _run("calibrate", "--from-log", "--db", db, "-o", str(cal), ok=False)
    assert ("the new fit is worse than the current calibration (seed) on the same 26 "
            "labelled questions: cross-validated AUROC") in out
    assert "labelled questions (" in out and "more, at least 10 of each label" in out
    assert "no file was written" in out and not cal.exists()


def test_log_plot_draws_the_two_histograms(db: str, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    _run("log", "on", "--db", db)
    with Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe:
        for item in read_jsonl(QUESTIONS).questions[:20]:
            pipe.ask(item.question)
        qlog = open_log(pipe.store)
        for e in qlog.entries("default"):
            qlog.label("default", e.id, "answer" if e.answered else "refuse")
    png = tmp_path / "hist.png"
    out = _run("log", "plot", "--db", db, "-o", str(png))
    assert f"wrote {png} (20 labelled questions" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_redacted_log_keeps_only_a_hash(db: str, tmp_path: Path) -> None:
    _run("log", "on", "--db", db, "--redact")
    question = "What is the default value of storage.cache_mb?"
    _run("ask", question, "--db", db)
    [entry] = _entries(db)
    assert entry["question"] is None and entry["answer"] is None
    assert entry["question_hash"] == question_hash(question)
    _run("log", "label", str(entry["id"]), "--expected", "answer", "--db", db)
    result = CliRunner().invoke(cli, ["log", "export", "--labelled", "--db", db])
    assert result.stdout == "" and "skipped 1 redacted" in result.stderr
    bare = CliRunner().invoke(cli, ["log", "export", "--db", db])  # labelled is the only way
    assert bare.exit_code == 0 and "skipped 1 redacted" in bare.stderr
    missing = CliRunner().invoke(cli, ["log", "label", "999", "--expected", "answer",
                                       "--db", db])
    assert missing.exit_code == 1 and "Error: no log entry 999" in missing.stderr
    # all or nothing: with one unknown id, the known one is not labelled either (newcomer)
    both = CliRunner().invoke(cli, ["log", "label", str(entry["id"]), "999", "--expected",
                                    "refuse", "--db", db])
    assert both.exit_code == 1 and "nothing was labelled" in both.stderr
    assert _entries(db)[0]["expected"] == "answer"


def test_workspaces_keep_their_own_log(db: str) -> None:
    _run("log", "on", "--db", db)
    with Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe:
        pipe.ingest_text("# Cache\n\nThe default value of storage.cache_mb is 256.",
                         source="cache.md", workspace="other")
    _run("ask", "What is the default value of storage.cache_mb?", "--db", db)
    _run("ask", "What is the default value of storage.cache_mb?", "--db", db, "-w", "other")
    [mine] = _entries(db)
    [theirs] = _entries(db, "-w", "other")
    assert theirs["workspace"] == "other" and mine["id"] != theirs["id"]
    _run("log", "show", str(theirs["id"]), "--db", db, ok=False)
    _run("log", "label", str(theirs["id"]), "--expected", "answer", "--db", db, ok=False)


def test_a_log_failure_never_breaks_the_answer_but_is_visible(
        db: str, caplog: pytest.LogCaptureFixture) -> None:
    _run("log", "on", "--db", db)
    with sqlite3.connect(db) as conn:  # a broken log table: the write must fail
        conn.execute("DROP TABLE query_log")
    with (caplog.at_level(logging.WARNING, logger="abstain.querylog"),
          Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe):
        answer = pipe.ask("What is the default value of storage.cache_mb?")
    assert answer.answered
    assert any(n.startswith("query log: not recorded (StoreError") or
               n.startswith("query log: not recorded (OperationalError") for n in answer.notes)
    assert "could not record the question" in caplog.text


def _log_labelled(db: str, questions: list[object], wrong_every: int = 0) -> None:
    """Ask ``questions`` with the log on and label each as the labelled file says; with
    ``wrong_every`` n, every n-th answer given is judged wrong (labelled ``refuse``)."""
    _run("log", "on", "--db", db)
    with Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe:
        for item in questions:
            pipe.ask(item.question)  # type: ignore[attr-defined]
        qlog = open_log(pipe.store)
        by_question = {q.question: q.expected for q in questions}  # type: ignore[attr-defined]
        answers = 0
        for e in qlog.entries("default"):
            answers += e.answered
            wrong = e.answered and wrong_every and answers % wrong_every == 0
            qlog.label("default", e.id, "refuse" if wrong else by_question[str(e.question)])


def test_the_answer_confidence_is_refitted_from_the_log_only_when_better(
        db: str, tmp_path: Path) -> None:
    """60 labelled entries: the refit states P(right) more honestly on them than the shipped
    model (which was fitted on other collections), so it is written and `ask` decides on
    it. 26 entries of another log: worse than that model on the same questions, refused
    with the reason and how many labels would help."""
    questions = read_jsonl(QUESTIONS).questions
    _log_labelled(db, list(questions))
    model = tmp_path / "answer.json"
    out = _run("calibrate", "--from-log", "--db", db, "--target", "answer-confidence",
               "--refit", "all", "-o", str(model))
    assert "fit on 60 questions (30 right if answered)" in out
    assert ("the new fit is at least as good as the current answer confidence "
            "(answer-confidence) on the same 60 labelled questions") in out
    fitted = json.loads(model.read_text())
    assert fitted["name"] == "fit:query log (default)"
    assert fitted["threshold"] == shipped_answer_confidence().threshold  # kept from it
    compared = fitted["report"]["metrics"]["compared_with_current"]
    assert compared["kind"] == "answer confidence" and not compared["worse"]
    assert compared["new"]["ece"] < compared["current_scores"]["ece"]

    # `abstain ask` loads it: the confidence check names it and decides at its threshold
    shown = json.loads(_run("ask", "What is the default value of storage.cache_mb?",
                            "--db", db, "--answer-confidence", str(model), "--json"))
    check = next(c for c in shown["checks"] if c["name"] == "calibrated_confidence")
    assert check["detail"].startswith("P(right) from fit:query log (default)")
    assert check["threshold"] == fitted["threshold"]

    other = str(tmp_path / "other.db")
    with Pipeline(SQLiteStore(other), HashingEmbedder()) as pipe:
        from tests.conftest import SAMPLE_CORPUS

        pipe.ingest([SAMPLE_CORPUS])
    _log_labelled(other, list(questions[::2][:26]))
    refit = tmp_path / "refit.json"
    out = _run("calibrate", "--from-log", "--db", other, "--target", "answer-confidence",
               "--refit", "all", "--answer-confidence", str(model), "-o", str(refit), ok=False)
    assert ("the new fit is worse than the current answer confidence (fit:query log "
            "(default)) on the same 26 labelled questions: cross-validated AUROC") in out
    assert "more, at least 10 of each label per coefficient" in out
    assert "no file was written" in out and not refit.exists()
    out = _run("calibrate", "--from-log", "--db", other, "--target", "answer-confidence",
               "--refit", "all", "--answer-confidence", str(model), "-o", str(refit),
               "--force")
    assert "(written: --force)" in out and refit.exists()


def test_few_labelled_log_entries_shift_the_answer_confidence_only_when_better(
        db: str, tmp_path: Path) -> None:
    """60 labelled entries hold 30 right answers, fewer than the 80 a refit of every
    coefficient needs: `calibrate` fits one offset of the shipped model's intercept on the
    22 entries every other check passes, the reader's included (all right, where the shipped
    model, fitted on other collections, states far less), writes it as a shift of that model,
    and `ask` decides on it. Another log whose reviewer judged every second answer wrong: the
    shipped model's P(right) for those answers is about their share of right ones already, so
    an offset (each fold's fitted on the others) states them no better: refused, as it would
    change which questions are answered for nothing."""
    shipped = shipped_answer_confidence()
    questions = read_jsonl(QUESTIONS).questions
    _log_labelled(db, list(questions))
    model = tmp_path / "shift.json"
    out = _run("calibrate", "--from-log", "--db", db, "--target", "answer-confidence",
               "-o", str(model))
    assert ("on the intercept of answer-confidence, fitted on the 22 of 60 labelled "
            "questions every other gate check passes (22 right if answered)") in out
    assert ("--refit auto: an offset of the intercept only, not every coefficient: a stable "
            "refit of every coefficient needs about 160 labelled questions") in out
    assert ("the offset is better than the current answer confidence (answer-confidence) on "
            "the same 60 labelled questions as the pipeline states them") in out
    written = json.loads(model.read_text())
    report = written["report"]
    assert written["name"] == "shift:query log (default)" and report["refit"] == "offset"
    offset = report["shift_of"]["offset"]
    assert report["shift_of"]["model"] == shipped.name and offset > 1.0
    assert written["intercept"] == pytest.approx(shipped.intercept + offset, abs=1e-5)
    assert written["coefficients"] == shipped.coefficients  # the ranking is the shipped one
    assert written["threshold"] == shipped.threshold  # kept: no --max-false-accept
    assert report["fit_on"]["questions"] == 60 and report["fit_on"]["right"] == 30
    assert report["fit_on"]["decided_by_confidence"] == 22
    compared = report["metrics"]["compared_with_current"]
    assert not compared["worse"] and compared["new"]["ece"] < compared["current_scores"]["ece"]

    # `abstain ask` loads it and states more than the shipped model for the same answer
    question = "What is the default value of storage.cache_mb?"
    shown = json.loads(_run("ask", question, "--db", db, "--answer-confidence", str(model),
                            "--json"))
    before = json.loads(_run("ask", question, "--db", db, "--json"))
    check = next(c for c in shown["checks"] if c["name"] == "calibrated_confidence")
    assert check["detail"].startswith("P(right) from shift:query log (default)")
    assert shown["answered"] and shown["confidence"] > before["confidence"]

    other = str(tmp_path / "other.db")
    with Pipeline(SQLiteStore(other), HashingEmbedder()) as pipe:
        from tests.conftest import SAMPLE_CORPUS

        pipe.ingest([SAMPLE_CORPUS])
    _log_labelled(other, list(questions), wrong_every=2)
    again = tmp_path / "again.json"
    out = _run("calibrate", "--from-log", "--db", other, "--target", "answer-confidence",
               "-o", str(again), ok=False)
    assert "fitted on the 22 of 60 labelled questions every other gate check passes (11 " in out
    assert ("the offset is no better than the current answer confidence (answer-confidence) "
            "on the same 60 labelled questions as the pipeline states them: cross-validated "
            "AUROC") in out
    assert "so it must lower ECE by 0.02 or more" in out
    assert "it is not short of labels: the current answer confidence already states" in out
    assert "no file was written" in out
    assert not again.exists()
    _run("calibrate", "--from-log", "--db", other, "--target", "answer-confidence",
         "--refit", "offset", "-o", str(again), "--force")
    assert json.loads(again.read_text())["report"]["metrics"]["compared_with_current"]["worse"]


def test_refit_is_an_answer_confidence_option(db: str, tmp_path: Path) -> None:
    out = _run("calibrate", str(QUESTIONS), "--db", db, "--refit", "offset",
               "-o", str(tmp_path / "c.json"), ok=False)
    assert "--refit chooses how the answer confidence is refitted" in out


def test_labelling_again_keeps_the_note_and_gold_sources_not_given(db: str) -> None:
    """Bulk relabelling erased an entry's gold source and note (found by a newcomer)."""
    _run("log", "on", "--db", db)
    _run("ask", "What is the default value of storage.cache_mb?", "--db", db)
    [entry] = _entries(db)
    eid = str(entry["id"])
    _run("log", "label", eid, "--expected", "answer", "--gold-source",
         "reference/configuration.md", "--note", "cache section", "--db", db)
    _run("log", "label", eid, "--expected", "answer", "--db", db)
    [entry] = _entries(db)
    assert (entry["note"], entry["gold_sources"]) == ("cache section",
                                                      ["reference/configuration.md"])
    _run("log", "label", eid, "--expected", "refuse", "--note", "", "--db", db)
    [entry] = _entries(db)
    assert (entry["expected"], entry["note"]) == ("refuse", "")


def test_refused_and_answered_together_are_an_error(db: str) -> None:
    _run("log", "on", "--db", db)
    _run("ask", "What is the default value of storage.cache_mb?", "--db", db)
    assert len(_entries(db, "--answered")) == 1 and _entries(db, "--refused") == []
    out = _run("log", "list", "--refused", "--answered", "--db", db, ok=False)
    assert "--refused and --answered together list nothing" in out
