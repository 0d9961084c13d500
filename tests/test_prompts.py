"""Parsing cited answers, the streaming sentence assembler, prompts and the context budget."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abstain.generate import Sentence
from abstain.generate.cited import SentenceAssembler, parse_cited
from abstain.generate.prompts import (
    approx_tokens,
    cited_answer_messages,
    clarify_messages,
    fit_context,
    parse_rerank,
    parse_rewrite,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("Keys rotate every 30 days [1]. Run qsctl keys rotate [2].",
     [("Keys rotate every 30 days.", (1,)), ("Run qsctl keys rotate.", (2,))]),
    ("Keys rotate every 30 days. [1] Old keys stay valid. [1][2]",
     [("Keys rotate every 30 days.", (1,)), ("Old keys stay valid.", (1, 2))]),
    ("Backups are kept for 14 days [1, 3].", [("Backups are kept for 14 days.", (1, 3))]),
    ("**Answer:** - Keys rotate monthly [Source 2]\n- Version v2.3.1 added it [1]",
     [("Keys rotate monthly.", (2,)), ("Version v2.3.1 added it", (1,))]),
    ("Keys rotate [1] Old keys stay valid [2].",
     [("Keys rotate.", (1,)), ("Old keys stay valid.", (2,))]),
    ("Which keys do you mean?", [("Which keys do you mean?", ())]),
])
def test_parse_cited(text: str, expected: list[tuple[str, tuple[int, ...]]]) -> None:
    assert [(s.text, s.cites) for s in parse_cited(text)] == expected


def test_assembler_releases_a_sentence_once_the_next_begins() -> None:
    assembler = SentenceAssembler()
    assert assembler.feed("Keys rotate every 30 days.") == []
    assert assembler.feed(" [1]") == []  # the marker after the full stop still belongs to it
    assert assembler.feed(" Old") == [Sentence("Keys rotate every 30 days.", (1,))]
    assert assembler.feed(" keys stay valid [2].") == []
    assert assembler.flush() == [Sentence("Old keys stay valid.", (2,))]


@given(st.lists(st.sampled_from(["Keys rotate every 30 days [1]. ", "Old keys stay valid. [2] ",
                                 "Backups run at 02:00 UTC [1, 2]. ", "Which one? "]),
                min_size=1, max_size=6),
       st.integers(min_value=1, max_value=7))
def test_streamed_sentences_equal_parsed_sentences(parts: list[str], step: int) -> None:
    text = "".join(parts)
    assembler = SentenceAssembler()
    streamed: list[Sentence] = []
    for i in range(0, len(text), step):
        streamed += assembler.feed(text[i:i + step])
    streamed += assembler.flush()
    assert streamed == list(parse_cited(text))


def test_context_budget_drops_the_tail_and_says_so() -> None:
    texts = ["a" * 400, "b" * 400, "c" * 400]
    assert approx_tokens("a" * 400) == 100
    context = fit_context(texts, 250)
    assert context.texts == ("a" * 400, "b" * 400) and context.dropped == 1
    assert context.note(250) == ("context budget 250 tokens (approx. chars/4): "
                                 "1 source(s) left out")
    first_too_long = fit_context(["x" * 4000], 100)
    assert first_too_long.texts == ("x" * 400,) and first_too_long.truncated


def test_prompts_number_the_sources_and_clarify_shows_none() -> None:
    messages = cited_answer_messages("How often?", fit_context(["Keys rotate.", "Backups."],
                                                                100))
    assert messages[0]["role"] == "system" and "[n]" not in messages[0]["content"]
    assert "[1] Keys rotate.\n\n[2] Backups." in messages[1]["content"]
    assert "clarifying question" in messages[0]["content"]
    clarify = clarify_messages("What next?")
    assert clarify[-1]["content"] == "What next?" and "Sources" not in clarify[0]["content"]


def test_rerank_and_rewrite_replies() -> None:
    assert parse_rerank("1: 3\n2: 0\n3 - 2", 3) == {1: 3, 2: 0, 3: 2}
    assert parse_rerank("[1]: 2\nthe rest are unrelated", 2) == {1: 2, 2: 0}
    assert parse_rerank("I think passage one is best", 3) is None
    assert parse_rewrite('Query: "api key rotation"\n', "how often keys?") == "api key rotation"
    assert parse_rewrite("", "q") is None
