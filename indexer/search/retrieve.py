"""Search: the retrieval recipe over a loaded index (no MCP here; the server, the CLI and eval all call it).

question ─▶ document focus (company, year, form named in it) ─▶ expansion (periods, glossary)
         ─▶ route (question type → BM25/dense weights, recall depth)
         ─▶ BM25 and dense lists per variant ─▶ weighted reciprocal-rank fusion (k = 60; 25 within one filing)
         ─▶ post-processing (boilerplate, sections, preferred documents, duplicates, one chunk per page,
            several documents for comparisons, newest first for anomalies)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import regex
from pydantic import BaseModel, Field

from indexer.core.budget import REQUEST_BUDGET_S, Budget
from indexer.core.docmatch import DocumentFocus, focus
from indexer.core.errors import QueryError, shown
from indexer.core.folios import other_printed_page
from indexer.core.models import TABLE_ROW, Box
from indexer.core.recipe import DEFAULT_RECIPE, Recipe
from indexer.core.sections import asks_parent, parent_only, question_sections
from indexer.core.text import has_cjk
from indexer.index.reader import LoadedIndex, allowed_rows, get_page_lines
from indexer.search.absence import absence
from indexer.search.expand import Variant, content_tokens, expand, strip_instructions
from indexer.search.filters import filter_documents
from indexer.search.fusion import RankedList, reciprocal_rank_fusion, rescale_unranked
from indexer.search.highlights import Highlight, find_highlights, query_patterns
from indexer.search.judgement_routes import judgement_sections
from indexer.search.proximity import proximity_list
from indexer.search.regex_search import Tally, compile_pattern, regex_budget, regex_matches
from indexer.search.request import Filters, SearchRequest
from indexer.search.routed_lists import (
    BM25_VARIANTS,
    Coverage,
    bigrams_without_names,
    printed_in_scope,
    routed_lists,
    without_names,
)
from indexer.search.routing import Route, RouteKind, route
from indexer.search.selection import best_ranks, rescored, select
from indexer.search.table_evidence import RowEvidence, matching_row, name_tokens, remember_rows, scoped_name_tokens

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 2000


class Source(BaseModel):
    """Where a hit is printed."""

    document: str
    page: int = Field(description="1-based page number in the PDF")
    printed_page: int | None = Field(default=None, description="the page number printed on it, where it differs")
    title: str | None
    company: str | None


class Hit(BaseModel):
    """One passage found by a search, with where it is printed and the boxes to show it."""

    content: str = Field(description="the passage text as it appears on the page")
    source: Source
    boxes: list[Box] = Field(serialization_alias="bboxes", description="one box per source line of the passage")
    highlights: list[Highlight] = Field(
        default_factory=list, description="boxes of the query's terms and figures (or regex matches) in the passage"
    )
    page_width: float
    page_height: float
    score: float = Field(description="fused reciprocal-rank score; higher is better, comparable within one result")
    chunk_id: str
    kind: str = Field(description="body; boilerplate/contents (ranked last); table_row (a row outside any passage)")
    section: str | None = Field(
        default=None, description="income_statement, balance_sheet, cash_flow, key_figures, mdna, notes, … if known"
    )
    parent_only: bool = Field(
        default=False, description="from a statement or note of the parent company alone (母公司), not the group's"
    )
    table_row: RowEvidence | None = Field(
        default=None, description="the table row on this page that best matches the query, with its column headers"
    )
    weak: bool = Field(
        default=False,
        description="the passage shares none of the question's key terms, or the note says the index may not hold "
        "the answer: read it as a near miss, not as the answer",
    )
    bm25_rank: int | None = Field(default=None, exclude=True, description="best rank in a BM25 list, 1-based")
    dense_rank: int | None = Field(default=None, exclude=True, description="best rank in a dense list, 1-based")

    @property
    def document(self) -> str:
        return self.source.document

    @property
    def page(self) -> int:
        return self.source.page


def check_query(query: str) -> str:
    text = " ".join(query.split())
    if not text:
        raise QueryError(
            "the query is empty; pass words or figures to look for, e.g. 'total revenue 2022' or '营业收入'"
        )
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(
            f"the query has {len(text)} characters; keep it under {MAX_QUERY_CHARS} (a question or key terms)"
        )
    return text


def _scope(index: LoadedIndex, text: str, filters: Filters, recipe: Recipe) -> tuple[list[str] | None, DocumentFocus]:
    explicit = filter_documents(index, filters)
    if not recipe.document_focus:
        return explicit, DocumentFocus(None, frozenset(), False)
    candidates = [index.documents[n] for n in (explicit if explicit is not None else index.documents)]
    found = focus(candidates, text)
    scope = explicit if found.scope is None else found.scope
    return scope, found


def _passages(index: LoadedIndex, rows: list[int]) -> list[int]:
    """A list of table rows as the passages that hold their lines (first place kept), so a table's many rows
    vote for their passage instead of crowding other pages out."""
    out: list[int] = []
    seen: set[int] = set()
    for row in rows:
        passage = int(index.parent_rows[row])
        if passage not in seen:
            seen.add(passage)
            out.append(passage)
    return out


def _dense_query(variants: list[Variant]) -> Variant:
    """What the dense retriever embeds, once: the query with its translated terms when it has them (a multilingual
    embedder reads both languages in one text: on the dev sets, the same hits as embedding the query and its
    translation apart, a better Chinese MRR, half the embedding time), else the query; at the query's weight."""
    original = variants[0]
    translated = next((v for v in variants if v.reason == "translated"), None)
    return Variant(translated.text, original.weight, translated.reason) if translated else original


