from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstain.embed import HashingEmbedder
from abstain.errors import EmbedderMismatch, IngestError, InputError
from abstain.evidence import ChunkKind
from abstain.ingest.blocks import Block, BlockKind, ParsedDocument, Section
from abstain.ingest.chunk import ChunkingConfig, chunk_document
from abstain.ingest.parse import parse_file
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore
from tests.test_ingest_formats import mail_message


@pytest.fixture
def pipe(tmp_path: Path) -> Pipeline:
    return Pipeline(SQLiteStore(tmp_path / "kb.db"), HashingEmbedder())


def test_markdown_front_matter_headings_and_lists(tmp_path: Path) -> None:
    f = tmp_path / "a.md"
    f.write_text("---\ntitle: My Doc\ncurated: true\n---\n# Top\n\nIntro text.\n\n## Sub\n\n"
                 "- item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                 "```\ncode here\n```\n")
    doc = parse_file(f)
    assert doc.title == "My Doc"
    assert doc.metadata == {"title": "My Doc", "curated": True}
    assert [s.heading_path for s in doc.sections] == [("Top",), ("Top", "Sub")]
    assert [(b.kind, b.text) for b in doc.sections[1].blocks] == [
        (BlockKind.HEADING, "Sub"), (BlockKind.LIST_ITEM, "- item one"),
        (BlockKind.LIST_ITEM, "- item two"), (BlockKind.TABLE_ROW, "- a: 1; b: 2"),
        (BlockKind.CODE, "```\ncode here\n```")]


def test_html_title_headings_and_tables(tmp_path: Path) -> None:
    f = tmp_path / "a.html"
    f.write_text("<html><head><title>T</title><script>x()</script></head><body><h1>H</h1>"
                 "<p>Para <b>bold</b>.</p><h2>S</h2><table><tr><td>k</td><td>v</td></tr>"
                 "</table><ul><li>li</li></ul></body></html>")
    doc = parse_file(f)
    assert doc.title == "T"
    assert [(s.heading_path, [b.text for b in s.blocks]) for s in doc.sections] == [
        (("H",), ["H", "Para bold ."]), (("H", "S"), ["S", "- k | v", "- li"])]


def test_every_sample_format_parses(sample_corpus: Path) -> None:
    formats = {p.suffix for p in sample_corpus.rglob("*") if p.is_file()}
    assert {".md", ".html", ".pdf", ".txt"} <= formats
    for suffix in (".md", ".html", ".pdf", ".txt"):
        path = next(sample_corpus.rglob(f"*{suffix}"))
        doc = parse_file(path)
        assert doc.title and doc.sections, path
        assert len(doc.text) > 200, path


def test_pdf_text_is_extracted_with_headings(sample_corpus: Path) -> None:
    pdf = next(sample_corpus.rglob("*.pdf"))
    doc = parse_file(pdf)
    assert len(doc.sections) > 3
    words = doc.text.split()
    assert not [w for w in words if len(w) > 20 and w.isalpha()]  # no words glued together


@pytest.mark.parametrize(("name", "content", "reason"), [
    ("broken.pdf", b"%PDF-1.4 garbage", "PDF"),
    ("sheet.xlsx", b"PK\x03\x04", "not a readable Excel workbook"),
    ("locked.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "password-protected"),
    ("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "save it as .xlsx"),
    ("budget.ods", b"PK\x03\x04", "an OpenDocument file (.ods), which is not read: save it as "
                                  ".xlsx"),
    ("binary.txt", b"\x00\x01\x02" * 100, "binary"),
    ("empty.md", b"", "no text"),
    ("locked.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "password-protected"),
    ("broken.docx", b"PK\x03\x04 not really a zip", "not a readable Word file"),
    ("broken.ipynb", b"{\"cells\": [", "invalid JSON"),
    ("attached.eml", bytes(mail_message("Invoice", None, attachment=True)),
     "only attachments (invoice.pdf)"),
    ("empty.csv", b"a,b\n", "no rows"),
    ("nothing.csv", b"", "the file is empty"),
    ("renamed-pdf.md", b"%PDF-1.4\n\xe9\xe9 stream", "is a PDF file (.pdf) named as text"),
    ("report.txt", b"PK\x03\x04\x14\x00", "a ZIP container (.docx, .pptx, .xlsx or .zip)"),
    ("prices.csv", b"%PDF-1.7\n", "is a PDF file (.pdf) named as CSV"),
    ("latin.csv", "a,b\ncaf\xe9,1\n".encode("latin-1"), "not UTF-8"),
])
def test_broken_files_are_reported_and_skipped(pipe: Pipeline, tmp_path: Path, name: str,
                                               content: bytes, reason: str) -> None:
    good = tmp_path / "good.md"
    good.write_text("# Good\n\nThis file is fine.")
    bad = tmp_path / name
    bad.write_bytes(content)
    report = pipe.ingest([bad, good])
    assert report.added == [str(good)]
    assert [s for s, _ in report.skipped] == [str(bad)]
    assert reason.lower() in report.skipped[0][1].lower()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig"])
def test_text_with_a_byte_order_mark_is_read(pipe: Pipeline, tmp_path: Path,
                                             encoding: str) -> None:
    """Notepad's "Unicode" and PowerShell's `>` write UTF-16 with a BOM: it is text."""
    path = tmp_path / "notes.md"
    body = "# Notes\n\nThe café opens at 07:30 on weekdays."
    bom = b"\xfe\xff" if encoding == "utf-16-be" else b""
    path.write_bytes(bom + body.encode(encoding))
    report = pipe.ingest([path])
    assert report.added == [str(path)], report.skipped
    assert "café opens at 07:30" in pipe.search("when does the café open").evidence[0].text


def test_a_missing_path_is_an_error_and_nothing_is_ingested(pipe: Pipeline,
                                                            tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text("# Good\n\nThis file is fine.")
    with pytest.raises(InputError, match=r"no such file or directory: .*nope\.md"):
        pipe.ingest([good, tmp_path / "nope.md"])
    assert pipe.store.list_documents() == []


def test_reingest_unchanged_is_noop_and_changed_replaces(pipe: Pipeline, tmp_path: Path) -> None:
    f = tmp_path / "a.md"
    f.write_text("# A\n\nalpha bravo charlie.\n\n## B\n\ndelta echo.")
    first = pipe.ingest([f])
    assert first.added == [str(f)] and first.embedded == first.chunks
    again = pipe.ingest([f])
    assert again.unchanged == [str(f)] and again.chunks == 0 and again.embedded == 0
    f.write_text("# A\n\nalpha bravo charlie.\n\n## B\n\nfoxtrot golf.")
    changed = pipe.ingest([f])
    assert changed.updated == [str(f)]
    assert changed.embedded == 1  # the unchanged passage came from the embedding cache
    assert pipe.store.search_text("delta", workspace="default", limit=5) == []
    assert len(pipe.store.search_text("foxtrot", workspace="default", limit=5)) == 1
    assert len(pipe.store.list_documents("default")) == 1


def test_directory_ingest_and_workspaces(pipe: Pipeline, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.md").write_text("# X\n\nxray text")
    (tmp_path / "d" / "y.txt").write_text("yankee text")
    (tmp_path / "d" / ".hidden.md").write_text("hidden")
    report = pipe.ingest([tmp_path / "d"], workspace="w2")
    assert sorted(Path(s).name for s in report.added) == ["x.md", "y.txt"]
    assert pipe.store.workspaces() == ["w2"]


def test_mixing_embedders_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    f = tmp_path / "a.md"
    f.write_text("# A\n\nsome text")
    with Pipeline(SQLiteStore(path), HashingEmbedder(64)) as pipe:
        pipe.ingest([f])
    other = HashingEmbedder(32, name="other-model")
    with pytest.raises(EmbedderMismatch, match="cannot be mixed"):
        Pipeline(SQLiteStore(path), other)


def test_unsupported_suffix_raises_in_parse_file(tmp_path: Path) -> None:
    f = tmp_path / "x.rtf"
    f.write_text("{\\rtf1}")
    with pytest.raises(IngestError, match="unsupported"):
        parse_file(f)


def test_ingest_text_and_paraphrases(tmp_path: Path) -> None:
    def paraphrase(chunk: object) -> list[str]:
        return ["how long are backups kept"]

    with Pipeline(SQLiteStore(tmp_path / "kb.db"), HashingEmbedder(),
                  paraphraser=paraphrase) as pipe:
        pipe.ingest_text("# Backups\n\nThe retention window is 30 days.", source="b.md")
        hits = pipe.search("backups kept").evidence
        assert hits[0].chunk.kind is ChunkKind.CHILD
        assert "30 days" in hits[0].text
        assert len({h.chunk_id for h in hits}) == len(hits)


blocks = st.lists(st.text(alphabet="abcdefgh .", min_size=1, max_size=900).map(str.strip)
                  .filter(bool), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(blocks, min_size=1, max_size=4))
def test_children_reassemble_their_parents_and_the_document(sections: list[list[str]]) -> None:
    parsed = ParsedDocument("T", tuple(Section((f"h{i}",), tuple(
        Block(BlockKind.PARAGRAPH, t) for t in b)) for i, b in enumerate(sections)))
    config = ChunkingConfig(parent_chars=1200, child_chars=300)
    chunks = chunk_document("d", parsed, config)
    parents = [c for c in chunks if c.kind is ChunkKind.PARENT]
    children = [c for c in chunks if c.kind is ChunkKind.CHILD]
    squash = lambda s: "".join(s.split())  # noqa: E731
    assert squash("".join(p.text for p in parents)) == squash("".join(
        b for sec in sections for b in sec))
    for parent in parents:
        kids = [c for c in children if c.parent_id == parent.id]
        assert kids
        assert squash("".join(k.text for k in kids)) == squash(parent.text)
        assert all(k.heading_path == parent.heading_path for k in kids)
    assert all(len(c.text) <= config.child_chars * 1.3 for c in children)
