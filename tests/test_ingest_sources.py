"""Document identity, symlinks and folder sync (issue 14, points 1-3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from abstain.embed import HashingEmbedder
from abstain.errors import InputError, SourceConflict
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore


@pytest.fixture
def pipe(tmp_path: Path) -> Pipeline:
    return Pipeline(SQLiteStore(tmp_path / "kb.db"), HashingEmbedder())


def _project(base: Path, name: str, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        f = base / name / "docs" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return base / name


def _sources(pipe: Pipeline) -> list[str]:
    return [d.source for d in pipe.store.list_documents("default")]


def test_two_projects_docs_are_two_documents(pipe: Pipeline, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    p1 = _project(tmp_path, "p1", {"a.md": "# A\n\nProject one alpha."})
    p2 = _project(tmp_path, "p2", {"a.md": "# A\n\nProject two bravo."})
    monkeypatch.chdir(p1)
    first = pipe.ingest(["docs"])
    monkeypatch.chdir(p2)
    second = pipe.ingest(["docs"])
    assert (first.added, second.added, second.updated) == (
        [str(p1.resolve() / "docs" / "a.md")], [str(p2.resolve() / "docs" / "a.md")], [])
    assert len(_sources(pipe)) == 2


def test_relative_absolute_and_dotted_spellings_are_one_document(
        pipe: Pipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p1 = _project(tmp_path, "p1", {"a.md": "# A\n\nalpha", "sub/b.md": "# B\n\nbravo"})
    monkeypatch.chdir(p1)
    assert len(pipe.ingest(["docs"]).added) == 2
    again = pipe.ingest([p1 / "docs", "./docs/../docs/sub/b.md", p1 / "docs" / "a.md"])
    assert (again.added, again.updated, len(again.unchanged)) == ([], [], 2)
    assert _sources(pipe) == [str(p1.resolve() / "docs" / "a.md"),
                              str(p1.resolve() / "docs" / "sub" / "b.md")]


def test_text_and_file_documents_never_overwrite_each_other(pipe: Pipeline,
                                                           tmp_path: Path) -> None:
    f = tmp_path / "a.md"
    f.write_text("# A\n\nfrom the file")
    source = str(f.resolve())
    pipe.ingest_text("# A\n\nfrom an upload", source=source)
    with pytest.raises(SourceConflict, match=r"abstain docs rm [0-9a-f]+ -w default"):
        pipe.ingest([f])
    pipe.store.delete_document("default", pipe.store.list_documents()[0].id)
    pipe.ingest([f])
    with pytest.raises(SourceConflict, match="another source name"):
        pipe.ingest_text("# A\n\nfrom an upload", source=source)
    assert [d.origin for d in pipe.store.list_documents()] == ["file"]


def test_unchanged_documents_of_older_stores_are_taken_over_not_duplicated(
        pipe: Pipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from abstain.evidence import Document
    from abstain.ingest import document_id, file_hash
    from abstain.ingest.chunk import chunk_document
    from abstain.ingest.parse import parse_file
    from abstain.stores.base import EmbedderInfo

    def legacy(source: str, digest: str) -> None:  # as an older abstain wrote it
        chunks = chunk_document(document_id("default", source), parse_file(Path(source)))
        emb = pipe.embedder
        doc = Document(chunks[0].document_id, "default", source, "T", digest)
        pipe.store.write_document(doc, chunks, emb.embed_batch([c.text for c in chunks[1:]]),
                                  EmbedderInfo(emb.name, emb.dim))

    p1 = _project(tmp_path, "p1", {"a.md": "# A\n\nalpha", "b.md": "# B\n\nbravo"})
    monkeypatch.chdir(p1)
    legacy("docs/a.md", file_hash(Path("docs/a.md")))
    legacy("docs/b.md", "an older version of b.md, or an upload named docs/b.md")
    report = pipe.ingest(["docs"])
    assert report.updated == [str(p1.resolve() / "docs" / "a.md")]
    assert report.added == [str(p1.resolve() / "docs" / "b.md")]
    assert _sources(pipe) == [*report.updated, *report.added, "docs/b.md"]


def test_symlinks_out_of_the_folder_are_skipped_unless_followed(pipe: Pipeline,
                                                               tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("the root password is hunter2")
    (tmp_path / "outside" / "more.md").write_text("# More\n\noutside folder text")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nalpha")
    (docs / "passwd.txt").symlink_to(secret)
    (docs / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    (docs / "again.md").symlink_to(docs / "a.md")  # inside: the same document as a.md
    report = pipe.ingest([docs])
    assert report.added == [str(docs / "a.md")]
    assert sorted(s for s, _ in report.skipped) == [str(docs / "linked"),
                                                    str(docs / "passwd.txt")]
    assert all("--follow-symlinks" in r for _, r in report.skipped)
    assert pipe.store.search_text("hunter2", workspace="default", limit=5) == []
    followed = pipe.ingest([docs], follow_symlinks=True)
    assert sorted(followed.added) == [str(docs / "linked" / "more.md"),
                                      str(docs / "linked" / "secret.txt"),
                                      str(docs / "passwd.txt")]
    assert followed.unchanged == [str(docs / "a.md")]


def test_symlink_loops_end(pipe: Pipeline, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "a.md").write_text("# A\n\nalpha")
    (docs / "sub" / "up").symlink_to(docs, target_is_directory=True)
    (docs / "sub" / "top").symlink_to(tmp_path, target_is_directory=True)
    assert pipe.ingest([docs]).added == [str(docs / "sub" / "a.md")]
    assert pipe.ingest([docs], follow_symlinks=True).unchanged == [str(docs / "sub" / "a.md")]


def test_prune_removes_documents_whose_files_are_gone_under_that_folder_only(
        pipe: Pipeline, tmp_path: Path) -> None:
    p1 = _project(tmp_path, "p1", {"a.md": "# A\n\nalpha", "sub/b.md": "# B\n\nbravo"})
    p2 = _project(tmp_path, "p2", {"c.md": "# C\n\ncharlie"})
    pipe.ingest([p1 / "docs", p2 / "docs"])
    pipe.ingest_text("# Note\n\nan uploaded note", source="note.md")
    (p1 / "docs" / "sub" / "b.md").unlink()
    (p2 / "docs" / "c.md").unlink()
    kept = pipe.ingest([p1 / "docs"])
    assert kept.removed == [] and len(_sources(pipe)) == 4
    synced = pipe.ingest([p1 / "docs"], prune=True)
    assert synced.removed == [str(p1 / "docs" / "sub" / "b.md")]
    assert "1 removed" in synced.summary()
    assert _sources(pipe) == [str(p1 / "docs" / "a.md"), str(p2 / "docs" / "c.md"), "note.md"]
    assert pipe.store.search_text("bravo", workspace="default", limit=5) == []


def test_missing_paths_raise_before_anything_is_read(pipe: Pipeline, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha")
    with pytest.raises(InputError, match=r"no such file or directory: .*typo\.md, .*gone/"):
        pipe.ingest([tmp_path / "a.md", str(tmp_path / "typo.md"), f"{tmp_path}/gone/"])
    assert _sources(pipe) == []


@pytest.mark.parametrize("name", ["../evil ws", "", "a/b", "x" * 65, "-lead", "tab\t",
                                  "new\n"])
def test_invalid_workspace_names_are_refused_by_the_python_api(pipe: Pipeline,
                                                               name: str) -> None:
    with pytest.raises(InputError, match="invalid workspace name"):
        pipe.ingest_text("# A\n\nalpha", source="a.md", workspace=name)
    with pytest.raises(InputError, match="invalid workspace name"):
        Pipeline(pipe.store, pipe.embedder, workspace=name)


def test_non_utf8_text_is_skipped_and_reported_with_the_fix(pipe: Pipeline,
                                                           tmp_path: Path) -> None:
    f = tmp_path / "latin.txt"
    f.write_bytes("Café olé, naïve façade.".encode("latin-1"))
    report = pipe.ingest([f])
    assert report.added == []
    [(source, reason)] = report.skipped
    assert source == str(f) and "not UTF-8" in reason and "iconv" in reason


def test_iter_files_walks_in_sorted_order_without_hidden_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from abstain.ingest import iter_files

    for rel in ("b.md", "a/z.md", "a/.x.md", ".git/config.md", "c.txt", "a/~$budget.xlsx"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    got = [Path(s).relative_to(tmp_path).as_posix() for s, _ in iter_files([tmp_path])]
    assert got == ["b.md", "c.txt", "a/z.md"]
    monkeypatch.chdir(tmp_path)
    assert [s for s, _ in iter_files(["b.md"])] == [str(tmp_path.resolve() / "b.md")]


def test_a_named_pipe_is_skipped_not_read(pipe: Pipeline, tmp_path: Path) -> None:
    """Opening a FIFO blocks until a writer comes: the ingest would hang for ever."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# OK\n\nThe lobby opens at 06:00.")
    os.mkfifo(docs / "pipe.md")
    report = pipe.ingest([docs])
    assert report.added == [str((docs / "ok.md").resolve())]
    assert report.skipped == [(str((docs / "pipe.md").resolve()),
                               "not a regular file (a pipe, socket or device)")]