def _ranked_lists(
    index: LoadedIndex,
    variants: list[Variant],
    weights: Route,
    depth: int,
    allowed: np.ndarray | None,
    recipe: Recipe,
    best_rows: dict[tuple[str, int], dict[int, int]],
    names: set[str],
    scoped_names: set[str],
) -> list[RankedList]:
    """The ranked lists to fuse. ``scoped_names`` are the name tokens of the companies the search is scoped to:
    within their own filings a company's name tells no page from another (it is printed on every page, and rare
    in the corpus, so BM25 would rank the pages that repeat it most), so BM25 leaves them out."""
    lists: list[RankedList] = []
    storage = index.storage
    embedder = index.embedder if storage.dense_search and "dense" in recipe.retrievers else None
    searchable = False
    for variant in variants:
        tokens = without_names(content_tokens(index.tokenizer.tokenize(variant.text), index.tokenizer), scoped_names)
        searchable = searchable or bool(tokens)
        if "bm25" in recipe.retrievers and tokens and variant.reason in BM25_VARIANTS:
            rows = storage.passages(tokens, depth, allowed)
            lists.append(RankedList("bm25", rows.tolist(), weights.bm25_weight * variant.weight, detail=variant.reason))
            table_rows = storage.table_rows(tokens, depth, allowed)
            if table_rows is not None:
                weight = weights.bm25_weight * variant.weight * recipe.table_rows_weight
                if weights.kind in recipe.table_row_questions and weight > 0:
                    lists.append(
                        RankedList("bm25", _passages(index, table_rows.tolist()), weight, "table_rows", variant.reason)
                    )
                content = [t for t in tokens if t not in names]
                if len(content) != len(tokens):
                    table_rows = storage.table_rows(content, depth, allowed)
                remember_rows(index, (table_rows if table_rows is not None else rows[:0]).tolist(), best_rows,
                           recipe.row_candidates)  # fmt: skip
    if "bm25" in recipe.retrievers and recipe.bigram_weight > 0:
        pairs = bigrams_without_names(index.tokenizer, variants[0].text, scoped_names)
        if pairs:
            rows = storage.bigrams(pairs, depth, allowed)
            lists.append(RankedList("bm25", rows.tolist(), weights.bm25_weight * recipe.bigram_weight, "bigrams"))
    dense_ready = embedder is not None
    if embedder is not None:
        variant = _dense_query(variants)
        vector = embedder.embed_queries([variant.text])[0]
        rows = storage.nearest(vector, depth, allowed)
        lists.append(RankedList("dense", rows.tolist(), weights.dense_weight * variant.weight, detail=variant.reason))
    if not searchable and not dense_ready:
        raise QueryError(
            f"the query {shown(variants[0].text)} has no searchable words and this index has no dense vectors; "
            "use words or figures"
        )
    return lists


