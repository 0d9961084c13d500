"""The training data: article split, sentence labels, perturbations, pairs (no torch needed)."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from abstain.rerank.windows import sentence_windows
from abstain.train import pairs, perturb, squad
from abstain.train.evaluate import auroc, balanced_accuracy

CONTEXT = ("The Normans were the people who in the 10th and 11th centuries gave their name to "
           "Normandy, a region in France. They were descended from Norse raiders and pirates "
           "from Denmark, Iceland and Norway. Their leader Rollo swore fealty to King Charles "
           "III of West Francia in 911.")


def _squad_file(tmp_path: Path, n_articles: int = 4) -> Path:
    articles = []
    for a in range(n_articles):
        qas = [
            {"id": f"{a}-1", "question": "Who did Rollo swear fealty to?", "is_impossible": False,
             "answers": [{"text": "King Charles III", "answer_start": CONTEXT.index("King")}]},
            {"id": f"{a}-2", "question": "Who did Rollo never swear fealty to?",
             "is_impossible": True, "answers": [],
             "plausible_answers": [{"text": "King Charles III",
                                    "answer_start": CONTEXT.index("King")}]},
            {"id": f"{a}-3", "question": "In which country is Normandy?", "is_impossible": False,
             "answers": [{"text": "France", "answer_start": CONTEXT.index("France")}]},
        ]
        articles.append({"title": f"Article_{a}", "paragraphs": [
            {"context": CONTEXT, "qas": qas},
            {"context": "Iceland is an island in the North Atlantic. Its capital is Reykjavik, "
                        "a city founded long ago by settlers.", "qas": []}]})
    root = tmp_path / "data"
    (root / "squad2-dev-half").mkdir(parents=True)
    with gzip.open(root / squad.SQUAD_FILE, "wt", encoding="utf-8") as fh:
        json.dump({"version": "v2.0", "data": articles}, fh)
    return root


def test_split_is_by_article_and_disjoint(tmp_path: Path) -> None:
    articles = squad.load_articles(_squad_file(tmp_path))
    train, held = squad.split(articles, "train"), squad.split(articles, "heldout")
    assert [a.index for a in train] == [1, 3]
    assert [a.index for a in held] == [0, 2]
    assert not {q.id for a in train for q in a.questions} & {q.id for a in held
                                                             for q in a.questions}


def test_span_windows_finds_the_answer_sentence() -> None:
    start = CONTEXT.index("King")
    windows, hits = squad.span_windows(CONTEXT, (start,), ("King Charles III",))
    assert len(windows) == 3
    assert hits == {2}
    assert windows[2].startswith("Their leader Rollo")


def test_sentence_windows_merge_short_and_cut_long() -> None:
    assert sentence_windows("Intro. " + CONTEXT)[0].startswith("Intro. The Normans")
    long = " ".join(f"w{i}" for i in range(150)) + "."
    assert [len(w.split()) for w in sentence_windows(long)] == [70, 70, 10]
    assert sentence_windows("") == [" "]


def test_a_question_in_the_text_is_read_with_its_answer() -> None:
    """An FAQ's "What is the largest attachment I can send? The limit is 25 MB per message."
    was read as two windows: the question, which answers nothing, and an answer that shares
    no word with what was asked, so it was never chosen to be read."""
    faq = ("What is the largest attachment I can send? The limit is 25 MB per message. "
           "How long are deleted items kept? Deleted items are removed after 30 days.")
    assert sentence_windows(faq) == [
        "What is the largest attachment I can send? The limit is 25 MB per message.",
        "How long are deleted items kept? Deleted items are removed after 30 days."]


def test_perturbations_change_what_is_asked() -> None:
    rng = random.Random(0)
    sentence = "Rollo swore fealty to King Charles III in 911."
    assert perturb.swap_number("What happened in 911?", sentence, rng) not in (None,
                                                                            "What happened in 911?")
    assert perturb.negate("Who was the leader?", rng) == "Who was not the leader?"
    assert perturb.negate("Who was not the leader?", rng) == "Who was the leader?"
    assert perturb.antonym("What was the first city?", rng) == "What was the last city?"
    swapped = perturb.swap_entity("Who did Rollo swear fealty to?", sentence,
                                  ["Denmark", "Rollo"], rng)
    assert swapped == "Who did Denmark swear fealty to?"
    assert perturb.shorten("The king, who ruled for many long years, was known across the "
                           "whole wide land.", rng) is not None


def test_pairs_are_reproducible_and_labelled(tmp_path: Path) -> None:
    data = _squad_file(tmp_path)
    recipe = pairs.Recipe("t", own_negatives=1, mined_negatives=1, scifact=False,
                          support_synthetic=6)
    first, second = pairs.build(data, recipe, 7), pairs.build(data, recipe, 7)
    assert first == second
    kinds = pairs.summary(first)
    assert kinds["answer:1/-"] == 4 and kinds["plausible:0/-"] == 2
    assert any(k.startswith("syn-support") for k in kinds)
    answers = {(p.a, p.b) for p in first if p.answers == 1.0}
    rollo = "Their leader Rollo swore fealty to King Charles III of West Francia in 911."
    assert ("Who did Rollo swear fealty to?", rollo) in answers


def test_auroc_and_balanced_accuracy() -> None:
    assert auroc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(0.75)
    assert auroc([0, 1], [0.5, 0.5]) == pytest.approx(0.5)
    assert balanced_accuracy([0, 0, 1, 1], [-1.0, 1.0, 1.0, 1.0], 0.0) == pytest.approx(0.75)
