"""The Store conformance suite: every implementation passes these same tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from abstain.errors import EmbedderMismatch
from abstain.evidence import Chunk, ChunkKind, Document
from abstain.stores.base import EmbedderInfo, Store

EMB = EmbedderInfo("unit-test-4d", 4)


def _doc(doc_id: str, ws: str = "a", source: str | None = None, *, published: bool = True,
         curated: bool = False, content_hash: str = "h1") -> Document:
    return Document(doc_id, ws, source or f"{doc_id}.md", f"Title {doc_id}", content_hash,
                    curated=curated, published=published, metadata={"k": "v"})


def _chunks(doc_id: str, texts: list[str], paraphrases: dict[int, str] | None = None
            ) -> list[Chunk]:
    parent = Chunk(f"{doc_id}-p0", doc_id, ChunkKind.PARENT, "\n\n".join(texts), 0, None, ("H",))
    out = [parent]
    for i, text in enumerate(texts):
        out.append(Chunk(f"{doc_id}-c{i}", doc_id, ChunkKind.CHILD, text, i, parent.id, ("H",)))
    for i, (child, text) in enumerate((paraphrases or {}).items()):
        out.append(Chunk(f"{doc_id}-q{i}", doc_id, ChunkKind.PARAPHRASE, text, i,
                         f"{doc_id}-c{child}", ("H",)))
    return out


def _unit(*rows: list[float]) -> np.ndarray:
    m = np.array(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _write(store: Store, doc: Document, texts: list[str], vectors: np.ndarray,
           paraphrases: dict[int, str] | None = None, idents: tuple[str, ...] = ()) -> None:
    store.write_document(doc, _chunks(doc.id, texts, paraphrases), vectors, EMB, idents)


def test_empty_store_has_nothing(store: Store) -> None:
    assert store.list_documents() == []
    assert store.workspaces() == []
    assert store.embedder() is None
    assert store.search_text("anything", workspace="a", limit=5) == []
    assert store.search_vector(_unit([1, 0, 0, 0])[0], workspace="a", limit=5) == []


def test_write_then_read_back(store: Store) -> None:
    _write(store, _doc("d1"), ["alpha beta", "gamma delta"], _unit([1, 0, 0, 0], [0, 1, 0, 0]),
           idents=("ADR-0001", "E1001"))
    docs = store.list_documents("a")
    assert [(d.id, d.source, d.chunks, d.published, d.curated) for d in docs] == [
        ("d1", "d1.md", 2, True, False)]
    assert store.workspaces() == ["a"]
    assert store.embedder() == EMB
    assert store.document_hash("a", "d1.md") == "h1"
    assert store.document_hash("b", "d1.md") is None
    assert sorted(store.identifiers("a")) == ["ADR-0001", "E1001"]
    got = store.get_chunks(["d1-c1", "d1-p0", "missing"])
    assert set(got) == {"d1-c1", "d1-p0"}
    c1 = got["d1-c1"]
    assert c1.chunk.text == "gamma delta"
    assert c1.chunk.kind is ChunkKind.CHILD
    assert c1.chunk.parent_id == "d1-p0"
    assert c1.chunk.heading_path == ("H",)
    assert c1.parent_text == "alpha beta\n\ngamma delta"
    assert c1.document.title == "Title d1"
    assert c1.document.metadata == {"k": "v"}


def test_vector_search_orders_by_cosine_distance(store: Store) -> None:
    _write(store, _doc("d1"), ["one", "two", "three"],
           _unit([1, 0, 0, 0], [0.8, 0.6, 0, 0], [0, 0, 1, 0]))
    hits = store.search_vector(_unit([1, 0.1, 0, 0])[0], workspace="a", limit=2)
    assert [h.chunk_id for h in hits] == ["d1-c0", "d1-c1"]
    assert [h.rank for h in hits] == [1, 2]
    assert hits[0].score == pytest.approx(1 - 0.99503719, abs=1e-5)
    assert hits[0].score < hits[1].score


def test_text_search_matches_prefix_stem_and_folded_diacritics(store: Store) -> None:
    _write(store, _doc("d1"), ["Zoë Müller runs the café",
                               "replication policies apply to configuration",
                               "unrelated words here"],
           _unit([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]))
    assert [h.chunk_id for h in store.search_text("muller cafe", workspace="a", limit=5)] == [
        "d1-c0"]
    assert [h.chunk_id for h in store.search_text("config", workspace="a", limit=5)] == [
        "d1-c1"]
    assert [h.chunk_id for h in store.search_text("policy", workspace="a", limit=5)] == ["d1-c1"]
    hits = store.search_text("cafe replication", workspace="a", limit=5)
    assert {h.chunk_id for h in hits} == {"d1-c0", "d1-c1"}
    assert [h.rank for h in hits] == [1, 2]
    assert hits[0].score >= hits[1].score


def test_a_one_letter_flag_is_searched_whole(store: Store) -> None:
    """``-l`` is no content word: only its letter, searched whole (not every word in "l…"),
    finds the line that defines it."""
    from abstain.query import KeywordQuery

    _write(store, _doc("d1"), ["-c, --count: print a count of matching lines for each file",
                               "-l, --files-with-matches: print only the name of each file",
                               "large listings are loaded lazily"],
           _unit([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]))
    assert store.search_text(KeywordQuery.of("grep -l?"), workspace="a", limit=5) == []
    flagged = store.search_text(KeywordQuery.of("grep -l?", ["-l"]), workspace="a", limit=5)
    assert [h.chunk_id for h in flagged] == ["d1-c1"]


@pytest.mark.parametrize("text", ['"', "a AND OR NOT (", "col:val*", "^*)(-+", "NEAR(a b)",
                                  "'; DROP TABLE chunks; --", "\x00\x01", "", "   ", "∑∂√"])
def test_text_search_never_fails_on_user_text(store: Store, text: str) -> None:
    _write(store, _doc("d1"), ["some text"], _unit([1, 0, 0, 0]))
    assert isinstance(store.search_text(text, workspace="a", limit=5), list)


def test_workspaces_are_isolated(store: Store) -> None:
    _write(store, _doc("d1", "a"), ["shared words"], _unit([1, 0, 0, 0]))
    _write(store, _doc("d2", "b"), ["shared words"], _unit([1, 0, 0, 0]))
    for ws, doc in (("a", "d1"), ("b", "d2")):
        assert [h.chunk_id for h in store.search_text("shared", workspace=ws, limit=5)] == [
            f"{doc}-c0"]
        assert [h.chunk_id for h in store.search_vector(_unit([1, 0, 0, 0])[0], workspace=ws,
                                                        limit=5)] == [f"{doc}-c0"]
        assert [d.id for d in store.list_documents(ws)] == [doc]
    assert store.search_text("shared", workspace="c", limit=5) == []
    assert not store.delete_document("b", "d1")
    assert [d.id for d in store.list_documents("a")] == ["d1"]


def test_unpublished_documents_are_hidden_unless_asked(store: Store) -> None:
    _write(store, _doc("d1", published=False), ["draft words"], _unit([1, 0, 0, 0]))
    q = _unit([1, 0, 0, 0])[0]
    assert store.search_text("draft", workspace="a", limit=5) == []
    assert store.search_vector(q, workspace="a", limit=5) == []
    assert len(store.search_text("draft", workspace="a", limit=5, published_only=False)) == 1
    assert len(store.search_vector(q, workspace="a", limit=5, published_only=False)) == 1
    assert store.set_published("a", "d1", True)
    assert len(store.search_vector(q, workspace="a", limit=5)) == 1
    assert len(store.search_text("draft", workspace="a", limit=5)) == 1


def test_rewrite_replaces_chunks_atomically(store: Store) -> None:
    _write(store, _doc("d1"), ["old text one", "old text two"], _unit([1, 0, 0, 0], [0, 1, 0, 0]))
    _write(store, _doc("d1", content_hash="h2"), ["new words"], _unit([0, 0, 1, 0]))
    assert store.document_hash("a", "d1.md") == "h2"
    assert store.search_text("old", workspace="a", limit=5) == []
    assert [h.chunk_id for h in store.search_text("new", workspace="a", limit=5)] == ["d1-c0"]
    hits = store.search_vector(_unit([1, 0, 0, 0])[0], workspace="a", limit=5)
    assert [h.chunk_id for h in hits] == ["d1-c0"]
    assert store.get_chunks(["d1-c1"]) == {}
    assert [d.chunks for d in store.list_documents("a")] == [1]


def test_failed_write_leaves_previous_version(store: Store) -> None:
    _write(store, _doc("d1"), ["kept text"], _unit([1, 0, 0, 0]))
    bad = EmbedderInfo("another-model", 4)
    with pytest.raises(EmbedderMismatch):
        store.write_document(_doc("d1", content_hash="h2"), _chunks("d1", ["lost"]),
                             _unit([0, 1, 0, 0]), bad)
    assert store.document_hash("a", "d1.md") == "h1"
    assert len(store.search_text("kept", workspace="a", limit=5)) == 1
    assert store.search_text("lost", workspace="a", limit=5) == []


def test_check_embedder_accepts_the_same_model_and_rejects_another(store: Store) -> None:
    store.check_embedder(EmbedderInfo("anything", 8))  # an empty store takes any model
    _write(store, _doc("d1"), ["text"], _unit([1, 0, 0, 0]))
    store.check_embedder(EMB)
    with pytest.raises(EmbedderMismatch, match="cannot be mixed"):
        store.check_embedder(EmbedderInfo("another-model", 4))


def test_mismatched_vector_count_is_rejected(store: Store) -> None:
    with pytest.raises(ValueError):
        store.write_document(_doc("d1"), _chunks("d1", ["a", "b"]), _unit([1, 0, 0, 0]), EMB)
    assert store.list_documents() == []


def test_delete_removes_from_both_arms(store: Store) -> None:
    _write(store, _doc("d1"), ["delete me"], _unit([1, 0, 0, 0]), idents=("E1001",))
    _write(store, _doc("d2"), ["keep me"], _unit([0, 1, 0, 0]))
    assert store.delete_document("a", "d1")
    assert not store.delete_document("a", "d1")
    assert [d.id for d in store.list_documents()] == ["d2"]
    assert store.search_text("delete", workspace="a", limit=5) == []
    assert [h.chunk_id for h in store.search_vector(_unit([1, 0, 0, 0])[0], workspace="a",
                                                    limit=5)] == ["d2-c0"]
    assert store.identifiers("a") == []


def test_paraphrases_are_searchable_and_point_at_their_child(store: Store) -> None:
    _write(store, _doc("d1"), ["the retention window is 30 days"], _unit([1, 0, 0, 0],
                                                                          [0, 1, 0, 0]),
           paraphrases={0: "how long are backups kept"})
    text = store.search_text("backups kept", workspace="a", limit=5)
    assert [(h.chunk_id, h.collapse_to) for h in text] == [("d1-q0", "d1-c0")]
    vec = store.search_vector(_unit([0, 1, 0, 0])[0], workspace="a", limit=1)
    assert [(h.chunk_id, h.collapse_to) for h in vec] == [("d1-q0", "d1-c0")]


def test_second_handle_sees_writes_of_the_first(make_store: Callable[[], Store]) -> None:
    first, second = make_store(), make_store()
    q = _unit([1, 0, 0, 0])[0]
    assert second.search_vector(q, workspace="a", limit=5) == []
    _write(first, _doc("d1"), ["visible"], _unit([1, 0, 0, 0]))
    assert [h.chunk_id for h in second.search_vector(q, workspace="a", limit=5)] == ["d1-c0"]
    first.delete_document("a", "d1")
    assert second.search_vector(q, workspace="a", limit=5) == []


def test_embedding_cache_round_trip(store: Store) -> None:
    v = _unit([1, 2, 3, 4])[0]
    store.cache_vectors("m", {"h1": v})
    got = store.cached_vectors("m", ["h1", "h2"])
    assert list(got) == ["h1"]
    np.testing.assert_allclose(got["h1"], v, rtol=1e-6)
    assert store.cached_vectors("other", ["h1"]) == {}


def test_limit_is_respected(store: Store) -> None:
    texts = [f"common word number {i}" for i in range(12)]
    vectors = _unit(*[[1, i / 10, 0, 0] for i in range(12)])
    _write(store, _doc("d1"), texts, vectors)
    assert len(store.search_text("common", workspace="a", limit=5)) == 5
    assert [h.rank for h in store.search_vector(vectors[0], workspace="a", limit=7)] == list(
        range(1, 8))


def test_term_counts_are_whole_word_stemmed_phrases_per_workspace(store: Store) -> None:
    _write(store, _doc("d1"), ["The QueuePool releases connections", "APP_CACHE_TTL sets the"
                               " cache lifetime", "queue pools are released"],
           _unit([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]))
    _write(store, _doc("d2", ws="b"), ["a queue in another workspace"], _unit([1, 1, 0, 0]))
    counts = store.term_counts("a", ["queuepool", "queue", "app cache ttl", "cache ttl app",
                                     "released", "missing", ""])
    assert counts.total == 3
    assert counts.counts == {"queuepool": 1, "queue": 1, "app cache ttl": 1,
                             "cache ttl app": 0, "released": 2, "missing": 0, "": 0}
    assert store.term_counts("b", ["queuepool", "queue"]).counts == {"queuepool": 0, "queue": 1}
    assert store.term_counts("nowhere", ["queue"]).total == 0


def test_a_compound_counts_only_where_its_words_are_written_as_one_token(store: Store) -> None:
    _write(store, _doc("d1"), ["Fixing proxy headers behind a load balancer",
                               "Run it with --keep-alive 5", "keep_alive = 5 in the file"],
           _unit([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]))
    counts = store.term_counts("a", ["proxy headers", "proxy-headers", "keep-alive"])
    assert counts.counts == {"proxy headers": 1, "proxy-headers": 0, "keep-alive": 2}


# -- document identity and staged (large) documents: issue 14 ---------------------------


def test_document_looks_up_by_source_with_its_origin(store: Store) -> None:
    doc = Document("d1", "a", "/p1/docs/a.md", "T", "h1", origin="file")
    store.write_document(doc, _chunks("d1", ["alpha"]), _unit([1, 0, 0, 0]), EMB)
    info = store.document("a", "/p1/docs/a.md")
    assert info is not None and (info.id, info.origin, info.content_hash) == ("d1", "file", "h1")
    assert store.document("a", "/p2/docs/a.md") is None
    assert store.document("b", "/p1/docs/a.md") is None
    assert [d.origin for d in store.list_documents("a")] == ["file"]


def _stage_two_batches(store: Store, doc: Document, staging_id: str) -> list[Chunk]:
    chunks = _chunks(doc.id, ["staged alpha", "staged bravo", "staged charlie"])
    store.stage_chunks(staging_id, doc, chunks[:2], _unit([1, 0, 0, 0]), EMB)
    store.stage_chunks(staging_id, doc, chunks[2:], _unit([0, 1, 0, 0], [0, 0, 1, 0]), EMB)
    return chunks


def test_staged_chunks_are_invisible_until_committed_then_replace_at_once(store: Store) -> None:
    _write(store, _doc("d1"), ["old words"], _unit([0, 0, 0, 1]), idents=("E1",))
    new = _doc("d1", content_hash="h2")
    chunks = _stage_two_batches(store, new, "d1/run1")
    q = _unit([1, 0, 0, 0])[0]
    assert store.search_text("staged", workspace="a", limit=5) == []
    assert [h.chunk_id for h in store.search_vector(q, workspace="a", limit=5)] == ["d1-c0"]
    assert store.document_hash("a", "d1.md") == "h1"
    store.commit_staged("d1/run1", new, EMB, ["E2"], expected_chunks=len(chunks))
    assert store.document_hash("a", "d1.md") == "h2"
    assert store.search_text("old", workspace="a", limit=5) == []
    assert {h.chunk_id for h in store.search_text("staged", workspace="a", limit=5)} == {
        "d1-c0", "d1-c1", "d1-c2"}
    assert [h.chunk_id for h in store.search_vector(q, workspace="a", limit=1)] == ["d1-c0"]
    assert store.get_chunks(["d1-c2"])["d1-c2"].parent_text == (
        "staged alpha\n\nstaged bravo\n\nstaged charlie")
    assert store.identifiers("a") == ["E2"]
    assert [d.chunks for d in store.list_documents("a")] == [3]
    assert store.discard_staged("d1") == 0  # the commit dropped its staging


def test_discarded_or_incomplete_staging_changes_nothing(store: Store) -> None:
    from abstain.errors import StoreError

    _write(store, _doc("d1"), ["old words"], _unit([0, 0, 0, 1]))
    new = _doc("d1", content_hash="h2")
    chunks = _stage_two_batches(store, new, "d1/run1")
    with pytest.raises(StoreError, match="ingest it again"):
        store.commit_staged("d1/run1", new, EMB, [], expected_chunks=len(chunks) + 1)
    assert store.discard_staged("d1") == len(chunks)
    with pytest.raises(StoreError):
        store.commit_staged("d1/run1", new, EMB, [], expected_chunks=len(chunks))
    assert store.document_hash("a", "d1.md") == "h1"
    assert [h.chunk_id for h in store.search_text("old", workspace="a", limit=5)] == ["d1-c0"]
    with pytest.raises(ValueError):
        store.stage_chunks("other/run", new, chunks[:1], _unit([1, 0, 0, 0])[:0], EMB)
