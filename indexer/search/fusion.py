"""Rank fusion. Weighted reciprocal-rank fusion: score(d) = Σ_i w_i / (k + rank_i(d)), ranks from 1."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from indexer.search.recipe import DEFAULT_RECIPE

RRF_K = DEFAULT_RECIPE.rrf_k


@dataclass(frozen=True)
class RankedList:
    """One retriever's result rows, best first, and its weight in the fusion."""

    name: str
    rows: Sequence[int]
    weight: float = 1.0


def reciprocal_rank_fusion(lists: Sequence[RankedList], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fused (row, score) pairs, best first; ties keep the order in which rows were first seen."""
    scores: dict[int, float] = {}
    for ranked in lists:
        for rank, row in enumerate(ranked.rows, start=1):
            scores[row] = scores.get(row, 0.0) + ranked.weight / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])
