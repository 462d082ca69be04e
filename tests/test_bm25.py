"""BM25 scores checked against rank_bm25 as the reference implementation.

bm25s scores term frequency as tf / (tf + k1·(1 - b + b·dl/avgdl)), Lucene 8's form; rank_bm25 multiplies
that by (k1 + 1). The constant factor changes no ranking, so the oracle is: ours × (k1 + 1) == reference.
"""

import math

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from indexer.index.lexical import Bm25Index, Bm25Settings, top_rows

CORPUS = [
    "营业收入 同比 下降 营业收入 2019",
    "net revenue increased revenue growth segment",
    "capital expenditures property equipment cash flow",
    "归母净利润 同比 下降 利润",
    "revenue comparable sales decreased quarter",
    "gross margin rate improved quarter",
    "cash flow operating activities investing financing",
]
TOKENS = [doc.split() for doc in CORPUS]


class LuceneReference(BM25Okapi):  # type: ignore[misc]
    """rank_bm25's BM25Okapi with Lucene's always-positive idf, log(1 + (N - n + 0.5) / (n + 0.5))."""

    def _calc_idf(self, nd):  # type: ignore[no-untyped-def]
        self.idf = {word: math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5)) for word, freq in nd.items()}


@pytest.mark.parametrize("query", [["revenue"], ["同比", "下降"], ["cash", "flow", "quarter"], ["营业收入", "revenue"]])
def test_lucene_scores_equal_the_reference(query: list[str]) -> None:
    ours = Bm25Index.build(TOKENS, Bm25Settings(method="lucene", k1=1.2, b=0.75)).scores(query)
    reference = LuceneReference(TOKENS, k1=1.2, b=0.75).get_scores(query)
    assert reference.max() > 0
    np.testing.assert_allclose(ours * (1.2 + 1), reference, rtol=1e-5, atol=1e-6)


def test_robertson_scores_equal_bm25okapi_when_idf_is_positive() -> None:
    query = ["capital", "margin", "归母净利润"]  # each in fewer than half the documents, so no idf floor applies
    ours = Bm25Index.build(TOKENS, Bm25Settings(method="robertson", k1=1.5, b=0.75)).scores(query)
    reference = BM25Okapi(TOKENS, k1=1.5, b=0.75).get_scores(query)
    assert reference.max() > 0
    np.testing.assert_allclose(ours * (1.5 + 1), reference, rtol=1e-5, atol=1e-6)


def test_unknown_query_terms_score_zero_and_filters_apply() -> None:
    index = Bm25Index.build(TOKENS, Bm25Settings())
    assert not index.scores(["nonexistent"]).any()
    rows, _ = index.top_k(["revenue"], 10)
    assert rows.tolist()[:1] == [1]
    rows, _ = index.top_k(["revenue"], 10, allowed=np.array([4, 5]))
    assert rows.tolist() == [4]


def test_top_rows_orders_best_first_and_drops_zero() -> None:
    rows, scores = top_rows(np.array([0.0, 2.0, 5.0, 1.0], dtype=np.float32), 2, None)
    assert rows.tolist() == [2, 1] and scores.tolist() == [5.0, 2.0]


def test_a_memory_mapped_index_scores_the_same(tmp_path) -> None:  # type: ignore[no-untyped-def]
    built = Bm25Index.build(TOKENS, Bm25Settings())
    built.save(tmp_path / "bm25")
    mapped = Bm25Index.load(tmp_path / "bm25", len(TOKENS), mmap=True)
    query = ["revenue", "quarter", "营业收入"]
    assert mapped.scores(query).tolist() == built.scores(query).tolist()
    assert np.count_nonzero(mapped.scores(query)) >= 3


@pytest.mark.parametrize("mmap", [False, True])
def test_the_terms_a_row_holds_are_read_off_the_postings(tmp_path, mmap: bool) -> None:  # type: ignore[no-untyped-def]
    rows = np.array([3, 5, 8, 9, 12, 20, 21], dtype=np.int64)  # a BM25 over some rows of a 30-chunk index
    built = Bm25Index.build(TOKENS, Bm25Settings(), rows, 30)
    built.save(tmp_path)
    index = Bm25Index.load(tmp_path, 30, mmap=mmap)
    asked = {"revenue", "quarter", "同比", "nowhere"}
    for position, row in enumerate(rows.tolist()):
        assert index.held(row, asked) == asked & set(TOKENS[position]), row
    assert index.held(4, asked) == set() and index.held(29, asked) == set()  # rows it does not cover
    every_row = np.arange(30, dtype=np.int64)  # counted all at once: the same, and 0 for the rows it does not cover
    expected = [len(index.held(row, asked)) for row in every_row.tolist()]
    assert index.held_counts(every_row, asked).tolist() == expected and any(expected)
    assert index.held_counts(np.array([29, 3], dtype=np.int64), asked).tolist() == [0, len(asked & set(TOKENS[0]))]
