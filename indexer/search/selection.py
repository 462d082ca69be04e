"""After fusion: each chunk's score adjusted for its kind, section and filing, the hits chosen from the ranking (one
per page, no repeated text, two filings for a comparison, newest first for an anomaly), and each row's best rank in
the BM25 and dense lists."""

from __future__ import annotations

from collections.abc import Callable

from indexer.core.recipe import Recipe
from indexer.core.sections import parent_only
from indexer.core.statement_names import PRIMARY
from indexer.index.chunk_table import ChunkTable
from indexer.index.reader import LoadedIndex
from indexer.search.fusion import RankedList
from indexer.search.routing import Route

# The page labels of the group's primary statements (ingest/page_labels.py): below the parent's when it is asked for.
_GROUP_STATEMENTS = frozenset(PRIMARY)


def adjusted(
    chunks: ChunkTable,
    row: int,
    score: float,
    preferred: frozenset[str],
    sections: tuple[str, ...],
    recipe: Recipe,
    covered: Callable[[int], bool],
    parent_asked: bool,
) -> float:
    """``score`` for the chunk's kind, filing and section: a section the question is routed to counts only for a
    passage that ``covered`` (prints enough of the question); the parent company's own statements and notes rank
    below the group's unless the question asks for them (``parent_asked``), and then the group's statements rank
    below the parent's."""
    section = chunks.section(row)
    if section in sections and not covered(row):
        sections = ()
    if section not in sections:  # a certification or an exhibit index the question asks for is not demoted
        score *= recipe.demotion.get(chunks.kind(row), 1.0)
    if preferred and chunks.document(row) not in preferred:
        score *= recipe.other_document
    parent = parent_only(chunks.heading(row))
    if (not parent_asked and parent) or (parent_asked and not parent and section in _GROUP_STATEMENTS):
        score *= recipe.parent_only_share
    if section and section in sections:
        boost = recipe.section_boost
        score *= boost[min(sections.index(section), len(boost) - 1)]
    return score


def rescored(
    chunks: ChunkTable,
    fused: list[tuple[int, float]],
    preferred: frozenset[str],
    sections: tuple[str, ...],
    recipe: Recipe,
    covered: Callable[[int], bool],
    parent_asked: bool,
) -> list[tuple[float, int]]:
    """The fused (row, score) pairs as (:func:`adjusted` score, row), best first."""
    scored = [
        (adjusted(chunks, row, score, preferred, sections, recipe, covered, parent_asked), row) for row, score in fused
    ]
    return sorted(scored, key=lambda item: -item[0])


def select(
    index: LoadedIndex, scored: list[tuple[float, int]], top_k: int, per_page_limit: int, plan: Route
) -> list[tuple[float, int]]:
    chosen: list[tuple[float, int]] = []
    per_page: dict[tuple[str, int], int] = {}
    seen_text: set[str] = set()
    for score, row in scored:
        if len(chosen) == top_k:
            break
        chunks = index.chunks
        key = (chunks.document(row), chunks.page(row))
        if per_page_limit and per_page.get(key, 0) >= per_page_limit:
            continue
        content = chunks.string("content_hash", row)
        if content in seen_text:
            continue
        per_page[key] = per_page.get(key, 0) + 1
        seen_text.add(content)
        chosen.append((score, row))
    if plan.needs_several_documents and len({index.chunks.document(r) for _, r in chosen}) < 2 and len(chosen) > 1:
        first_doc = index.chunks.document(chosen[0][1])
        other = next(((s, r) for s, r in scored if index.chunks.document(r) != first_doc), None)
        if other is not None:
            chosen[-1] = other
    if plan.newest_first:

        def year(row: int) -> int:
            return index.documents[index.chunks.document(row)].year or 0

        chosen.sort(key=lambda item: -year(item[1]))
    return chosen


def best_ranks(lists: list[RankedList]) -> dict[str, dict[int, int]]:
    """Each row's best rank in any BM25 list and in the dense list (shown with a hit: why it was found)."""
    best_rank: dict[str, dict[int, int]] = {"bm25": {}, "dense": {}}
    for ranked in lists:
        ranks = best_rank[ranked.retriever]
        for rank, row in enumerate(ranked.rows, start=1):
            ranks[row] = min(rank, ranks.get(row, rank))
    return best_rank
