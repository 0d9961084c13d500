"""The Verifier conformance suite: every implementation passes these same tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from abstain.verify import LexicalVerifier, Verifier, support_threshold, verifier_name
from tests.conformance.common import ANSWERING, UNRELATED, needs

SUPPORTED = "API keys are rotated every 30 days."
FABRICATED = "Keys are stored in a hardware module made by Thales since 2019."


@pytest.fixture(scope="module", params=[
    "lexical", "reader-support",
    pytest.param("hub-nli", marks=needs("torch", "transformers"))])
def verifier(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[Verifier]:
    if request.param == "lexical":
        yield LexicalVerifier()
    elif request.param == "reader-support":
        from abstain.rerank.support import ReaderSupport

        yield ReaderSupport()
    else:
        from abstain.rerank.hub import HubSupport
        from tests.test_rerank_hub import _tiny_model

        labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
        yield HubSupport(_tiny_model(Path(tmp_path_factory.mktemp("nli")), labels))


def test_is_a_verifier_with_a_name_and_threshold(verifier: Verifier) -> None:
    assert isinstance(verifier, Verifier)
    assert verifier_name(verifier)
    assert 0.0 < support_threshold(verifier) < 1.0


def test_support_is_a_deterministic_score_in_unit_range(verifier: Verifier) -> None:
    for sentence in (SUPPORTED, FABRICATED):
        value = verifier.check(sentence, [UNRELATED, ANSWERING])
        assert isinstance(value, float) and 0.0 <= value <= 1.0
        assert verifier.check(sentence, [UNRELATED, ANSWERING]) == value


def test_no_evidence_supports_nothing(verifier: Verifier) -> None:
    assert verifier.check(SUPPORTED, []) == 0.0


def test_the_evidence_own_sentence_passes_and_a_fabrication_fails(verifier: Verifier) -> None:
    if verifier_name(verifier).startswith("hub:"):
        pytest.skip("the hub test model is a random tiny BERT: structure only")
    threshold = support_threshold(verifier)
    assert verifier.check(SUPPORTED, [UNRELATED, ANSWERING]) >= threshold
    assert verifier.check(FABRICATED, [UNRELATED, ANSWERING]) < threshold
