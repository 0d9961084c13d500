"""`abstain eval`: the JSONL format, the loaders' protocols, the run and its report."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstain.cli.main import cli
from abstain.embed import HashingEmbedder
from abstain.evaluate.baselines import BASELINES
from abstain.evaluate.data import LabelledQuestion, read_jsonl, select, split_groups
from abstain.evaluate.loaders import load_rgb, load_scifact, load_squad2
from abstain.evaluate.records import load_records, unmarked
from abstain.evaluate.report import summarize, sweep
from abstain.evaluate.runner import run_questions
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore

QUESTIONS = Path(__file__).parent / "data" / "sample_questions.jsonl"


@pytest.fixture(scope="module")
def hashing_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The sample corpus with the deterministic hashing embedder (fast, offline)."""
    from tests.conftest import ingest_sample_hashing

    return ingest_sample_hashing(tmp_path_factory.mktemp("eval"))


@pytest.fixture(scope="module")
def records_file(hashing_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("records") / "run.jsonl"
    result = CliRunner().invoke(cli, ["eval", str(QUESTIONS), "--db", hashing_db, "-q",
                                      "--save-records", str(out), "--json"])
    assert result.exit_code == 0, result.output
    yield out


def test_malformed_lines_are_reported_by_number_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join([
        json.dumps({"question": "What is the default port?", "expected": "answer"}),
        "{not json",
        json.dumps({"expected": "answer"}),
        "",
        json.dumps({"question": "Who won?", "expected": "maybe"}),
        json.dumps(["a list"]),
        json.dumps({"question": "What does ADR-0050 decide?", "expected": "refuse",
                    "category": "near_miss", "gold_sources": "adr/x.md"}),
        # the category alone says what is expected; neither says nothing
        json.dumps({"question": "Which port?", "category": "Answerable"}),
        json.dumps({"question": "Who is Priya?", "category": "unknown_entity"}),
        json.dumps({"question": "Which port again?"}),
    ]) + "\n")
    labelled = read_jsonl(path)
    assert [q.line for q in labelled.questions] == [1, 7, 8, 9]
    assert labelled.questions[0].category == "answerable"
    assert labelled.questions[1].gold_sources == ("adr/x.md",)
    assert [q.expected for q in labelled.questions[2:]] == ["answer", "refuse"]
    assert [(p.line, p.message.split(" (")[0]) for p in labelled.problems] == [
        (2, "not valid JSON"),
        (3, "'question' must be a non-empty string"),
        (5, "'expected' must be 'answer' or 'refuse', got 'maybe'"),
        (6, "expected a JSON object"),
        (10, "'expected' is missing: give \"expected\": \"answer\" or \"refuse\""),
    ]


