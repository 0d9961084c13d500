"""Citation markers are numbered 1..n in order of first use; every quote is kept."""

from __future__ import annotations

from abstain.answer import AnswerSentence, Citation
from abstain.citations import Numbering, number_by_first_use
from abstain.generate import Sentence


def test_markers_and_citations_follow_first_use() -> None:
    sentences = [Sentence("Alpha holds.", (3,)), Sentence("Beta too.", (1,)),
                 Sentence("Gamma again.", (3, 1))]
    shown, citations = number_by_first_use(sentences, (
        Citation(1, "b.md", "b-c0", "Beta too."),
        Citation(3, "a.md", "a-c0", "Alpha holds."),
        Citation(3, "a.md", "a-c0", "Gamma again."),
    ))
    assert " ".join(s.rendered() for s in shown) == (
        "Alpha holds. [1] Beta too. [2] Gamma again. [1][2]")
    assert shown[2] == AnswerSentence("Gamma again.", (1, 2), (3, 1))
    assert [(c.n, c.evidence_n, c.quote) for c in citations] == [
        (1, 3, "Alpha holds."), (1, 3, "Gamma again."), (2, 1, "Beta too.")]
    assert [c.to_json()["evidence_n"] for c in citations] == [3, 3, 1]


def test_a_stream_numbers_the_same_way() -> None:
    numbering = Numbering()
    first = numbering.sentence(Sentence("Alpha holds.", (3,)))
    second = numbering.sentence(Sentence("Beta too.", (1, 3)))
    assert (first.rendered(), second.rendered()) == ("Alpha holds. [1]", "Beta too. [2][1]")
    assert second.sources() == [{"n": 2, "evidence_n": 1}, {"n": 1, "evidence_n": 3}]


def test_without_citations_the_markers_stay_as_written() -> None:
    shown, citations = number_by_first_use([Sentence("Alpha holds.", (7,))], ())
    assert (shown, citations) == ((AnswerSentence("Alpha holds.", (7,), (7,)),), ())