def test_a_broken_symlink_is_called_broken(pipe: Pipeline, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "gone.md").symlink_to(tmp_path / "nowhere.md")
    [(_, reason)] = pipe.ingest([docs]).skipped
    assert reason.startswith("broken symlink: its target ") and "does not exist" in reason


def test_a_skipped_file_says_its_earlier_version_keeps_answering(pipe: Pipeline,
                                                                 tmp_path: Path) -> None:
    page = tmp_path / "canteen.md"
    page.write_text("# Canteen\n\nThe canteen opens at 11:00.")
    pipe.ingest([page])
    page.write_text("---\ncurated: maybe\n---\n# Canteen\n\nThe canteen opens at 10:00.")
    [(_, reason)] = pipe.ingest([page]).skipped
    assert "'curated' must be true or false" in reason
    assert reason.endswith(f"the version ingested before is kept (`abstain docs rm "
                           f"{page.resolve()}` removes it)")
    assert "11:00" in pipe.ask("When does the canteen open?").text


def test_documents_whose_files_are_gone_are_reported_until_pruned(pipe: Pipeline,
                                                                  tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nalpha")
    (docs / "b.md").write_text("# B\n\nbravo")
    pipe.ingest([docs])
    (docs / "b.md").rename(docs / "c.md")
    report = pipe.ingest([docs])
    assert report.gone == [str((docs / "b.md").resolve())] and not report.removed
    report = pipe.ingest([docs], prune=True)
    assert report.removed == [str((docs / "b.md").resolve())] and not report.gone


def test_delete_takes_an_id_a_source_or_a_path_spelt_from_here(
        pipe: Pipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _project(tmp_path, "p", {"a.md": "# A\n\nalpha", "b.md": "# B\n\nbravo",
                                    "c.md": "# C\n\ncharlie"})
    pipe.ingest([docs])
    by_source = {Path(d.source).name: d for d in pipe.documents()}
    monkeypatch.chdir(docs)
    assert pipe.delete(by_source["a.md"].id)
    assert pipe.delete(by_source["b.md"].source)
    assert pipe.delete("docs/c.md")
    assert not pipe.delete("docs/c.md") and pipe.documents() == []


def test_the_stores_own_database_in_the_folder_is_not_a_document(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha")
    with Pipeline(SQLiteStore(tmp_path / "kb.db"), HashingEmbedder()) as pipe:
        pipe.ingest([tmp_path])
        report = pipe.ingest([tmp_path])
    assert report.unchanged == [str(tmp_path / "a.md")] and report.skipped == []


def test_a_folder_that_cannot_be_listed_is_reported_not_dropped(
        pipe: Pipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer's ``locked/`` (mode 000) vanished from the report: os.walk drops a folder
    it cannot list unless asked. (Root reads any folder, so the refusal is simulated.)"""
    docs = tmp_path / "docs"
    (docs / "locked").mkdir(parents=True)
    (docs / "locked" / "secret.md").write_text("# Secret\n\nThe vault code is 4711.")
    (docs / "ok.md").write_text("# OK\n\nThe lobby opens at 06:00.")
    _cannot_list(monkeypatch, "locked")
    report = pipe.ingest([docs])
    assert report.added == [str((docs / "ok.md").resolve())]
    assert report.skipped == [(str((docs / "locked").resolve()),
                               "cannot read folder: Permission denied")]


def test_a_folder_turned_unreadable_keeps_its_documents_through_a_prune(
        pipe: Pipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder that cannot be listed holds files no one can look for: ``--prune`` must not
    take them for deleted (a mode 000 folder also hides its files from os.path.exists)."""
    docs = tmp_path / "docs"
    (docs / "locked").mkdir(parents=True)
    secret = docs / "locked" / "secret.md"
    secret.write_text("# Secret\n\nThe vault code is 4711.")
    (docs / "ok.md").write_text("# OK\n\nThe lobby opens at 06:00.")
    assert len(pipe.ingest([docs]).added) == 2
    real_exists = os.path.exists
    _cannot_list(monkeypatch, "locked")
    monkeypatch.setattr(os.path, "exists",
                        lambda p: "locked" not in str(p) and real_exists(p))
    report = pipe.ingest([docs], prune=True)
    assert report.removed == [] and report.gone == []
    assert [s for s, _ in report.skipped] == [str((docs / "locked").resolve())]
    assert any(d.source == str(secret.resolve()) for d in pipe.documents())


def test_a_folder_that_lists_but_cannot_be_entered_is_reported_not_a_crash(
        pipe: Pipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review's mode-600 folder: os.walk lists its names, but looking at any of them
    raised PermissionError out of the ingest."""
    docs = tmp_path / "docs"
    (docs / "half").mkdir(parents=True)
    (docs / "half" / "a.md").write_text("# A\n\nThe lobby opens at 06:00.")
    (docs / "ok.md").write_text("# OK\n\nThe lobby closes at 22:00.")
    real = Path.is_symlink

    def is_symlink(self: Path) -> bool:
        if self.parent.name == "half":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "is_symlink", is_symlink)
    report = pipe.ingest([docs])
    assert report.added == [str((docs / "ok.md").resolve())]
    assert report.skipped == [(str((docs / "half" / "a.md").resolve()),
                               "cannot read: Permission denied")]


def _cannot_list(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Folders called ``name`` cannot be listed, as a mode 000 folder (root reads any)."""
    real = os.scandir

    def scandir(path: object = ".") -> object:
        if str(path).endswith(name):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