def test_cli_reports_bad_lines_and_goes_on(hashing_db: str, tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    good = QUESTIONS.read_text().splitlines()[:3]
    path.write_text("\n".join([good[0], "oops", good[1], '{"question": 1}', good[2]]) + "\n")
    result = CliRunner().invoke(cli, ["eval", str(path), "--db", hashing_db, "-q", "--json"])
    assert result.exit_code == 0, result.output
    assert "line 2: not valid JSON" in result.stderr
    assert "line 4: 'question' must be a non-empty string" in result.stderr
    payload = json.loads(result.stdout)
    assert payload["n"] == 3
    assert [p["line"] for p in payload["problems"]] == [2, 4]


def test_eval_json_has_the_headline_metrics_and_the_seeds(records_file: Path) -> None:
    records = load_records(records_file)
    assert len(records) == 60 and not any(r.error for r in records)
    summary = summarize(records)
    for key in ("auroc", "ece", "aurc", "answer_rate", "false_acceptance",
                "false_acceptance_by_category", "reliability", "risk_coverage", "retrieval"):
        assert key in summary
    assert set(summary["baselines"]) == {b.name for b in BASELINES} - {"abstain"}
    assert set(summary["false_acceptance_by_category"]) == {
        "near_miss", "off_topic", "off_topic_multilingual"}
    assert summary["retrieval"]["questions"] == 30
    assert 0 < summary["retrieval"]["hybrid"]["recall@5"] <= 1
    assert 0.5 < summary["auroc"] <= 1


def test_every_signal_is_recorded(records_file: Path) -> None:
    records = load_records(records_file)
    answered = next(r for r in records if r.answered)
    assert set(answered.features) == {"top_fused_norm", "in_both", "best_cosine",
                                      "term_coverage", "answerability", "answer_read",
                                      "quote_agree"}
    names = [c.name for c in answered.checks]
    assert names[:4] == ["evidence", "entity_existence", "best_distance", "answer_gate"]
    assert "calibrated_confidence" in names
    assert answered.chunks and answered.chunks[0].fused_score > 0
    assert all(0 <= c.confidence <= 100 for c in answered.chunks)
    assert answered.rankings.keys() == {"vector", "keyword", "hybrid"}
    assert answered.cited_sources


def test_saved_records_rescore_without_asking(records_file: Path) -> None:
    result = CliRunner().invoke(cli, ["eval", "--records", str(records_file), "--json"])
    assert result.exit_code == 0, result.output
    again = json.loads(result.stdout)
    assert again["auroc"] == summarize(load_records(records_file))["auroc"]


def test_sweep_table(records_file: Path) -> None:
    records = load_records(records_file)
    direction, rows = sweep(records, "best_distance", at=[0.0, 2.0])
    assert direction == "<="
    assert rows[0].answered == 0 and rows[0].missed == 30 and rows[0].hallucinated == 0
    # a question whose check had no value (no chunk survived the filter) is refused
    with_value = sum(1 for r in records if not r.should_answer
                     and r.signal("best_distance") is not None)
    assert rows[1].hallucinated == with_value
    result = CliRunner().invoke(cli, ["eval", "--records", str(records_file),
                                      "--sweep", "seed000", "--at", "30,40,50"])
    assert result.exit_code == 0, result.output
    assert "sweep of seed000" in result.output and "hallucinated" in result.output
    bad = CliRunner().invoke(cli, ["eval", "--records", str(records_file), "--sweep", "nope"])
    assert bad.exit_code == 1 and "choose from" in bad.output


def test_readable_table(records_file: Path) -> None:
    result = CliRunner().invoke(cli, ["eval", "--records", str(records_file)])
    assert result.exit_code == 0, result.output
    for text in ("AUROC", "seed000", "seed003", "reliability", "nDCG@10", "near_miss"):
        assert text in result.output


def test_plots_are_written(records_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    result = CliRunner().invoke(cli, ["eval", "--records", str(records_file), "--plots",
                                      str(tmp_path / "plots")])
    assert result.exit_code == 0, result.output
    for name in ("reliability.png", "risk_coverage.png", "scores.png", "histogram.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:4] == b"\x89PNG"


def test_report_does_not_score_wrong_answers_as_correct(hashing_db: str,
                                                        tmp_path: Path) -> None:
    """Three confident answers, two of them wrong: one cites the wrong document, one lacks
    the gold answer. Correct = cites a gold source AND contains the gold answer."""
    question = "What is the default value of storage.cache_mb?"
    with Pipeline(SQLiteStore(hashing_db), HashingEmbedder()) as pipe:
        answer = pipe.ask(question)
    assert answer.answered and answer.citations
    cited = answer.citations[0].source.split("sample_corpus/")[-1]
    uncited = next(s for s in ("guides/clustering.md", "qa/network-ports.md")
                   if all(not c.source.endswith(s) for c in answer.citations))
    said = " ".join(answer.text.split()[:4])
    rows = [
        {"question": question, "expected": "answer", "gold_sources": [cited],
         "gold_answer": said.upper()},
        {"question": question, "expected": "answer", "gold_sources": [uncited]},
        {"question": question, "expected": "answer", "gold_sources": [cited],
         "gold_answer": "4096 MiB"},
    ]
    data = tmp_path / "wrong.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(cli, ["eval", str(data), "--db", hashing_db, "-q"])
    assert result.exit_code == 0, result.output
    assert "answered correctly: 1 of 3 judged answers (0.333); wrong answers: 2" in result.output
    assert result.output.count(f"  wrong: {question}") == 2
    assert f"gold {uncited}" in result.output
    assert "gold answer '4096 MiB'" in result.output
    summary = json.loads(CliRunner().invoke(cli, ["eval", str(data), "--db", hashing_db, "-q",
                                                  "--json"]).stdout)
    assert summary["answer_rate"] == 1.0 and summary["answered_correct"] == pytest.approx(1 / 3)
    assert summary["correctness"] == {"answered_answerable": 3, "judged": 3, "correct": 1,
                                      "wrong": 2}
    assert [w["gold_sources"] for w in summary["wrong_answers"]] == [[uncited], [cited]]


def test_answer_keys_judge_answers_and_give_precision_and_recall(hashing_db: str,
                                                                 tmp_path: Path) -> None:
    """With answer_keys an answer is right when it cites a gold source and holds one key;
    precision counts every answer given (a refused-category question answered is not right),
    recall every answerable question."""
    question = "What is the default value of storage.cache_mb?"
    with Pipeline(SQLiteStore(hashing_db), HashingEmbedder()) as pipe:
        answer = pipe.ask(question)
    assert answer.answered and answer.citations
    cited = answer.citations[0].source.split("sample_corpus/")[-1]
    word = next(w for w in answer.text.split() if len(w) > 4 and w.isalpha())
    rows = [
        {"question": question, "expected": "answer", "gold_sources": [cited],
         "gold_answer": "not in the answer", "answer_keys": ["zzz-absent", word.upper()]},
        {"question": question, "expected": "answer", "gold_sources": [cited],
         "answer_keys": ["zzz-absent"]},
        {"question": question, "expected": "refuse", "category": "near_miss"},
        {"question": "zzqx vvbn?", "expected": "answer", "gold_sources": [cited],
         "answer_keys": [word]},
    ]
    data = tmp_path / "keys.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = json.loads(CliRunner().invoke(cli, ["eval", str(data), "--db", hashing_db, "-q",
                                                  "--json"]).stdout)
    answered = summary["answers_given"]
    assert answered >= 3  # the first three are the same answered question
    assert summary["right_answers"] == 1
    assert summary["answer_precision"] == pytest.approx(1 / answered)
    assert summary["right_answer_recall"] == pytest.approx(1 / 3)
    assert summary["wrong_answers"][0]["answer_keys"] == ["zzz-absent"]


