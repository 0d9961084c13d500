"""A stated default read by its form (abstain.rerank.defaults), where the reader reads a
"Default value: 100" field as no answer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from abstain.embed import HashingEmbedder
from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit
from abstain.pipeline import Pipeline
from abstain.question import Question
from abstain.rerank import defaults, rows
from abstain.rerank.reading import read_evidence
from abstain.stores.sqlite import SQLiteStore


class NoAnswerReader:
    """Reads no window as answering, as the shipped reader reads most option fields."""

    name = "no-answer"

    def logits(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        return np.full((len(b), 3), -6.0, dtype=np.float32)


def _states(question: str, window: str, heading: str = "", passage: str = "") -> bool:
    return defaults.states_default_of(Question.parse(question), window, heading,
                                      passage or window)


@pytest.mark.parametrize("question", [
    "What is the default value of rustfmt's imports_granularity option?",
    "what does imports_granularity default to?",
    "Which imports_granularity do I get if I don't set it?",
    "What is the default log-level of PostgREST?",  # an option name running text writes
    "If I don't pass -j to rg, how many threads does it use?",
])
def test_a_question_that_asks_what_a_named_thing_is_when_unset_asks_its_default(
        question: str) -> None:
    assert defaults.asks_default(Question.parse(question))


@pytest.mark.parametrize("question", [
    "Why is imports_granularity not on by default?",  # why it is, not what
    "When will --yaml-fix-merge-anchor-to-spec default to true?",
    "Since which version is strict_bytes enabled by default?",  # a version asked for
    "I kept the default worker class with --threads 4. What actually happens?",
    "What is the default timeout?",  # names nothing
    "So why does max_workers default to 4?",
    "In rustfmt, how would I change the default of imports_granularity?",
])
def test_a_question_that_asks_something_else_of_a_default_does_not(question: str) -> None:
    assert not defaults.asks_default(Question.parse(question))


@pytest.mark.parametrize(("name", "window", "heading"), [
    ("min_version", "Property: min_version; Description: Minimum TLS version. Default is "
                    "\"1.2\".", ""),
    ("PYENV_ROOT", "name: PYENV_ROOT; default: ~/.pyenv; description: Defines the directory.",
     ""),
    ("detailed_validation", "a detailed_validation flag (defaulting to true), determining "
                            "the validation.", ""),
    ("RUSTUP_HOME", "RUSTUP_HOME (default: ~/.rustup). Sets the root rustup folder.", ""),
    ("tasks.dedupe", "tasks.dedupe controls Task deduplication and defaults to True.", ""),
    ("imports_granularity", "Default value: Preserve Possible values: Preserve, Crate",
     "imports_granularity"),
    ("log-level", "Default | error", "log-level"),
    ("line_length", "Default: 79 Config default: 79", "Line Length"),  # the heading's words
    ("--path-separator", "Set the path separator. This defaults to your platform's separator.",
     "--path-separator=SEPARATOR"),  # a flag's heading with its argument
    ("--max-columns", "Don't print lines longer than this limit (default: 0, no limit).",
     "-M, --max-columns=NUM"),
    ("worker_type", "Consumer Consumer(huey, workers=1, worker_type='thread', periodic=True)",
     ""),  # a signature, after its heading
])
def test_a_window_that_states_the_asked_name_s_default_answers(
        name: str, window: str, heading: str) -> None:
    assert _states(f"What is the default value of {name}?", window, heading)


@pytest.mark.parametrize(("question", "window", "heading"), [
    # the default of the next flag of a listing
    ("What is the default value of the --lua-globals flag?",
     "--lua-globals flag value output keys as globals --lua-prefix string prefix (default "
     "\"return \")", ""),
    # a longer name that holds the asked one
    ("What is the default value of trailing_comma?", "Default value: false",
     "match_block_trailing_comma"),
    ("What is the default value of trailing_comma?",
     "match_block_trailing_comma (default: false)", ""),
    # another name's default under the asked one's heading
    ("What is the default value of max_width?",
     "When use_small_heuristics is on, fn_call_width defaults to 60% of it.", "max_width"),
    ("What is the default value of log-level?",
     "log-level: the level of logging; log-format: the output format (default: json)", ""),
    # no value stated, or not the default's
    ("What is the default value of PYENV_HOOK_PATH?",
     "name: PYENV_HOOK_PATH; default: see wiki; description: hook paths.", ""),
    ("What is the default value of PYENV_HOOK_PATH?", "PYENV_HOOK_PATH (default: see wiki)", ""),
    ("What is the default value of PYENV_ROOT?",
     "PYENV_ROOT is where versions live; by default it is under your home.", ""),
    ("What is the default value of aws_access_key_id?",
     "Set aws_access_key_id in the [default] profile of the value file.", ""),
    ("What is the default value of pool_size?",
     "pool_size is ignored by the (default) sqlite backend value.", ""),
    ("What is the default value of log_config?",
     "log_config: version: 1 handlers: default: class: logging.StreamHandler value", ""),
    ("What is the default value of max_workers?",
     "Run cfg set max_workers to change the default to 8 value.", ""),
    # a call that passes the parameter, not a signature that defaults it
    ("What is the default value of worker_type?",
     "consumer = huey.create_consumer(workers=4, worker_type='thread')", ""),
    ("What is the default value of use_reloader?", "app.run(use_reloader=True)", ""),
    ("What is the default value of str_keys?",
     "Use enc_hook or msgspec.to_builtins(obj, str_keys=True)", ""),
    ("What is the default value of worker_type?",
     "Consumer(huey, pool=Pool(worker_type='process'))", ""),
    # another flag's heading
    ("What is the default value of --color?", "Default: auto", "--colors=COLOR_SPEC"),
    # an option name running text writes is the asked name only as a heading
    ("What is the default value of read-only?", "read-only (default: false)", ""),
])
def test_a_window_that_states_another_default_or_none_does_not(
        question: str, window: str, heading: str) -> None:
    assert not _states(question, window, heading)


def test_the_asked_type_decides_between_a_default_of_that_type_and_another() -> None:
    window = "Argument: --rolling-restart Type: Duration Default: false"
    assert _states("What is the default of --rolling-restart?", window)
    assert not _states("with --rolling-restart, how long does it wait by default?", window)


def test_a_signature_states_its_parameters_defaults() -> None:
    assert _states("What does worker_type default to?",
                   "Consumer Consumer(huey, workers=1, worker_type='thread', periodic=True)")
    assert _states("What does read_timeout default to?",
                   "def connect(host: str, read_timeout: float = 5.0) -> Connection")


@pytest.mark.parametrize(("question", "only"), [
    ("What is the default value of max_workers?", True),
    ("In the user guide, what is the default value of max_workers?", True),
    ("Is RUSTUP_AUTO_INSTALL on by default, and how do I turn it off?", False),
    ("What is max_workers for and what does it default to?", False),
])
def test_a_question_that_asks_more_than_the_default_is_quoted_as_any_other(
        question: str, only: bool) -> None:
    assert defaults.asks_only_default(Question.parse(question)) is only


def test_names_asked_together_are_all_asked() -> None:
    together = defaults.several_asked(Question.parse(
        "What are the defaults of MAX_TEXT_CHUNK and of MAX_TEXT_MEMORY?"))
    assert [n.text for n in together] == ["MAX_TEXT_CHUNK", "MAX_TEXT_MEMORY"]
    assert defaults.several_asked(Question.parse(
        "What does python-build set MACOSX_DEPLOYMENT_TARGET to by default?")) == ()


def test_a_question_about_a_case_the_passage_never_names_is_left_to_the_reader() -> None:
    window = ("Maximum number of tasks a pool worker process can execute before it's replaced "
              "with a new one. Default is no limit.")
    asked = "What is the default value of worker_max_tasks_per_child?"
    assert _states(asked, window, "worker_max_tasks_per_child")
    assert not _states(f"{asked[:-1]} when running with the gevent pool?", window,
                       "worker_max_tasks_per_child")


def _evidence(text: str, heading: str) -> Evidence:
    doc = Document("d", "default", "Configurations.md", "Configurations", "h")
    return Evidence(FusedHit("c0", 1.0), Chunk("c0", "d", ChunkKind.CHILD, text, 0,
                                               heading_path=(heading,)), doc, text)


def test_the_reading_reads_the_stated_default_first_and_says_so() -> None:
    text = ("Controls how imports are structured in use statements. Imports will be merged "
            "or split to the configured level of granularity.\n\n"
            "- Default value: Preserve\n- Possible values: Preserve, Crate, Module, Item\n"
            "- Stable: No")
    evidence = [_evidence(text, "imports_granularity")]
    question = Question.parse("What is the default value of imports_granularity?")
    reading = read_evidence(NoAnswerReader(), question, evidence, windows=1)
    assert reading is not None and reading.states_default
    assert reading.answerability == rows.P_ANSWERS and "Preserve" in reading.window
    unasked = read_evidence(NoAnswerReader(), Question.parse(
        "What does imports_granularity control?"), evidence)
    assert unasked is not None and not unasked.states_default and unasked.answerability < 0.01


def test_a_table_row_s_verdict_stands_over_the_default_it_states() -> None:
    """A row that names another record asked ("the defaults of max_workers and minify")
    does not answer by its columns; its stated default does not overturn that."""
    text = ("- Name: max_workers; Default: 4; Description: worker threads\n"
            "- Name: minify; Default: false; Description: minify the output")
    reading = read_evidence(NoAnswerReader(), Question.parse(
        "What are the defaults of max_workers and minify?"), [_evidence(text, "Options")])
    assert reading is not None and not reading.states_default
    assert reading.answerability < rows.P_ANSWERS


def test_the_answer_quotes_the_stated_default_under_the_name_s_heading(tmp_path: Path) -> None:
    """End to end: the reader's veto would refuse the field; read by its form it is the
    answer, quoted with the heading that says whose default it is."""
    (tmp_path / "Configurations.md").write_text(
        "# Configuration options\n\n"
        "## imports_granularity\n\n"
        "Controls how imports are structured in use statements.\n\n"
        "- **Default value**: `Preserve`\n- **Possible values**: `Preserve`, `Crate`\n\n"
        "## max_width\n\nMaximum width of each line.\n\n"
        "- **Default value**: `100`\n- **Possible values**: any positive integer\n")
    with Pipeline(SQLiteStore(tmp_path / "kb.db"), HashingEmbedder(),
                  reader=NoAnswerReader()) as pipe:
        pipe.ingest([tmp_path])
        answer = pipe.ask("What is the default value of the imports_granularity option?")
        assert answer.answered, answer.refusal
        assert "Preserve" in answer.text and "100" not in answer.text
        assert answer.text.index("imports_granularity") < answer.text.index("Preserve")
        reading = next(c for c in answer.checks if c.name == "answerability")
        assert "states the default asked for" in reading.detail
        refused = pipe.ask("What does the imports_granularity option do when it merges?")
        assert not refused.answered  # the reader's veto stands where no default is asked
