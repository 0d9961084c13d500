"""The extractive answer's learned quote choice (abstain.generate.choice)."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit, ReadWindow
from abstain.generate.choice import FEATURES, QuoteChoice, candidates, shipped_choice
from abstain.generate.extractive import ExtractiveGenerator
from abstain.question import Question
from abstain.records import Generation, Sentence

USERDOCS = Path(__file__).resolve().parents[1] / "data" / "userdocs"


def _evidence(texts: list[str], title: str = "D") -> list[Evidence]:
    doc = Document("d", "default", "d.md", title, "h")
    return [Evidence(FusedHit(f"c{i}", 1.0 - i / 10, vector_rank=i + 1, vector_distance=0.4),
                     Chunk(f"c{i}", "d", ChunkKind.CHILD, t, i), doc, t)
            for i, t in enumerate(texts)]


def test_the_shipped_choice_is_fitted_on_the_features_this_version_computes() -> None:
    data = json.loads(resources.files("abstain").joinpath("data/quote_choice.json").read_text())
    assert data["features"] == list(FEATURES)
    assert len(data["weights"]) == len(FEATURES)
    assert "train sets" in data["report"]["data"] and "held_out" in data["report"]
    roles = {p.parent.name: json.loads(p.read_text())["role"]
             for p in USERDOCS.glob("*/SOURCE.json")}
    assert {roles[name] for name in data["projects"]} == {"train"}  # never an eval set
    assert len(data["projects"]) == sum(r == "train" for r in roles.values())
    assert shipped_choice().weights == tuple(data["weights"])


def test_a_choice_fitted_on_other_features_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="other features"):
        QuoteChoice.from_json({"features": ["overlap"], "weights": [1.0]})
    with pytest.raises(ValueError, match="one per feature"):
        QuoteChoice((1.0,))
    with pytest.raises(ValueError, match="finite"):
        QuoteChoice((float("nan"),) * len(FEATURES))


def test_every_unit_that_can_answer_is_a_candidate_with_every_feature() -> None:
    question = Question.parse("Which TCP port does replication use?")
    evidence = _evidence(["Replication uses TCP port 7400. Which port does replication use?",
                          "The kitchen is cleaned on Fridays."])
    found = candidates(question, evidence)
    assert [c.text for c in found] == ["Replication uses TCP port 7400.",
                                       "The kitchen is cleaned on Fridays."]  # no question
    assert all(len(c.features) == len(FEATURES) for c in found)
    first = dict(zip(FEATURES, found[0].features, strict=True))
    assert first["overlap"] > 0.5 and first["typed"] == 1.0 and first["evidence_rank_inverse"] == 1
    assert dict(zip(FEATURES, found[1].features, strict=True))["overlap"] == 0.0
    probabilities = shipped_choice().probabilities(found)
    assert probabilities.sum() == pytest.approx(1.0) and probabilities[0] > probabilities[1]
    assert shipped_choice().probabilities([]).size == 0


def test_the_readers_probability_counts_in_the_choice() -> None:
    """Two sentences that hold the question's words alike: the one the reader read as the
    answer is chosen."""
    question = Question.parse("How do I change the replication port?")
    first = "The replication port is set in the cluster file."
    second = "The replication port can be changed with the --replication-port flag."
    [ev] = _evidence([f"{first} {second}"])
    for answering in (first, second):
        read = replace(ev, read=(ReadWindow(answering, (answering,), 0.97, 0),))
        chance = shipped_choice().probabilities(candidates(question, [read]))
        chosen = candidates(question, [read])[int(np.argmax(chance))]
        assert chosen.text == answering


def test_a_label_naming_what_is_asked_is_chosen_over_its_sibling() -> None:
    """"What causes E1210?" of an error page with a Cause: and a Fix: line: the cause is the
    unit the choice scores best."""
    question = Question.parse("What causes error E1210?")
    [ev] = _evidence(["Fix: stop the node, empty its data directory and join again.\n"
                      "Cause: the data directory already belongs to a different cluster."],
                     title="E1210")
    best = ExtractiveGenerator().chosen_unit(question, [ev])
    assert best is not None
    assert best.unit.text == "Cause: the data directory already belongs to a different cluster."


def _favouring(name: str) -> QuoteChoice:
    """A choice that scores one feature only (weights set here, not the shipped ones): the
    mechanism of adding, apart from what the shipped weights prefer."""
    return QuoteChoice(tuple(10.0 if f == name else 0.0 for f in FEATURES))


LAST = _favouring("place")
"""Scores a chunk's last unit best."""


