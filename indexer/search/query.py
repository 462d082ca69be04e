"""A question read once: everything the search stages need to know about it, in one frozen :class:`Query`.

Built by :func:`read_query` from the request, the recipe and the index: the filings in scope (the filters, narrowed
to a company, year or form the question names), the kind of question (its weights and recall depth), the variants
searched (keywords, translation, periods, a judgement's line items), the company names to leave out, the terms a
passage should print, and the sections the question points at.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexer.core.docmatch import DocumentFocus, focus
from indexer.core.errors import QueryError
from indexer.core.recipe import Recipe
from indexer.core.sections import asks_parent, question_sections
from indexer.core.text import has_cjk
from indexer.index.reader import LoadedIndex, allowed_rows
from indexer.search.expand import Variant, content_tokens, expand, strip_instructions
from indexer.search.filters import filter_documents
from indexer.search.judgement_routes import judgement_sections
from indexer.search.request import Filters, SearchRequest
from indexer.search.routed_lists import BM25_VARIANTS
from indexer.search.routing import Route, route
from indexer.search.table_evidence import name_tokens, scoped_name_tokens

MAX_QUERY_CHARS = 2000


@dataclass(frozen=True)
class Query:
    """One question as every stage reads it."""

    text: str  # the question, instructions ("answer in English") taken off
    top_k: int
    scope: list[str] | None  # the documents searched (None: all)
    focus: DocumentFocus  # the company, year or form it names
    allowed: np.ndarray | None  # the chunk rows of the documents in scope
    plan: Route  # the kind of question: list weights and recall depth
    depth: int  # rows each ranked list reads
    unnamed: tuple[str, ...]  # a judgement asked without naming its line items: the sections that answer it
    variants: tuple[Variant, ...]  # the texts the lists search, with their weights
    contents: tuple[tuple[str, ...], ...]  # each variant's content tokens (the tokenizer's, stopwords out), once
    names: frozenset[str]  # name tokens of the companies in scope
    scoped_names: frozenset[str]  # … left out of BM25 within a company's own filings
    wanted: frozenset[str]  # the question's content terms, names left out
    sections: tuple[str, ...]  # the sections it points at, most specific first
    within: bool  # scoped to one filing whose own words are the evidence
    parent_asked: bool  # it asks for the parent company's own figures


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


def read_query(index: LoadedIndex, request: SearchRequest, recipe: Recipe) -> Query:
    """The request's question read once, under ``recipe``'s switches (focus, routing, expansion, judgements,
    sections)."""
    text = strip_instructions(check_query(request.query))
    scope, found = _scope(index, text, request.filters, recipe)
    plan = route(text, recipe) if recipe.routing else Route("plain", 1.0, 1.0, 1.0)
    in_scope = len(scope) if scope is not None else len(index.documents)
    spread = max(1, min(in_scope, recipe.depth_per_document))
    depth = int(max(recipe.min_recall, request.top_k * recipe.recall_factor) * plan.recall_factor * spread)
    unnamed = judgement_sections(text, index.tokenizer.tokenize)
    variants = _variants(index, text, scope, recipe, unnamed)
    names = name_tokens(index, scope)
    tokenizer = index.tokenizer
    contents = tuple(tuple(content_tokens(tokenizer.tokenize(v.text), tokenizer)) for v in variants)
    wanted = {t for v, tokens in zip(variants, contents, strict=True) if v.reason in BM25_VARIANTS for t in tokens}
    wanted -= names
    judged = unnamed if recipe.judgements else ()
    sections = question_sections(text, judged, causal=plan.kind == "causal") if recipe.sections else ()
    return Query(
        text=text,
        top_k=request.top_k,
        scope=scope,
        focus=found,
        allowed=allowed_rows(index, scope),
        plan=plan,
        depth=depth,
        unnamed=unnamed,
        variants=tuple(variants),
        contents=contents,
        names=frozenset(names),
        scoped_names=frozenset(scoped_name_tokens(index, scope) if scope is not None else ()),  # all filings: kept
        wanted=frozenset(wanted),
        sections=sections,
        within=_within_filing(scope, unnamed),
        parent_asked=asks_parent(text),
    )


def _scope(index: LoadedIndex, text: str, filters: Filters, recipe: Recipe) -> tuple[list[str] | None, DocumentFocus]:
    explicit = filter_documents(index, filters)
    if not recipe.document_focus:
        return explicit, DocumentFocus(None, frozenset(), False)
    candidates = [index.documents[n] for n in (explicit if explicit is not None else index.documents)]
    found = focus(candidates, text)
    scope = explicit if found.scope is None else found.scope
    return scope, found


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
