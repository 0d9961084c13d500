"""``Refused``, the exception the retrievers raise: it carries the refused Answer through
pickling and copying, as a framework's worker process or a retry wrapper may need."""

from __future__ import annotations

import copy
import pickle

from abstain.integrations import Refused
from abstain.pipeline import Pipeline
from tests.integrations.conftest import REFUSED


def test_a_refusal_survives_pickle_and_copy(adapters_pipeline: Pipeline) -> None:
    refused = Refused(adapters_pipeline.ask(REFUSED))
    for again in (pickle.loads(pickle.dumps(refused)), copy.copy(refused),
                  copy.deepcopy(refused)):
        assert type(again) is Refused
        assert again.answer == refused.answer
        assert (again.reason, again.message, again.suggestions, again.missing) == (
            refused.reason, refused.message, refused.suggestions, refused.missing)
        assert str(again) == str(refused)


def test_a_refusal_names_what_is_missing(adapters_pipeline: Pipeline) -> None:
    refused = Refused(adapters_pipeline.ask(REFUSED))
    assert refused.reason == "unknown_entity"
    assert refused.missing == ("ADR-0050",)
