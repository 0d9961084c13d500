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
     "--lua-globals output keys as globals --lua-prefix string prefix (default \"return \")", ""),
    # a longer name that holds the asked one
    ("What is the default value of trailing_comma?", "Default value: false",
     "match_block_trailing_comma"),
    ("What is the default value of trailing_comma?",
     "match_block_trailing_comma (default: false)", ""),
    # no value stated
    ("What is the default value of PYENV_HOOK_PATH?",
     "name: PYENV_HOOK_PATH; default: see wiki; description: hook paths.", ""),
    ("What is the default value of PYENV_ROOT?",
     "PYENV_ROOT is where versions live; by default it is under your home.", ""),
    # a call that passes the parameter, not a signature that defaults it
    ("What does worker_type default to?",
     "consumer = huey.create_consumer(workers=4, worker_type='thread')", ""),
    ("What does str_keys default to?",
     "Use enc_hook or msgspec.to_builtins(obj, str_keys=True)", ""),
    # another flag's heading
    ("What is the default of --color?", "Default: auto", "--colors=COLOR_SPEC"),
    # a duration asked for, a boolean stated
    ("with --rolling-restart, how long does watchtower wait by default between restarts?",
     "Argument: --rolling-restart Type: Boolean Default: false", ""),
])
def test_a_window_that_states_another_default_or_none_does_not(
        question: str, window: str, heading: str) -> None:
    assert not _states(question, window, heading)


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
