import pytest

from indexer.search.fusion import RRF_K, RankedList, reciprocal_rank_fusion, term_coverage, trust_by_coverage


def test_rrf_sums_weighted_reciprocal_ranks() -> None:
    fused = dict(reciprocal_rank_fusion([RankedList("bm25", [7, 3], 0.7), RankedList("dense", [3, 9], 0.3)]))
    assert fused[3] == pytest.approx(0.7 / (RRF_K + 2) + 0.3 / (RRF_K + 1))
    assert fused[7] == pytest.approx(0.7 / (RRF_K + 1))
    assert fused[9] == pytest.approx(0.3 / (RRF_K + 2))


def test_a_row_in_both_lists_beats_a_row_in_one() -> None:
    fused = reciprocal_rank_fusion([RankedList("bm25", [1, 2]), RankedList("dense", [2, 3])])
    assert [row for row, _ in fused] == [2, 1, 3]


def test_empty_lists_fuse_to_nothing() -> None:
    assert reciprocal_rank_fusion([RankedList("bm25", []), RankedList("dense", [])]) == []


def test_term_coverage_is_the_best_passage_share_of_key_terms() -> None:
    wanted = {"buyback", "share", "announc"}
    assert term_coverage(wanted, [{"share"}, {"share", "buyback", "price"}]) == pytest.approx(2 / 3)
    assert term_coverage(wanted, []) == 0.0 and term_coverage(set(), [{"x"}]) == 1.0


def test_weight_moves_to_the_dense_list_when_bm25_found_few_key_terms() -> None:
    lists = [RankedList("bm25:original", [1, 2], 0.5), RankedList("dense:original", [3, 1], 0.5)]
    assert trust_by_coverage(lists, 0.9, full=0.8, floor=0.3) == lists  # BM25 found the terms: unchanged
    moved = {r.name: r.weight for r in trust_by_coverage(lists, 0.4, full=0.8, floor=0.3)}
    assert moved == pytest.approx({"bm25:original": 0.25, "dense:original": 0.75})  # the total stays 1
    apart = [RankedList("bm25:original", [1, 2], 0.5), RankedList("dense:original", [3, 4], 0.5)]
    assert reciprocal_rank_fusion(apart)[0][0] == 1  # a tie goes to the row seen first
    assert reciprocal_rank_fusion(trust_by_coverage(apart, 0.0, 0.8, 0.3))[0][0] == 3  # the dense page leads
    lexical_only = [RankedList("bm25:original", [1], 1.0)]
    assert trust_by_coverage(lexical_only, 0.0, 0.8, 0.3) == lexical_only  # nothing to move weight to
