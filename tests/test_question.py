"""One question, read once: :class:`abstain.question.Question` is built in ``validate`` and
every later stage reads it; nothing downstream parses the question text again."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import pytest

from abstain.asked import AnswerType
from abstain.embed.base import Embedder
from abstain.pipeline import Pipeline
from abstain.query import KeywordQuery
from abstain.question import Question
from abstain.stores.sqlite import SQLiteStore

PARSERS = ("parse_question", "expected_type", "measured", "compared", "asks_a_calendar_date",
           "query_terms")
"""The readers of a question's text, wherever a module imported them."""
CHECKS = ("entity_check", "coverage_check", "local_coverage_check", "answer_type_check")
"""The gate's evidence checks, as the gate calls them."""


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Each parser and each gate check, counted wherever a module of abstain holds it."""
    calls: Counter[str] = Counter()

    def counting(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    modules = [m for n, m in list(sys.modules.items()) if n.startswith("abstain") and m]
    for name in (*PARSERS, *CHECKS):
        originals = {getattr(m, name) for m in modules if callable(getattr(m, name, None))}
        assert originals, name
        for module in modules:
            if getattr(module, name, None) in originals:
                monkeypatch.setattr(module, name, counting(name, getattr(module, name)))
    keyword_query = KeywordQuery.of.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(KeywordQuery, "of", classmethod(
        counting("KeywordQuery.of", keyword_query)))
    return calls


@pytest.fixture(scope="module")
def reading_pipeline(sample_db: str, minilm: Embedder) -> Iterator[Pipeline]:
    with Pipeline(SQLiteStore(sample_db), minilm, reader=True) as pipe:
        yield pipe


ONCE = Counter({name: 1 for name in (*PARSERS, "KeywordQuery.of")})


def test_an_answered_question_is_parsed_once(sample_pipeline: Pipeline,
                                             counted: Counter[str]) -> None:
    answer = sample_pipeline.ask("How do I reset a lost admin password?")
    assert answer.answered, answer.refusal
    assert Counter({k: v for k, v in counted.items() if k not in CHECKS}) == ONCE
    assert {name: counted[name] for name in CHECKS} == dict.fromkeys(CHECKS, 1)


def test_with_the_reader_the_question_is_parsed_once_and_the_gate_checks_run_once(
        reading_pipeline: Pipeline, counted: Counter[str]) -> None:
    answer = reading_pipeline.ask("How do I reset a lost admin password?")
    assert answer.answered, answer.refusal
    assert any(c.name == "answerability" for c in answer.checks)  # the evidence was read
    assert Counter({k: v for k, v in counted.items() if k not in CHECKS}) == ONCE
    # The gate decided again with the reading, reusing the evidence checks' findings.
    assert {name: counted[name] for name in CHECKS} == dict.fromkeys(CHECKS, 1)


def test_a_question_put_in_preferred_labels_is_read_once_more(
        tmp_path: Path, counted: Counter[str]) -> None:
    from abstain.embed import HashingEmbedder
    from tests.vocab_support import build_kb

    kb = build_kb(tmp_path, HashingEmbedder())
    counted.clear()
    with Pipeline(SQLiteStore(kb), HashingEmbedder()) as pipe:
        answer = pipe.ask("How long do CMZ contracts run?")
    assert answer.answered, answer.refusal
    [check] = [c for c in answer.checks if c.name == "vocabulary"]
    assert check.detail.startswith("read CMZ -> congestion management zone")
    # the question as asked, then the new text with the concept's preferred label
    assert Counter({k: v for k, v in counted.items() if k not in CHECKS}) == Counter(
        {name: 2 for name in ONCE})


def test_a_question_reads_what_it_names_and_asks_for() -> None:
    question = Question.parse(
        "We run Postgres 16. How many rows does insert_all() write per batch?", "en")
    assert question.asked == "How many rows does insert_all() write per batch?"
    assert [(m.text, m.kind.value, m.why) for m in question.mentions] == [
        ("Postgres", "soft", "context"), ("insert_all", "identifier", "call")]
    assert question.answer_type is AnswerType.NUMBER
    assert question.measure == frozenset({"row", "insert"})  # "rows does insert"
    assert question.numbers == frozenset() and not question.calendar
    assert question.sides == ()
    assert question.keywords.terms == question.words[:32]
    assert "16" in question.words and "postgr" in question.stems
    with pytest.raises(FrozenInstanceError):
        question.text = "changed"  # type: ignore[misc]


def test_a_comparison_reads_its_two_sides() -> None:
    question = Question.parse("What is the difference between WAL mode and rollback journal?")
    assert question.sides == (frozenset({"wal", "mode"}), frozenset({"rollback", "journal"}))
    assert question.answer_type is None


def test_a_question_reads_the_names_it_asks_about_as_documentation_writes_them() -> None:
    """Identifiers but versions, one-letter flags by their case, and an option's name that
    running text does not take for an identifier (read only as a whole heading)."""
    question = Question.parse("Since 2.1, what is the default audit-command of MAX_WIDTH?")
    assert [(n.text, n.cased, n.heading_only) for n in question.asked_names] == [
        ("MAX_WIDTH", False, False), ("audit-command", False, True)]
    flags = Question.parse("What is the difference between ls -l and ls -L?").asked_names
    assert [(n.text, n.cased) for n in flags] == [("-l", True), ("-L", True)]
    assert flags[0].heads("-l, --long") and not flags[0].heads("-L, --dereference")


def test_a_copy_with_other_mentions_reads_its_own_names() -> None:
    """The asked names are read from the mentions whenever a question is made: a copy that
    drops a mention (the gate's names-unchecked focus) drops its name too."""
    from dataclasses import replace

    question = Question.parse("What is the default of MAX_WIDTH and log-level?")
    assert [n.text for n in question.asked_names] == ["MAX_WIDTH", "log-level"]
    bare = replace(question, mentions=())
    assert [n.text for n in bare.asked_names] == ["log-level"]
