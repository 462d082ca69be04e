"""Rank fusion. Weighted reciprocal-rank fusion: score(d) = Σ_i w_i / (k + rank_i(d)), ranks from 1."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from indexer.search.recipe import DEFAULT_RECIPE

RRF_K = DEFAULT_RECIPE.rrf_k
ROUTED = "bm25:routed"  # lists within the question's routed sections: a bonus, not a view of every row


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


def rescale_unranked(
    fused: list[tuple[int, float]], lists: Sequence[RankedList], prefix: str, ranks: Callable[[int], bool]
) -> list[tuple[int, float]]:
    """Scores of rows that the lists named ``prefix…`` could not rank (no vector: boilerplate the question asks
    for, a document not embedded yet) scaled up by the share of weight those lists hold, so that a row is judged
    by the lists that can see it instead of losing to every row that two kinds of list can vote for."""
    absent = sum(r.weight for r in lists if r.name.startswith(prefix))
    total = sum(r.weight for r in lists if not r.name.startswith(ROUTED))
    if absent <= 0 or total <= absent:
        return fused
    scale = total / (total - absent)
    return [(row, score if ranks(row) else score * scale) for row, score in fused]


def term_coverage(wanted: set[str], passages: Sequence[set[str]]) -> float:
    """The largest share of the question's key terms that one of the best BM25 passages holds (1.0 without key
    terms): how far the lexical list can be trusted to have found what was asked."""
    if not wanted:
        return 1.0
    return max((len(wanted & tokens) / len(wanted) for tokens in passages), default=0.0)


def trust_by_coverage(lists: Sequence[RankedList], coverage: float, full: float, floor: float) -> list[RankedList]:
    """Weights moved from the BM25 lists to the dense ones when BM25's best passages hold few of the question's
    key terms (``coverage`` below ``full``): BM25's weight is scaled by coverage / full (never under ``floor``) and
    the dense lists gain what it lost, so the total stays the same and a dense-only page can lead."""
    if coverage >= full or not any(r.name.startswith("dense") for r in lists):
        return list(lists)
    scale = max(floor, coverage / full)
    lexical = sum(r.weight for r in lists if r.name.startswith("bm25"))
    dense = sum(r.weight for r in lists if r.name.startswith("dense"))
    gain = 1 + lexical * (1 - scale) / dense if dense > 0 else 1.0
    return [
        RankedList(
            r.name,
            r.rows,
            r.weight * (scale if r.name.startswith("bm25") else gain if r.name.startswith("dense") else 1),
        )
        for r in lists
    ]
