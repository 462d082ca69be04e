"""Dense retrieval: FAISS inner product over L2-normalised vectors (cosine), with a row filter.

Up to APPROXIMATE_ABOVE vectors the search is exact (IndexFlatIP); above it, an HNSW graph (IndexHNSWFlat) answers
in a few milliseconds at the cost of a recall below 1, which `python bench/dense_recall.py` measures against the
exact search.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from indexer.index.layout import Layout

APPROXIMATE_ABOVE = 50_000
HNSW_M = 32  # graph degree
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 128  # candidates explored per query: the recall/latency knob


class DenseIndex:
    """Vectors for a subset of chunk rows (boilerplate is not embedded). ``rows[i]`` is vector i's chunk row."""

    def __init__(self, index: Any, rows: np.ndarray) -> None:
        self._index = index
        self.rows = rows.astype(np.int64)
        self._position = {int(row): pos for pos, row in enumerate(self.rows)}

    def holds(self, row: int) -> bool:
        """Whether chunk ``row`` has a vector (boilerplate and contents pages have none)."""
        return row in self._position

    @classmethod
    def build(
        cls, vectors: np.ndarray, rows: np.ndarray, dim: int, approximate_above: int = APPROXIMATE_ABOVE
    ) -> DenseIndex:
        import faiss

        index: Any
        if len(vectors) > approximate_above:
            index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        else:
            index = faiss.IndexFlatIP(dim)
        if len(vectors):
            index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        return cls(index, rows)

    @property
    def approximate(self) -> bool:
        return not isinstance(self._index, self._flat_type())

    @staticmethod
    def _flat_type() -> type:
        import faiss

        return faiss.IndexFlatIP  # type: ignore[no-any-return]

    def save(self, folder: Path) -> None:
        import faiss

        layout = Layout(folder)
        faiss.write_index(self._index, str(layout.dense))
        np.save(layout.dense_rows, self.rows)

    @classmethod
    def load(cls, folder: Path) -> DenseIndex:
        import faiss

        layout = Layout(folder)
        return cls(faiss.read_index(str(layout.dense)), np.load(layout.dense_rows))

    @property
    def size(self) -> int:
        return int(self._index.ntotal)

    @property
    def dim(self) -> int:
        """How many dimensions the stored vectors have."""
        return int(self._index.d)

    def vectors(self) -> np.ndarray:
        if self.size == 0:
            return np.empty((0, 0), dtype=np.float32)
        return np.asarray(self._index.reconstruct_n(0, self.size))

    def top_k(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Chunk rows of the ``k`` nearest vectors, best first, restricted to ``allowed`` chunk rows if given."""
        import faiss

        if self.size == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        params = None
        if allowed is not None:
            positions = np.array([self._position[int(r)] for r in allowed if int(r) in self._position], dtype=np.int64)
            if positions.size == 0:
                return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
            selector = faiss.IDSelectorBatch(positions)
            if self.approximate:
                params = faiss.SearchParametersHNSW(sel=selector, efSearch=max(HNSW_EF_SEARCH, k))  # type: ignore[attr-defined]
            else:
                params = faiss.SearchParameters(sel=selector)  # type: ignore[call-arg]
            k = min(k, int(positions.size))
        elif self.approximate:
            params = faiss.SearchParametersHNSW(efSearch=max(HNSW_EF_SEARCH, k))  # type: ignore[attr-defined]
        k = min(k, self.size)
        scores, ids = self._index.search(q, k, params=params)
        keep = ids[0] >= 0
        return self.rows[ids[0][keep]], scores[0][keep].astype(np.float32)