def _within_filing(scope: list[str] | None, unnamed: tuple[str, ...]) -> bool:
    """Whether a search is scoped to one filing and the question's own words are its evidence: not a judgement
    asked without naming any of its line items (``unnamed``: the sections that answer it), whose answer need not
    print the question's words at all. "What explains the rise in operating margin?" names what it asks about.
    There the proximity list runs (search/proximity.py) and the fusion trusts each list's first places more."""
    return scope is not None and len(scope) == 1 and not unnamed


def _variants(
    index: LoadedIndex, text: str, scope: list[str] | None, recipe: Recipe, unnamed: tuple[str, ...]
) -> list[Variant]:
    """The query's variants the lists search (search/expand.py), weighted for a judgement asked without naming its
    line items (``unnamed``: the sections that answer it)."""
    if not recipe.expand:
        return [Variant(text, 1.0, "original")]
    variants = expand(text, recipe.expansion_weight, recipe.judgements)
    if not _crosses_languages(index, text, scope):
        variants = [v for v in variants if v.reason != "translated"]  # a translation only helps across languages
    return _line_items_first(variants) if unnamed and recipe.judgements else variants


def _line_items_first(variants: list[Variant]) -> list[Variant]:
    """A judgement asked without naming its line items ("Is X capital-intensive?") is answered where those line
    items are printed, not where its own words are ("capital", "business"): the variant that adds them takes the
    question's weight, and the question alone the variant's."""
    first = next((v for v in variants if v.reason == "original"), None)
    items = next((v for v in variants if v.reason == "keywords"), None)
    if first is None or items is None:
        return variants
    swapped = {"original": items.weight, "keywords": first.weight}
    return [Variant(v.text, swapped.get(v.reason, v.weight), v.reason) for v in variants]


def _crosses_languages(index: LoadedIndex, query: str, scope: list[str] | None) -> bool:
    """Whether some document in scope is written in another language than the query (or its language is unknown)."""
    query_language = "zh" if has_cjk(query) else "en"
    names = scope if scope is not None else list(index.documents)
    return any(index.documents[n].language != query_language for n in names)


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
    filters, top_k = request.filters, request.top_k
    if request.use_regex:
        return regex_search(index, request.query, top_k, filters, recipe)
    text = strip_instructions(check_query(request.query))
    scope, found = _scope(index, text, filters, recipe)
    allowed = allowed_rows(index, scope)
    plan = route(text, recipe) if recipe.routing else Route("plain", 1.0, 1.0, 1.0)
    in_scope = len(scope) if scope is not None else len(index.documents)
    spread = max(1, min(in_scope, recipe.depth_per_document))
    depth = int(max(recipe.min_recall, top_k * recipe.recall_factor) * plan.recall_factor * spread)
    unnamed = judgement_sections(text, index.tokenizer.tokenize)
    variants = _variants(index, text, scope, recipe, unnamed)
    best_rows: dict[tuple[str, int], dict[int, int]] = {}
    names = name_tokens(index, scope)
    scoped_names = scoped_name_tokens(index, scope) if scope is not None else set()  # all filings: names kept
    lists = _ranked_lists(index, variants, plan, depth, allowed, recipe, best_rows, names, scoped_names)
    within = _within_filing(scope, unnamed)
    if within and recipe.proximity_weight > 0 and "bm25" in recipe.retrievers:
        words = without_names(content_tokens(index.tokenizer.tokenize(text), index.tokenizer), scoped_names)
        near = proximity_list(index, words, lists, plan.bm25_weight * recipe.proximity_weight, recipe)
        lists += [near] if near else []
    tokenizer = index.tokenizer
    wanted = {
        t for v in variants if v.reason in BM25_VARIANTS for t in content_tokens(tokenizer.tokenize(v.text), tokenizer)
    } - names
    judged = unnamed if recipe.judgements else ()
    sections = question_sections(text, judged, causal=plan.kind == "causal") if recipe.sections else ()
    coverage = Coverage(index, wanted, lists, recipe)
    if "bm25" in recipe.retrievers:
        lists += routed_lists(index, variants, sections, plan, depth, allowed, recipe, scoped_names, coverage)
    k = recipe.rrf_k_within if within else recipe.rrf_k
    fused = rescale_unranked(reciprocal_rank_fusion(lists, k), lists, "dense", index.storage.embedded)
    scored = rescored(index.chunks, fused, found.preferred, sections, recipe, coverage.enough, asks_parent(text))
    best_rank = best_ranks(lists)
    hits = []
    selected = select(index, scored, top_k, recipe.per_page, plan)
    for score, row in selected:
        chunk = index.chunks[row]
        evidence = matching_row(index, best_rows.get((chunk.document, chunk.page)), wanted)
        hits.append(_hit(index, row, score, best_rank["bm25"].get(row), best_rank["dense"].get(row), evidence))
    if recipe.highlights:
        budget = Budget(REQUEST_BUDGET_S, "highlighting the query's terms took too long; search with fewer terms")
        hits = _with_highlights(index, hits, query_patterns(text, index.tokenizer), budget, recipe.max_highlights)
    rows = [row for _, row in selected]
    return _with_absence(index, text, scope, allowed, names, hits, rows, plan.kind)


