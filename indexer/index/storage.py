"""Where the chunks are indexed for retrieval, behind the narrow interface search needs: ranked chunk rows for a
query's tokens (passages; table rows) and for a query vector, each restricted to allowed chunk rows.

``LocalStorage`` is the files in the index folder (bm25s + FAISS), the default; ``MilvusStorage``
(:mod:`indexer.index.milvus_storage`) is Milvus — milvus-lite, a milvus-lite server or a cluster — for an index built
with ``--backend milvus``. Fusion, routing, highlights, quotes, pages and PDFs stay above it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from indexer.index.dense import DenseIndex
from indexer.index.layout import Layout
from indexer.index.lexical import Bm25Index

# The storage engines, each named once: the index folder's own files, or Milvus (indexer/index/milvus_storage.py).
LOCAL, MILVUS = "local", "milvus"
BACKENDS = (LOCAL, MILVUS)
BM25_MMAP_ABOVE = 100_000  # chunks: a large index's BM25 matrices stay on disk, paged in as needed


class Storage(Protocol):
    @property
    def dense_search(self) -> bool:
        """Whether vectors are indexed (an index built with `--embedder none` has none)."""
        ...

    def passages(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray:
        """Chunk rows of the passages best matching ``tokens`` (BM25), best first."""
        ...

    def knows(self, token: str) -> bool:
        """Whether any passage contains ``token`` (a token of the index's tokenizer)."""
        ...

    def embedded(self, row: int) -> bool:
        """Whether chunk ``row`` can be found by the dense list (it has a vector)."""
        ...

    def held(self, row: int, tokens: set[str]) -> set[str]:
        """Which of ``tokens`` passage ``row`` holds (as BM25 indexed it)."""
        ...

    def held_counts(self, rows: np.ndarray, tokens: set[str]) -> np.ndarray:
        """How many of ``tokens`` each passage of ``rows`` holds (:meth:`held`, counted, for many rows at once)."""
        ...

    def rarity(self, tokens: list[str]) -> dict[str, float]:
        """The BM25 IDF over the passages of each of ``tokens`` that some passage holds."""
        ...

    def table_rows(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray | None:
        """Chunk rows of the table rows best matching ``tokens`` (their own BM25), or None if not indexed."""
        ...

    def bigrams(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray:
        """Chunk rows of the passages best matching CJK bigram ``tokens`` (their own BM25), best first."""
        ...

    def nearest(self, vector: np.ndarray, depth: int, allowed: np.ndarray | None) -> np.ndarray:
        """Chunk rows of the vectors nearest ``vector``, best first."""
        ...


@dataclass(frozen=True)
class LocalStorage:
    """bm25s over passages, over table rows and over the passages' CJK bigrams, FAISS over the embedded passages:
    files of the index folder."""

    bm25: Bm25Index
    bm25_rows: Bm25Index | None  # None in an index built before tables were indexed
    bm25_bigrams: Bm25Index
    dense: DenseIndex | None  # None without an embedder

    @classmethod
    def load(cls, folder: Path, chunk_count: int, with_dense: bool) -> LocalStorage:
        layout = Layout(folder)
        mmap = chunk_count > BM25_MMAP_ABOVE
        rows = layout.table_rows_bm25
        return cls(
            bm25=Bm25Index.load(layout.bm25, chunk_count, mmap=mmap),
            bm25_rows=Bm25Index.load(rows, chunk_count, mmap=mmap) if rows.exists() else None,
            bm25_bigrams=Bm25Index.load(layout.bigrams_bm25, chunk_count, mmap=mmap),
            dense=DenseIndex.load(folder) if with_dense else None,
        )

    @property
    def dense_search(self) -> bool:
        return self.dense is not None

    def passages(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray:
        return self.bm25.top_k(tokens, depth, allowed)[0]

    def embedded(self, row: int) -> bool:
        return self.dense is not None and self.dense.holds(row)

    def knows(self, token: str) -> bool:
        return self.bm25.knows(token)

    def held(self, row: int, tokens: set[str]) -> set[str]:
        return self.bm25.held(row, tokens)

    def held_counts(self, rows: np.ndarray, tokens: set[str]) -> np.ndarray:
        return self.bm25.held_counts(rows, tokens)

    def rarity(self, tokens: list[str]) -> dict[str, float]:
        return self.bm25.rarity(tokens)

    def table_rows(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray | None:
        return None if self.bm25_rows is None else self.bm25_rows.top_k(tokens, depth, allowed)[0]

    def bigrams(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray:
        return self.bm25_bigrams.top_k(tokens, depth, allowed)[0]

    def nearest(self, vector: np.ndarray, depth: int, allowed: np.ndarray | None) -> np.ndarray:
        if self.dense is None:
            return np.empty(0, dtype=np.int64)
        return self.dense.top_k(vector, depth, allowed)[0]
