"""Citation markers are numbered 1..n in order of first use; every quote is kept."""

from __future__ import annotations

from abstain.answer import Answer, Citation
from abstain.citations import Numbering, number_by_first_use


def _answer(text: str, citations: tuple[Citation, ...]) -> Answer:
    return Answer(question="q", answered=True, text=text, refusal=None, confidence=0.9,
                  display_confidence=90.0, triage="confident", citations=citations)


def test_markers_and_citations_follow_first_use() -> None:
    answer = _answer("Alpha holds. [3] Beta too. [1] Gamma again. [3][1]", (
        Citation(1, "b.md", "b-c0", "Beta too."),
        Citation(3, "a.md", "a-c0", "Alpha holds."),
        Citation(3, "a.md", "a-c0", "Gamma again."),
    ))
    numbered = number_by_first_use(answer)
    assert numbered.text == "Alpha holds. [1] Beta too. [2] Gamma again. [1][2]"
    assert [(c.n, c.evidence_n, c.quote) for c in numbered.citations] == [
        (1, 3, "Alpha holds."), (1, 3, "Gamma again."), (2, 1, "Beta too.")]
    assert [c["evidence_n"] for c in numbered.to_json()["citations"]] == [3, 3, 1]


def test_a_stream_numbers_the_same_way() -> None:
    numbering = Numbering()
    first = numbering.apply("Alpha holds. [3]")
    second = numbering.apply("Beta too. [1][3]")
    assert (first, second) == ("Alpha holds. [1]", "Beta too. [2][1]")
    assert numbering.sources(second) == [{"n": 2, "evidence_n": 1}, {"n": 1, "evidence_n": 3}]


def test_refusals_are_left_alone() -> None:
    refused = Answer(question="q", answered=False, text="", refusal=None, confidence=0.1,
                     display_confidence=5.0, triage="no_match")
    assert number_by_first_use(refused) is refused
