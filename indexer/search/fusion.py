"""Rank fusion. Weighted reciprocal-rank fusion: score(d) = Σ_i w_i / (k + rank_i(d)), ranks from 1."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Retriever = Literal["bm25", "dense"]
# What a list ranks: the question (or a variant of it) over every passage, over table rows (each voting for its
# passage), over CJK bigrams, or within a routed section (a bonus, not a view of every row).
Source = Literal["passages", "table_rows", "bigrams", "routed"]


@dataclass(frozen=True)
class RankedList:
    """One retriever's result rows, best first, and its weight in the fusion; ``detail`` says which variant of the
    question or which routed section it ranks (for reading, never parsed)."""

    retriever: Retriever
    rows: Sequence[int]
    weight: float = 1.0
    source: Source = "passages"
    detail: str = ""


def reciprocal_rank_fusion(lists: Sequence[RankedList], k: int) -> list[tuple[int, float]]:
    """Fused (row, score) pairs, best first; ties keep the order in which rows were first seen."""
    scores: dict[int, float] = {}
    for ranked in lists:
        for rank, row in enumerate(ranked.rows, start=1):
            scores[row] = scores.get(row, 0.0) + ranked.weight / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


def rescale_unranked(
    fused: list[tuple[int, float]], lists: Sequence[RankedList], retriever: Retriever, ranks: Callable[[int], bool]
) -> list[tuple[int, float]]:
    """Scores of rows that the ``retriever``'s lists could not rank (no vector: boilerplate the question asks
    for, a document not embedded yet) scaled up by the share of weight those lists hold, so that a row is judged
    by the lists that can see it instead of losing to every row that two kinds of list can vote for."""
    absent = sum(r.weight for r in lists if r.retriever == retriever)
    total = sum(r.weight for r in lists if r.source != "routed")
    if absent <= 0 or total <= absent:
        return fused
    scale = total / (total - absent)
    return [(row, score if ranks(row) else score * scale) for row, score in fused]
