"""Search: the retrieval recipe over a loaded index (no MCP here; the server, the CLI and eval all call it).

The question is read once (search/query.py: its scope, kind, variants, terms and sections), then the recipe's stages
run over it in their declared order (search/stages.py): ranked lists ─▶ fusion ─▶ adjusted scores ─▶ the hits
chosen ─▶ highlights and the note on what the filings do not hold.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from indexer.core.errors import QueryError, shown
from indexer.core.models import TABLE_ROW
from indexer.core.recipe import DEFAULT_RECIPE, Recipe
from indexer.index.reader import LoadedIndex, allowed_rows
from indexer.search.filters import filter_documents
from indexer.search.hits import Hit, make_hit, with_highlights
from indexer.search.query import Query, read_query
from indexer.search.regex_search import Tally, compile_pattern, regex_budget, regex_matches
from indexer.search.request import Filters, SearchRequest
from indexer.search.routed_lists import without_names
from indexer.search.routing import Route, RouteKind
from indexer.search.selection import select
from indexer.search.stages import run_stages

__all__ = ["Hit", "SearchOutcome", "run_search"]  # Hit: read from here by the answers and the server

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearchOutcome:
    """What a search found, and where it looked: ``scope`` is the documents actually searched (the filters, narrowed
    to a company the question names), None for all; ``route`` the kind of question it was taken for."""

    hits: list[Hit]
    scope: list[str] | None
    route: RouteKind
    note: str | None = None  # when the index may not hold the answer (see search/absence.py)


def run_search(index: LoadedIndex, request: SearchRequest, recipe: Recipe = DEFAULT_RECIPE) -> SearchOutcome:
    """Hybrid search with the full recipe; best first, at most ``request.top_k`` hits (one per page by default).

    With ``use_regex`` the query is a case-insensitive regular expression matched against the passages of the
    documents the filters allow (no expansion or company detection), hits ranked by number of matches.
    """
    if request.use_regex:
        return regex_search(index, request.query, request.top_k, request.filters, recipe)
    query = read_query(index, request, recipe)
    _check_searchable(index, query, recipe)
    ranking = run_stages(index, query, recipe)
    return SearchOutcome(ranking.hits, query.scope, query.plan.kind, ranking.note)


def _check_searchable(index: LoadedIndex, query: Query, recipe: Recipe) -> None:
    """A question with no word to search for, in an index without vectors, is refused with what to do instead."""
    searchable = any(without_names(list(contents), set(query.scoped_names)) for contents in query.contents)
    if not searchable and not (index.storage.dense_search and "dense" in recipe.retrievers):
        raise QueryError(
            f"the query {shown(query.variants[0].text)} has no searchable words and this index has no dense vectors; "
            "use words or figures"
        )


def regex_search(index: LoadedIndex, pattern: str, top_k: int, filters: Filters, recipe: Recipe) -> SearchOutcome:
    scope = filter_documents(index, filters)
    allowed = allowed_rows(index, scope)
    passage = ~index.chunks.of_kind(TABLE_ROW)  # a row's line is in its passage
    rows = np.flatnonzero(passage) if allowed is None else allowed[passage[allowed]]
    budget = regex_budget(pattern)  # one deadline for matching the passages and highlighting the hits
    tally = Tally()
    matches = regex_matches(pattern, rows.tolist(), index.chunks.text, budget, tally)
    scored = [(float(count), row) for row, count in matches]
    plain = Route("regex", 1.0, 0.0, 1.0)
    hits = [make_hit(index, row, score) for score, row in select(index, scored, top_k, recipe.per_page, plain)]
    if recipe.highlights:
        hits = with_highlights(index, hits, [compile_pattern(pattern)], budget, recipe.max_highlights)
    return SearchOutcome(hits, scope, plain.kind, tally.note(pattern))
