"""Without its framework installed, an adapter names the extra to install."""

from __future__ import annotations

import importlib
import sys

import pytest

from abstain.errors import MissingDependency


@pytest.mark.parametrize(("module", "blocked", "extra"), [
    ("abstain.integrations.llamaindex", "llama_index.core.base.base_query_engine",
     "llamaindex"),
    ("abstain.integrations.langchain", "langchain_core.callbacks", "langchain"),
    ("abstain.integrations.haystack", "haystack", "haystack"),
])
def test_missing_framework_names_the_extra(monkeypatch: pytest.MonkeyPatch, module: str,
                                           blocked: str, extra: str) -> None:
    monkeypatch.setitem(sys.modules, blocked, None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(MissingDependency, match=rf"pip install 'abstain\[{extra}\]'"):
        importlib.import_module(module)
