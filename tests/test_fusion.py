import pytest

from indexer.search.fusion import RankedList, reciprocal_rank_fusion

RRF_K = 60


def test_rrf_sums_weighted_reciprocal_ranks() -> None:
    fused = dict(reciprocal_rank_fusion([RankedList("bm25", [7, 3], 0.7), RankedList("dense", [3, 9], 0.3)], RRF_K))
    assert fused[3] == pytest.approx(0.7 / (RRF_K + 2) + 0.3 / (RRF_K + 1))
    assert fused[7] == pytest.approx(0.7 / (RRF_K + 1))
    assert fused[9] == pytest.approx(0.3 / (RRF_K + 2))


def test_a_row_in_both_lists_beats_a_row_in_one() -> None:
    fused = reciprocal_rank_fusion([RankedList("bm25", [1, 2]), RankedList("dense", [2, 3])], RRF_K)
    assert [row for row, _ in fused] == [2, 1, 3]


def test_empty_lists_fuse_to_nothing() -> None:
    assert reciprocal_rank_fusion([RankedList("bm25", []), RankedList("dense", [])], RRF_K) == []
