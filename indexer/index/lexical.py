"""BM25 over chunk tokens with bm25s (sparse matrices), with an optional row filter at query time."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Bm25Settings:
    method: str = "lucene"
    k1: float = 1.2
    b: float = 0.75

    def as_dict(self) -> dict[str, object]:
        return {"engine": "bm25s", "method": self.method, "k1": self.k1, "b": self.b}


def top_rows(scores: np.ndarray, k: int, allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the ``k`` highest positive scores (best first, equal scores by ascending row), restricted to
    ``allowed`` rows if given."""
    if allowed is not None:
        masked = np.full_like(scores, -np.inf)
        masked[allowed] = scores[allowed]
        scores = masked
    positive = np.flatnonzero(scores > 0)
    if positive.size == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    if positive.size > k:  # the k best; of those tied with the k-th, the lowest rows (every backend breaks ties so)
        threshold = scores[positive[np.argpartition(-scores[positive], k - 1)[:k]]].min()
        above = positive[scores[positive] > threshold]
        tied = positive[scores[positive] == threshold]
        positive = np.concatenate([above, tied[: k - above.size]])
    order = positive[np.argsort(-scores[positive], kind="stable")]  # equal scores: ascending rows
    return order.astype(np.int64), scores[order].astype(np.float32)


ROWS_FILE = "rows.npy"


def idf(texts: int, frequency: int) -> float:
    """BM25's inverse document frequency, as Lucene computes it: a term in ``frequency`` of ``texts`` texts."""
    return math.log(1 + (texts - frequency + 0.5) / (frequency + 0.5))


class Bm25Index:
    """BM25 over some of an index's chunks (``rows``: their chunk rows), scored in chunk-row space.

    An index keeps two: one over passages and one over table rows, so that thousands of short table rows
    change neither the passages' IDF and length normalisation nor their place in the passage ranking.
    """

    def __init__(self, retriever: object, rows: np.ndarray, size: int) -> None:
        self._retriever = retriever
        self.rows = rows
        self.size = size  # chunk rows in the whole index
        self._vocab: dict[str, int] = getattr(retriever, "vocab_dict", {}) or {}

    @classmethod
    def build(
        cls,
        corpus_tokens: list[list[str]],
        settings: Bm25Settings,
        rows: np.ndarray | None = None,
        size: int | None = None,
    ) -> Bm25Index:
        """Index ``corpus_tokens``, the documents at chunk ``rows`` (default 0..n-1) of an index of ``size``."""
        import bm25s

        retriever = bm25s.BM25(method=settings.method, k1=settings.k1, b=settings.b)
        # bm25s cannot index an empty corpus or an all-empty document list; a placeholder token keeps rows aligned.
        safe = [tokens if tokens else ["\u2400"] for tokens in corpus_tokens] or [["\u2400"]]
        # Token ids from the sorted vocabulary: bm25s numbers tokens in set order, which changes from run to run,
        # so two builds of the same files would write different files (and manifests that hash differently).
        vocabulary = {token: i for i, token in enumerate(sorted({token for tokens in safe for token in tokens}))}
        retriever.index(([[vocabulary[t] for t in tokens] for tokens in safe], vocabulary), show_progress=False)
        rows = np.arange(len(corpus_tokens), dtype=np.int64) if rows is None else rows.astype(np.int64)
        return cls(retriever, rows, len(corpus_tokens) if size is None else size)

    def save(self, folder: Path) -> None:
        self._retriever.save(str(folder), show_progress=False)  # type: ignore[attr-defined]
        np.save(folder / ROWS_FILE, self.rows)

    @classmethod
    def load(cls, folder: Path, size: int, *, mmap: bool = False) -> Bm25Index:
        import bm25s

        retriever = bm25s.BM25.load(str(folder), mmap=mmap, show_progress=False)
        rows_file = folder / ROWS_FILE
        rows = np.load(rows_file) if rows_file.exists() else np.arange(size, dtype=np.int64)
        return cls(retriever, rows, size)

    def knows(self, token: str) -> bool:
        """Whether any text of this BM25 contains ``token``."""
        return token in self._vocab

    def held(self, row: int, tokens: set[str]) -> set[str]:
        """Which of ``tokens`` chunk ``row``'s text holds, read off the postings (no tokenizing); none if this BM25
        does not cover the row."""
        pos = int(np.searchsorted(self.rows, row))
        if pos >= self.rows.size or self.rows[pos] != row:
            return set()
        postings = getattr(self._retriever, "scores", None)
        if not isinstance(postings, dict):
            return set()
        indptr, indices = postings["indptr"], postings["indices"]
        found = set()
        for token in tokens:
            column = self._vocab.get(token)
            if column is None:
                continue
            docs = indices[indptr[column] : indptr[column + 1]]  # sorted document positions
            at = int(np.searchsorted(docs, pos))
            if at < len(docs) and docs[at] == pos:
                found.add(token)
        return found

    def held_counts(self, rows: np.ndarray, tokens: set[str]) -> np.ndarray:
        """How many of ``tokens`` each chunk of ``rows`` holds, read off the postings at once (a search asks this of
        hundreds of candidates: one binary search per token over them all, not one per token and candidate)."""
        counts = np.zeros(rows.size, dtype=np.int64)
        postings = getattr(self._retriever, "scores", None)
        if not rows.size or not self.rows.size or not isinstance(postings, dict):
            return counts
        positions = np.searchsorted(self.rows, rows)
        covered = positions < self.rows.size
        covered[covered] &= self.rows[positions[covered]] == rows[covered]
        indptr, indices = postings["indptr"], postings["indices"]
        for token in tokens:
            column = self._vocab.get(token)
            if column is None:
                continue
            docs = np.asarray(indices[indptr[column] : indptr[column + 1]])  # sorted document positions
            if not docs.size:
                continue
            at = np.minimum(np.searchsorted(docs, positions), docs.size - 1)
            counts += covered & (docs[at] == positions)
        return counts

    def rarity(self, tokens: list[str]) -> dict[str, float]:
        """The BM25 IDF of each of ``tokens`` that some text holds (Lucene's: log(1 + (N - df + 0.5) / (df + 0.5)),
        read off the postings)."""
        postings = getattr(self._retriever, "scores", None)
        indptr = postings["indptr"] if isinstance(postings, dict) else None
        found = {}
        for token in tokens:
            column = self._vocab.get(token)
            if column is not None:
                frequency = int(indptr[column + 1] - indptr[column]) if indptr is not None else 1
                found[token] = idf(self.rows.size, frequency)
        return found

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        """A score for every chunk row of the index (0 for rows this BM25 does not cover)."""
        known = [t for t in query_tokens if t in self._vocab]
        out = np.zeros(self.size, dtype=np.float32)
        if not known or self.rows.size == 0:
            return out
        raw = self._retriever.get_scores(known)  # type: ignore[attr-defined]
        out[self.rows] = np.asarray(raw, dtype=np.float32)[: self.rows.size]
        return out

    def top_k(
        self, query_tokens: list[str], k: int, allowed: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        return top_rows(self.scores(query_tokens), k, allowed)