def test_answer_keys_match_folded_with_punctuation_kept() -> None:
    from abstain.evaluate.records import contains_key

    assert contains_key("Use  `--PK id` [1] to set it.", "--pk id")
    assert contains_key("It is in table.last_pk [2]", "last_pk")
    assert not contains_key("It is in table.last pk", "last_pk")
    assert not contains_key("anything", "  ")
    assert contains_key("Run it with test(/skip[12]/) [1]", "test(/skip[12]/)")  # a key with [n]


def test_contains_answer_normalises() -> None:
    from abstain.evaluate.records import contains_answer

    assert contains_answer("The default is 512 MiB. [1]", "512 mib")
    assert contains_answer("Set it to « Café-Mode » [2]", "cafe mode")
    assert not contains_answer("The default is 5120 MiB.", "512")
    assert not contains_answer("anything", "")


def test_run_questions_records_a_failing_question(hashing_db: str) -> None:
    with Pipeline(SQLiteStore(hashing_db), HashingEmbedder(), workspace="nowhere") as pipe:
        records = run_questions(pipe, [LabelledQuestion("Which port?", "refuse", "off_topic")])
    assert records[0].error is not None and records[0].reason == "error"
    assert not records[0].answered


def test_select_and_split() -> None:
    qs = [LabelledQuestion(f"q{i}", "answer" if i % 3 else "refuse",
                           "a" if i % 3 else "r", group=f"g{i // 4}") for i in range(60)]
    assert select(qs, 5) == tuple(qs[:5])
    sampled = select(qs, 12, sample=True, seed=1)
    assert len(sampled) == 12 and {q.category for q in sampled} == {"a", "r"}
    fit, hold = split_groups(qs, 0.5, seed=0)
    assert sorted(fit + hold) == list(range(60))
    assert not {qs[i].group for i in fit} & {qs[i].group for i in hold}


