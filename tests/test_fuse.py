from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abstain.evidence import ArmHit
from abstain.fuse import collapse, max_fused_score, rrf


def arm(ids: list[str]) -> list[ArmHit]:
    return [ArmHit(chunk_id=c, rank=i, score=float(i)) for i, c in enumerate(ids, start=1)]


def test_seed_example_order_and_scores() -> None:
    fused = rrf(arm(["A", "B", "C"]), arm(["C", "A", "D"]))
    assert [f.chunk_id for f in fused] == ["A", "C", "B", "D"]
    assert fused[0].fused_score == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1].fused_score == pytest.approx(1 / 63 + 1 / 61)
    assert fused[2].fused_score == pytest.approx(1 / 62)
    a = fused[0]
    assert (a.vector_rank, a.keyword_rank, a.in_both) == (1, 2, True)
    b = fused[2]
    assert (b.vector_rank, b.keyword_rank, b.in_both) == (2, None, False)


ids = st.lists(st.sampled_from([f"c{i}" for i in range(15)]), unique=True, max_size=12)


@given(ids, ids)
def test_rrf_properties(vector: list[str], keyword: list[str]) -> None:
    fused = rrf(arm(vector), arm(keyword))
    assert {f.chunk_id for f in fused} == set(vector) | set(keyword)
    scores = [f.fused_score for f in fused]
    assert scores == sorted(scores, reverse=True)
    for f in fused:
        expected = sum(1 / (60 + lst.index(f.chunk_id) + 1)
                       for lst in (vector, keyword) if f.chunk_id in lst)
        assert f.fused_score == pytest.approx(expected)
        assert f.in_both == (f.chunk_id in vector and f.chunk_id in keyword)
        assert f.fused_score <= max_fused_score() + 1e-12
    swapped = rrf(arm(keyword), arm(vector))  # the same scores; a tie's order is the arm's
    assert sorted((f.chunk_id, round(f.fused_score, 12)) for f in swapped) == sorted(
        (f.chunk_id, round(f.fused_score, 12)) for f in fused)


def test_a_tie_puts_the_keyword_arms_hit_first_whatever_the_ids() -> None:
    """A chunk only the vector arm found at rank r and one only the keyword arm found at
    rank r score the same; the order was their ids' (hashes of where the files lie), so the
    same documents in another folder could answer otherwise (a test passed in one clone's
    folder and failed in another's)."""
    for vec_id, kw_id in (("a", "b"), ("b", "a")):
        fused = rrf(arm([vec_id]), arm([kw_id]))
        assert [f.chunk_id for f in fused] == [kw_id, vec_id]


@given(st.lists(st.tuples(st.sampled_from(["p1", "p2", "p3", "c1", "c2"]),
                          st.sampled_from([None, "c1", "c2", "c3"])), max_size=20))
def test_collapse_keeps_first_occurrence_per_target(rows: list[tuple[str, str | None]]) -> None:
    hits = [ArmHit(chunk_id=cid, rank=i, score=-i, collapse_to=to)
            for i, (cid, to) in enumerate(rows, start=1)]
    out = collapse(hits)
    targets = [h.chunk_id for h in out]
    assert len(targets) == len(set(targets))
    assert [h.rank for h in out] == list(range(1, len(out) + 1))
    expected: list[str] = []
    for h in hits:
        if h.target not in expected:
            expected.append(h.target)
    assert targets == expected
    assert [h.score for h in out] == [next(x.score for x in hits if x.target == t)
                                      for t in targets]


def test_paraphrases_do_not_vote_twice() -> None:
    vector = [ArmHit("q1", 1, 0.1, "c1"), ArmHit("q2", 2, 0.2, "c1"), ArmHit("c2", 3, 0.3)]
    keyword = [ArmHit("q3", 1, 5.0, "c1"), ArmHit("c1", 2, 4.0), ArmHit("c2", 3, 3.0)]
    fused = rrf(collapse(vector), collapse(keyword))
    by_id = {f.chunk_id: f for f in fused}
    assert set(by_id) == {"c1", "c2"}
    assert by_id["c1"].fused_score == pytest.approx(1 / 61 + 1 / 61)
    assert by_id["c2"].fused_score == pytest.approx(1 / 62 + 1 / 62)


def test_negative_k_is_rejected() -> None:
    with pytest.raises(ValueError):
        rrf([], [], k=-1)