def test_the_chosen_unit_is_added_after_a_quote_that_lacks_it() -> None:
    """Word overlap quotes the sentence sharing most words; the chosen unit comes after it,
    the quote's own order untouched, and the audit trail says so."""
    question = Question.parse("How do I turn off a boolean flag on the serve command line?")
    intro = "Boolean arguments of the serve command line are represented by flags."
    answer = "Each is prefixed with no- to switch the flag, as in --no-expose."
    [first, second] = _evidence([f"The weather is mild. {answer}", intro])
    plain = ExtractiveGenerator(add_chosen=False).generate(question, [second, first])
    chosen = ExtractiveGenerator(choice=LAST).generate(question, [second, first])
    assert [s.text for s in plain.sentences] == [intro]
    assert [s.text for s in chosen.sentences] == [intro, answer]  # after, though from [2]
    assert chosen.sentences[-1].cites == (2,)
    assert "quote choice" in chosen.notes[-1] and "of 2 chunks)" in chosen.notes[-1]


def test_nothing_is_added_to_an_empty_quote_or_from_a_unit_naming_nothing_asked() -> None:
    """An empty quote is no answer, and the choice makes none of it; a unit whose own text
    holds nothing asked (an ADR's "Date:" line, named only by its title) is never chosen."""
    question = Question.parse("What does ADR-0007 decide?")
    [ev] = _evidence(["Date: 2022-12-05\nThe decision is to keep one writer per shelf."],
                     title="ADR-0007")
    generator = ExtractiveGenerator(choice=_favouring("first_unit"))
    assert not generator.with_the_chosen(question, [ev], replace(
        generator.generate(question, [ev]), sentences=())).sentences
    best = generator.chosen_unit(question, [ev])
    assert best is not None and best.unit.text.startswith("The decision")
    [kitchen] = _evidence(["The kitchen is cleaned on Fridays. Lunch is at noon."])
    assert ExtractiveGenerator(choice=LAST).chosen_unit(
        Question.parse("What is the replication port?"), [kitchen]) is None


def test_what_the_chosen_unit_needs_comes_with_it() -> None:
    """A unit opening on "These" comes after the unit it points back to; one ending on a
    colon with the code block it introduces; a lead-in of a list, or of nothing (the chunk
    ends on it), is not added."""
    question = Question.parse("How do I turn off a boolean flag of waitress-serve?")
    said = "All flags of waitress-serve have a negative form."
    pointer = "These are prefixed with no- in front of the flag."
    [ev] = _evidence([f"Boolean flags of waitress-serve are switches. {said}\n{pointer}"])
    quoted = ExtractiveGenerator(choice=LAST, max_sentences=1).generate(question, [ev])
    assert [s.text for s in quoted.sentences][-2:] == [said, pointer]
    lead = "To turn a boolean flag of waitress-serve off, run:"
    [code] = _evidence([f"Boolean flags of waitress-serve are switches.\n{lead}\n```\n"
                        "waitress-serve --no-expose-tracebacks app:main\n```"])
    with_code = ExtractiveGenerator(choice=_favouring("ends_colon"), max_sentences=1)
    texts = [s.text for s in with_code.generate(question, [code]).sentences]
    assert texts[-2:] == [lead, "waitress-serve --no-expose-tracebacks app:main"]
    first = Generation(sentences=(Sentence("Boolean flags of waitress-serve are switches.",
                                           (1,)),), model="extractive")
    [dangling] = _evidence([f"Boolean flags of waitress-serve are switches.\n{lead}"])
    assert with_code.with_the_chosen(question, [dangling], first) == first
    [listed] = _evidence([f"Boolean flags of waitress-serve are switches.\n{lead}\n"
                          "- --no-expose-tracebacks\n- --no-ipv6"])
    assert with_code.with_the_chosen(question, [listed], first) == first
    assert with_code.with_the_chosen(question, [code], first).sentences[1].text == lead


