"""abstain.ask(q, docs=...): a missing path raises; the same documents reuse one store."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import abstain
from abstain.embed import HashingEmbedder
from abstain.errors import InputError
from abstain.oneshot import split_docs


class Counting(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return super().embed_batch(texts)


def _folder(tmp_path: Path) -> Path:
    docs = tmp_path / "handbook"
    docs.mkdir()
    (docs / "backups.md").write_text("# Backups\n\nBackups run nightly at 02:00. "
                                     "The retention window is 30 days.")
    (docs / "ports.md").write_text("# Ports\n\nThe API listens on port 8443.")
    return docs


def test_the_same_documents_are_embedded_once(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    emb = Counting()
    first = abstain.ask("What is the retention window?", docs=[docs], embedder=emb)
    after_first = emb.texts
    second = abstain.ask("What is the retention window?", docs=[str(docs)], embedder=emb)
    assert emb.texts - after_first == 1  # only the question
    assert first.to_json()["answer"] == second.to_json()["answer"]
    (docs / "ports.md").write_text("# Ports\n\nThe API listens on port 9443.")
    abstain.ask("Which port?", docs=[docs], embedder=emb)
    assert emb.texts - after_first > 2  # changed content: a new store


def test_a_missing_path_raises_instead_of_being_read_as_text(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no such file or directory: .*handbok/"):
        abstain.ask("q", docs=[f"{tmp_path}/handbok/"], embedder=HashingEmbedder())
    with pytest.raises(InputError, match=r"notes\.md"):
        abstain.ask("q", docs=["notes.md"], embedder=HashingEmbedder())
    with pytest.raises(InputError):
        abstain.ask("q", docs=[tmp_path / "nope"], embedder=HashingEmbedder())


def test_one_folder_is_one_document_source_not_its_characters(tmp_path: Path) -> None:
    """docs="/path/to/docs" once walked "/" (the string's characters were read as paths)."""
    docs = _folder(tmp_path)
    for given in (str(docs), docs):
        answer = abstain.ask("What is the retention window?", docs=given,
                             embedder=HashingEmbedder())
        assert answer.answered and "30 days" in answer.text
    with pytest.raises(InputError, match="no documents to answer from"):
        abstain.ask("q", docs=[], embedder=HashingEmbedder())
    with pytest.raises(InputError, match="one workspace of its own"):
        abstain.ask("q", docs=[docs], workspace="x", embedder=HashingEmbedder())


def test_text_documents_still_work() -> None:
    answer = abstain.ask("What is the retention window?",
                         docs=["# Backups\n\nThe retention window is 30 days."],
                         embedder=HashingEmbedder())
    assert answer.evidence and "30 days" in answer.evidence[0].text


def test_what_is_a_path_and_what_is_text(tmp_path: Path) -> None:
    paths, texts = split_docs([tmp_path, "docs/", "a.md", "x/y", "The answer is 42.",
                               "one\ntwo", "hello"])
    # a single word is a path: a mistyped folder must not become a one-word document
    assert paths == [tmp_path, "docs/", "a.md", "x/y", "hello"]
    assert texts == ["The answer is 42.", "one\ntwo"]


def test_a_mistyped_folder_raises_instead_of_refusing_every_question(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or directory: handbok"):
        abstain.ask("What is the stipend?", docs="handbok", embedder=HashingEmbedder())


def test_documents_none_of_which_can_be_read_raise_with_the_reasons(tmp_path: Path) -> None:
    blob = tmp_path / "blob.md"
    blob.write_bytes(b"\x00\x01\x02binary\xff" * 50)
    image = tmp_path / "logo.png"
    image.write_bytes(b"\x89PNG\r\n")
    for question in ("How long is the probation period?", "x?"):
        with pytest.raises(InputError, match=r"none of the documents could be read.*blob\.md"):
            abstain.ask(question, docs=[blob, image], embedder=HashingEmbedder())


def test_a_blank_document_is_refused_as_empty_and_a_home_path_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review found ``docs=""`` called "no such file or directory: " once a single word
    became a path, and ``docs="~/folder"`` missing though it exists."""
    with pytest.raises(InputError, match="the document is empty"):
        abstain.ask("What is the stipend?", docs="   ", embedder=HashingEmbedder())
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "handbook").mkdir()
    (tmp_path / "handbook" / "perks.md").write_text("# Perks\n\nThe stipend is 500 EUR a year.")
    answer = abstain.ask("How much is the stipend?", docs="~/handbook",
                         embedder=HashingEmbedder(), reader=False)
    assert answer.evidence and "500 EUR" in answer.evidence[0].text