def _write_squad(root: Path) -> None:
    def para(ctx: str, qas: list[tuple[str, bool]]) -> dict[str, object]:
        return {"context": ctx, "qas": [
            {"id": q, "question": q, "is_impossible": imp,
             "answers": [] if imp else [{"text": "x", "answer_start": 0}]} for q, imp in qas]}

    data = {"version": "v2.0", "data": [
        {"title": "Even_A", "paragraphs": [para("A1", [("a-ok", False), ("a-no", True)]),
                                           para("A2", [("a2-ok", False)])]},
        {"title": "Odd_B", "paragraphs": [para("B1", [("b-ok", False), ("b-no", True)])]},
        {"title": "Even_C", "paragraphs": [para("C1", [("c-no", True)])]},
    ]}
    (root / "squad2-dev-half").mkdir()
    with gzip.open(root / "squad2-dev-half" / "dev-v2.0.json.gz", "wt") as fh:
        json.dump(data, fh)


def test_squad_loader_follows_the_gate_protocol(tmp_path: Path) -> None:
    _write_squad(tmp_path)
    ds = load_squad2(tmp_path)
    assert [d.source for d in ds.collection] == [
        "squad2/Even_A/000", "squad2/Even_A/001", "squad2/Even_C/000"]
    by_q = {q.question: q for q in ds.questions}
    assert set(by_q) == {"a-ok", "a-no", "a2-ok", "b-ok", "c-no"}  # odd unanswerable dropped
    assert by_q["a-ok"].category == "answerable" and by_q["a-ok"].gold_sources == (
        "squad2/Even_A/000",)
    assert by_q["a-no"].category == "near_miss" and by_q["a-no"].expected == "refuse"
    assert by_q["b-ok"].category == "out_of_collection" and by_q["b-ok"].expected == "refuse"
    assert by_q["a2-ok"].group == "Even_A"
    assert ds.counts == {"answerable": 2, "near_miss": 2, "out_of_collection": 1}