def test_no_other_item_of_a_quoted_documents_list_is_added() -> None:
    """A quote that answers from one item of a list gets no other item of that document's
    lists beside it, in whichever chunk: its value is not this answer's."""
    question = Question.parse("What is the default of queue.depth?")
    quoted_item = "- queue.depth: how many jobs wait. Default 64."
    other = "- storage.cache_mb: the block cache. Default 512."
    [one, two] = _evidence([quoted_item, f"Settings of the queue follow.\n{other}"])
    generator = ExtractiveGenerator(choice=_favouring("evidence_rank_inverse"))
    quote = generator.generate(question, [one, two])
    assert [s.text for s in quote.sentences] == [quoted_item.removeprefix("- ")]
    spread = ExtractiveGenerator(choice=LAST).with_the_chosen(question, [one, two], quote)
    assert other.removeprefix("- ") not in [s.text for s in spread.sentences]


def test_a_curated_answer_to_the_question_is_chosen_first() -> None:
    """A curated page whose title asks the question is an editor's answer to it: its unit is
    chosen over a better-scored one of another page."""
    question = Question.parse("How do I reset the admin password?")
    [guide, faq] = _evidence(["Run qsctl admin reset-password --local as root to reset the "
                              "admin password.",
                              "Use the reset-password command of qsctl on a server node."])
    faq = replace(faq, document=Document("q", "default", "qa.md",
                                         "How do I reset the admin password?", "h",
                                         curated=True))
    best = ExtractiveGenerator(choice=_favouring("first_evidence")).chosen_unit(
        question, [guide, faq])
    assert best is not None and best.unit.cites == 2


def _first(text: str, cites: int = 1) -> Generation:
    return Generation(sentences=(Sentence(text, (cites,)),), model="extractive")


def test_a_unit_pointing_back_goes_after_what_it_points_to_or_not_at_all() -> None:
    """Found by the second review: "It also accepts …" was added with nothing before it (the
    first unit of its chunk), or after another sentence than its antecedent, or after a lone
    list item; and an antecedent near-duplicating a quoted sentence was added too."""
    question = Question.parse("Which port does Raft replication listen on?")
    pointer = "It also accepts Raft replication snapshots on another port."
    generator = ExtractiveGenerator(choice=LAST)
    quote = _first("Raft replication listens on a TCP port of its own.")
    [alone] = _evidence([pointer])
    assert generator.with_the_chosen(question, [alone], quote) == quote  # points to nothing
    [listed] = _evidence(["- Raft replication port: see the table.\n" + pointer])
    assert generator.with_the_chosen(question, [listed], quote) == quote  # to one item
    antecedent = "Raft replication traffic is encrypted between the members."
    [ev] = _evidence([f"{antecedent} {pointer}"])
    after = generator.with_the_chosen(question, [ev], _first(antecedent))
    assert [s.text for s in after.sentences] == [antecedent, pointer]
    other = generator.with_the_chosen(question, [ev], Generation(sentences=(
        Sentence(antecedent, (1,)), Sentence("The REST API listens on its own port.", (1,))),
        model="extractive"))
    assert [s.text for s in other.sentences] == [  # right after its antecedent, not at the end
        antecedent, pointer, "The REST API listens on its own port."]
    [near] = _evidence([f"Raft replication listens on a TCP port of its own here. {pointer}"])
    assert generator.with_the_chosen(question, [near], quote) == quote


def test_a_lead_in_goes_before_the_quoted_block_it_introduces() -> None:
    question = Question.parse("How do I check the peers with qsctl doctor?")
    lead = "The peers of qsctl doctor are probed over the network with:"
    [ev] = _evidence([f"qsctl doctor checks a node.\n{lead}\n```\nqsctl doctor --peers\n```"])
    quote = Generation(sentences=(Sentence("qsctl doctor checks a node.", (1,)),
                                  Sentence("qsctl doctor --peers", (1,))), model="extractive")
    added = ExtractiveGenerator(choice=_favouring("ends_colon")).with_the_chosen(
        question, [ev], quote)
    assert [s.text for s in added.sentences] == [
        "qsctl doctor checks a node.", lead, "qsctl doctor --peers"]


def test_no_second_value_of_the_asked_type_is_added() -> None:
    """Found by the second review on the sample corpus: "Which port does the REST API listen
    on?" quoted the 7420 row and added "Port 7422 listens only on the loopback interface by
    default." A quote that carries the asked type of answer gets no other unit carrying
    one."""
    question = Question.parse("Which port does the REST API listen on?")
    [ev] = _evidence(["The REST API listens on port 7420.\nPort 7422 of the REST API host "
                      "listens only on the loopback interface."])
    quote = _first("The REST API listens on port 7420.")
    assert ExtractiveGenerator(choice=LAST).with_the_chosen(question, [ev], quote) == quote
