"""The extractive answer's learned quote choice (abstain.generate.choice)."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources

import numpy as np
import pytest

from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit, ReadWindow
from abstain.generate.choice import FEATURES, QuoteChoice, candidates, shipped_choice
from abstain.generate.extractive import ExtractiveGenerator
from abstain.question import Question


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
    eval_sets = {"BurntSushi+ripgrep", "encode+uvicorn", "spf13+cobra", "jcrist+msgspec"}
    assert not eval_sets & set(data["projects"])  # never fitted on the projects it is judged on
    assert shipped_choice().weights == tuple(data["weights"])


def test_a_choice_fitted_on_other_features_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="other features"):
        QuoteChoice.from_json({"features": ["overlap"], "weights": [1.0]})
    with pytest.raises(ValueError, match="one per feature"):
        QuoteChoice((1.0,))


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
    [ev] = _evidence(["Cause: the data directory already belongs to a different cluster.\n"
                      "Fix: stop the node, empty its data directory and join again."],
                     title="E1210")
    best = ExtractiveGenerator().chosen_unit(question, [ev])
    assert best is not None
    assert best[1].text == "Cause: the data directory already belongs to a different cluster."


def test_the_chosen_unit_is_added_to_a_quote_that_lacks_it_in_passage_order() -> None:
    """Word overlap quotes the sentence that shares most words; a choice that scores the
    passage's last unit best (weights set here, not the shipped ones) adds it, after, and
    says so."""
    question = Question.parse("How do I turn off a boolean flag on the serve command line?")
    intro = "Boolean arguments of the serve command line are represented by flags."
    answer = "Each is turned off by the same name prefixed with no-, as in --no-expose."
    weather = "The weather is mild in spring."
    [ev] = _evidence([f"{intro} {weather}\n{answer}"])
    last = QuoteChoice(tuple(10.0 if name == "place" else 0.0 for name in FEATURES))
    plain = ExtractiveGenerator(add_chosen=False).generate(question, [ev])
    chosen = ExtractiveGenerator(choice=last).generate(question, [ev])
    assert answer not in [s.text for s in plain.sentences]
    assert [s.text for s in chosen.sentences] == [intro, answer]
    assert "quote choice" in chosen.notes[-1]
