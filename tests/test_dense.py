"""Dense search: exact below the threshold, HNSW above it, with the row filter and save/load on both."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from indexer.index.dense import DenseIndex


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_approximate_search_agrees_with_exact_search(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    vectors = _unit(rng, 4000, 48)
    rows = np.arange(4000, dtype=np.int64) * 3  # vector i is chunk row 3i
    exact = DenseIndex.build(vectors, rows, 48)
    approx = DenseIndex.build(vectors, rows, 48, approximate_above=1000)
    assert not exact.approximate and approx.approximate
    approx.save(tmp_path)
    loaded = DenseIndex.load(tmp_path)
    assert loaded.approximate and loaded.size == 4000
    queries = vectors[:200] + 0.2 * _unit(rng, 200, 48)
    recall = np.mean([len(set(exact.top_k(q, 10)[0]) & set(loaded.top_k(q, 10)[0])) / 10 for q in queries])
    assert recall >= 0.95
    allowed = rows[rows % 2 == 0][:500]
    found, scores = loaded.top_k(queries[0], 10, allowed)
    assert len(found) == 10 and set(found) <= set(allowed.tolist())
    assert list(scores) == sorted(scores, reverse=True)