def test_scifact_and_rgb_loaders(tmp_path: Path) -> None:
    base = tmp_path / "beir-scifact"
    (base / "qrels").mkdir(parents=True)
    with gzip.open(base / "corpus.jsonl.gz", "wt") as fh:
        for i in ("10", "20"):
            fh.write(json.dumps({"_id": i, "title": f"T{i}", "text": f"text {i}"}) + "\n")
    (base / "queries.jsonl").write_text(
        json.dumps({"_id": "1", "text": "claim one"}) + "\n"
        + json.dumps({"_id": "2", "text": "train claim"}) + "\n")
    (base / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\t20\t1\n")
    ds = load_scifact(tmp_path)
    assert [d.source for d in ds.collection] == ["10", "20"]
    assert [(q.question, q.gold_sources) for q in ds.questions] == [("claim one", ("20",))]

    (tmp_path / "rgb").mkdir()
    rows = [{"id": i, "query": f"q{i}", "answer": ["A"], "positive": [f"pos{i}"],
             "negative": [f"neg{i}"]} for i in range(2)]
    (tmp_path / "rgb" / "en_fact.json").write_text("\n".join(json.dumps(r) for r in rows))
    rgb = load_rgb(tmp_path)
    assert {d.text for d in rgb.collection} == {"neg0", "neg1", "pos1"}
    assert [(q.expected, q.gold_sources) for q in rgb.questions] == [
        ("refuse", ()), ("answer", ("rgb/1/positive-0",))]
    assert [(q.gold_answer, q.answer_keys) for q in rgb.questions] == [("A", ()), ("A", ())]

    # an answer given as a list of spellings: every spelling is a key, none is its repr
    rows[1]["answer"] = [["July 21 2017", "Jul 21, 2017", "21 July 2017"]]
    (tmp_path / "rgb" / "en_fact.json").write_text("\n".join(json.dumps(r) for r in rows))
    item = load_rgb(tmp_path).questions[1]
    assert item.gold_answer == "July 21 2017"
    assert item.answer_keys == ("July 21 2017", "Jul 21, 2017", "21 July 2017")


def test_dataset_run_ingests_the_collection(tmp_path: Path) -> None:
    _write_squad(tmp_path)
    db = tmp_path / "squad.db"
    result = CliRunner().invoke(cli, ["eval", "--dataset", "squad2", "--data-dir",
                                      str(tmp_path), "--db", str(db), "--embedder", "hashing",
                                      "-q", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["n"] == 5
    assert payload["run"]["workspace"] == "squad2"
    assert payload["counts_by_category"] == {"answerable": 2, "near_miss": 2,
                                             "out_of_collection": 1}


def test_eval_needs_data_or_dataset() -> None:
    result = CliRunner().invoke(cli, ["eval"])
    assert result.exit_code == 1 and "--dataset" in result.output


def test_category_filter(records_file: Path) -> None:
    result = CliRunner().invoke(cli, ["eval", "--records", str(records_file), "--json",
                                      "--category", "near_miss", "--category", "answerable"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["counts_by_category"] == {"answerable": 30,
                                                               "near_miss": 10}


def test_calibration_set_is_the_train_articles_the_reader_never_saw(tmp_path: Path) -> None:
    """Same protocol, on the SQuAD 2.0 train articles the reader's recipe holds out (seeded
    hash of the title): never the benchmark half, never an article the reader trained on."""
    from abstain.evaluate.loaders import CALIBRATION_HOLDOUT, load_squad2_calibration
    from abstain.train.trainset import held_out

    titles = [f"Article_{i}" for i in range(200)]
    kept = [t for t in titles if held_out(t, *CALIBRATION_HOLDOUT)]
    assert 2 <= len(kept) <= 25  # about 5 %
    data = {"version": "v2.0-rebuilt", "data": [
        {"title": t, "paragraphs": [{"context": f"{t} text.", "qas": [
            {"id": None, "question": f"{t}?", "is_impossible": False,
             "answers": [{"text": "text", "answer_start": 0}]}]}]} for t in titles]}
    (tmp_path / "squad2-train-rebuilt").mkdir()
    with gzip.open(tmp_path / "squad2-train-rebuilt" / "train-v2.0.rebuilt.json.gz",
                   "wt") as fh:
        json.dump(data, fh)
    ds = load_squad2_calibration(tmp_path)
    assert ds.name == "squad2-calibration"
    assert {q.group for q in ds.questions} == set(kept)
    assert [d.source.split("/")[1] for d in ds.collection] == kept[::2]  # even-indexed
    assert {q.category for q in ds.questions} == {"answerable", "out_of_collection"}


def test_reader_model_reads_with_the_given_file(hashing_db: str, tmp_path: Path) -> None:
    """--reader-model: the questions are read with that file (a candidate model compared on
    the same questions); a file that is no model, or --no-reader beside it, is a clear error."""
    from abstain.rerank.reader import model_file

    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(QUESTIONS.read_text().splitlines()[:4]) + "\n")
    out = tmp_path / "run.jsonl"
    result = CliRunner().invoke(cli, ["eval", str(path), "--db", hashing_db, "-q", "--json",
                                      "--reader-model", str(model_file()),
                                      "--save-records", str(out)])
    assert result.exit_code == 0, result.output
    records = load_records(out)
    assert any("answerability" in r.features for r in records)
    assert all(r.error is None for r in records)
    # Each answer carries the reader's P(answers) of the answer as quoted (markers left out).
    from abstain.evaluate.runner import ANSWER_READ
    from abstain.rerank.reader import OnnxReader, sigmoid

    answered = [r for r in records if r.answered]
    assert answered and all(0.0 <= r.features[ANSWER_READ] <= 1.0 for r in answered)
    assert not any(ANSWER_READ in r.features for r in records if not r.answered)
    reader = OnnxReader(model_file())
    for record in answered:  # the answer's sentences without their [n] markers, read again
        logits = reader.logits([record.item.question], [unmarked(record.answer_text)])
        assert record.features[ANSWER_READ] == pytest.approx(sigmoid(float(logits[0, 0])),
                                                             abs=1e-3)
    for extra, message in ((["--reader-model", str(path)], "not a reader model"),
                           (["--reader-model", str(model_file()), "--no-reader"],
                            "drop --no-reader")):
        result = CliRunner().invoke(cli, ["eval", str(path), "--db", hashing_db, "-q",
                                          *extra])
        assert result.exit_code == 1
        assert message in result.stderr


def test_a_run_given_a_calibration_and_an_answer_confidence_is_refused(hashing_db: str
                                                                        ) -> None:
    """The gate decides on one of them: a RunSpec holding both is refused, not run on the
    calibration with the answer confidence silently dropped."""
    from abstain.answer_confidence import shipped_answer_confidence
    from abstain.confidence import default_calibration
    from abstain.config import Settings
    from abstain.errors import ConfigError
    from abstain.evaluate.harness import RunSpec, execute

    spec = RunSpec(data=str(QUESTIONS), settings=Settings(store=hashing_db, embedder="hashing"),
                   calibration=default_calibration(),
                   answer_confidence=shipped_answer_confidence(), limit=2)
    with pytest.raises(ConfigError, match="not both"):
        execute(spec, progress=False)


def test_a_questions_file_given_as_records_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    questions = tmp_path / "mine.jsonl"
    questions.write_text('{"question": "What port?", "expected": "answer"}\n')
    for command in (["eval", "--records", str(questions)],
                    ["calibrate", "--records", str(questions), "-o", str(tmp_path / "c.json")]):
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
        assert "line 1: not a record saved by --save-records" in result.output
        assert "pass it as the DATA argument" in result.output


def test_answers_no_label_can_judge_are_left_out_of_precision_and_counted() -> None:
    from abstain.evaluate.data import LabelledQuestion
    from abstain.evaluate.records import QuestionRecord
    from abstain.evaluate.report import format_table, summarize

    def record(question: str, expected: str, keys: tuple[str, ...], answer: str
               ) -> QuestionRecord:
        item = LabelledQuestion(question, expected, "answerable" if expected == "answer"
                                else "off_topic", answer_keys=keys)
        return QuestionRecord(item, answered=True, reason=None, confidence=0.8, features={},
                              checks=(), chunks=(), answer_text=answer)

    records = [record("a", "answer", ("42",), "It is 42."),
               record("b", "answer", (), "Unlabelled."),
               record("c", "answer", (), "Unlabelled too."),
               record("d", "refuse", (), "Said anyway.")]
    summary = summarize(records)
    assert (summary["answer_precision"], summary["answers_unjudged"]) == (0.5, 2)
    assert summary["right_answer_recall"] == 1.0
    assert [w["question"] for w in summary["answered_should_refuse"]] == ["d"]
    text = format_table(summary)
    assert "answer precision 0.500 (1 right of 2 answers given and judged)" in text
    assert "2 more answers to answerable questions without answer_keys" in text
    assert "answered, should refuse (off_topic): d" in text


def test_labels_as_people_write_them_are_read_alike() -> None:
    from abstain.evaluate.data import parse_record

    item = parse_record({"question": "Which port?", "expected": "answer",
                         "category": " Answerable", "answer_keys": [7421, "TCP"]})
    assert (item.category, item.answer_keys) == ("answerable", ("7421", "TCP"))
    assert parse_record({"question": "Which port?", "expected": "answer",
                         "answer_keys": 7421}).answer_keys == ("7421",)
    with pytest.raises(ValueError, match="'answer_keys' must be a list of strings"):
        parse_record({"question": "Which port?", "expected": "answer", "answer_keys": [True]})


def test_a_category_with_no_question_names_the_files_categories(tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "Which port?", "expected": "answer"}\n'
                         '{"question": "Who won?", "expected": "refuse", '
                         '"category": "off_topic"}\n')
    result = CliRunner().invoke(cli, ["eval", str(questions), "--category", "nearmiss",
                                      "--db", str(tmp_path / "kb.db")])
    assert result.exit_code == 1
    assert "of category 'nearmiss'; the file's categories: answerable, off_topic" in result.output



def test_two_sources_of_questions_are_an_error(tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "Which port?", "expected": "answer"}\n')
    result = CliRunner().invoke(cli, ["eval", str(questions), "--records", str(questions)])
    assert result.exit_code == 1
    assert "give one source of questions, not DATA and --records" in result.output