def _with_absence(
    index: LoadedIndex,
    text: str,
    scope: list[str] | None,
    allowed: np.ndarray | None,
    names: set[str],
    hits: list[Hit],
    rows: list[int],
    kind: RouteKind,
) -> SearchOutcome:
    """The outcome, with the note on what the searched filings do not hold and the hits that lack it marked weak."""
    searched = [index.documents[n] for n in (scope if scope is not None else index.documents)]
    found_absent = absence(
        text,
        index.tokenizer,
        index.storage.knows,
        searched,
        list(index.documents.values()),
        names,
        [h.content for h in hits],
        lambda i, terms: index.storage.held(rows[i], terms),
        lambda token: printed_in_scope(index, token, allowed),
    )
    hits = [hit.model_copy(update={"weak": True}) if i in found_absent.weak else hit for i, hit in enumerate(hits)]
    return SearchOutcome(hits, scope, kind, found_absent.note)


def _with_highlights(
    index: LoadedIndex, hits: list[Hit], patterns: list[regex.Pattern[str]], budget: Budget, limit: int
) -> list[Hit]:
    out = []
    for hit in hits:
        page = get_page_lines(index, hit.document, hit.page)
        out.append(hit.model_copy(update={"highlights": find_highlights(page, hit.boxes, patterns, budget, limit)}))
    return out


def _hit(
    index: LoadedIndex,
    row: int,
    score: float,
    bm25_rank: int | None = None,
    dense_rank: int | None = None,
    evidence: RowEvidence | None = None,
) -> Hit:
    chunk = index.chunks[row]
    meta = index.documents[chunk.document]
    return Hit(
        chunk_id=chunk.chunk_id,
        source=Source(
            document=chunk.document,
            page=chunk.page,
            title=meta.title,
            company=meta.company,
            printed_page=other_printed_page(meta.folios, chunk.page),
        ),
        page_width=chunk.page_width,
        page_height=chunk.page_height,
        content=chunk.text,
        boxes=index.chunks.boxes(row),
        score=round(score, 6),
        kind=chunk.kind,
        section=chunk.section,
        parent_only=parent_only(chunk.heading),
        bm25_rank=bm25_rank,
        dense_rank=dense_rank,
        table_row=evidence,
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
    hits = [_hit(index, row, score) for score, row in select(index, scored, top_k, recipe.per_page, plain)]
    if recipe.highlights:
        hits = _with_highlights(index, hits, [compile_pattern(pattern)], budget, recipe.max_highlights)
    return SearchOutcome(hits, scope, plain.kind, tally.note(pattern))
