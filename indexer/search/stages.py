"""The search recipe as a declared list of stages, each switched by one field of the recipe.

    query (focus, expansion, judgements, routing, sections) ─▶ lists (words, bigrams, dense, proximity, routed)
    ─▶ fuse ─▶ adjust ─▶ select ─▶ annotate (highlights, absence)

The query steps run once, when the question is read (search/query.py); the others run in this order over one
:class:`Ranking`. A reranker would be one more entry, between ``adjust`` and ``select``: it reorders ``scored``.
The ablation harness (bench/recipe_sweep.py) switches each stage off in turn from this list (:func:`ablations`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from indexer.core.budget import REQUEST_BUDGET_S, Budget
from indexer.core.recipe import DEFAULT_RECIPE, Recipe
from indexer.index.reader import LoadedIndex
from indexer.search.absence import absence
from indexer.search.expand import Variant, content_tokens
from indexer.search.fusion import RankedList, reciprocal_rank_fusion, rescale_unranked
from indexer.search.highlights import query_patterns
from indexer.search.hits import Hit, make_hit, with_highlights
from indexer.search.proximity import proximity_list
from indexer.search.query import Query
from indexer.search.routed_lists import (
    BM25_VARIANTS,
    Coverage,
    bigrams_without_names,
    printed_in_scope,
    routed_lists,
    without_names,
)
from indexer.search.selection import best_ranks, rescored, select
from indexer.search.table_evidence import matching_row, remember_rows

Step = Literal["query", "lists", "fuse", "adjust", "select", "annotate"]


@dataclass
class Ranking:
    """What one search has found so far; each stage adds to it."""

    lists: list[RankedList] = field(default_factory=list)
    best_rows: dict[tuple[str, int], dict[int, int]] = field(default_factory=dict)  # a page's best table rows
    coverage: Coverage | None = None  # set before the routed lists join
    fused: list[tuple[int, float]] = field(default_factory=list)
    scored: list[tuple[float, int]] = field(default_factory=list)
    selected: list[tuple[float, int]] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    note: str | None = None


Run = Callable[[LoadedIndex, Query, Recipe, Ranking], None]


@dataclass(frozen=True)
class Stage:
    """One stage: its step, the recipe field that switches it (None: always runs) and the value that switches it
    off, and what it does (None for a query step, which reading the question does)."""

    name: str
    step: Step
    switch: str | None
    off: object
    run: Run | None
    what: str

    def on(self, recipe: Recipe) -> bool:
        return self.switch is None or getattr(recipe, self.switch) != self.off


def _words(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """BM25 over the passages for each variant of the question, and the table rows' votes for their passages
    (the kinds of question in ``table_row_questions``); each page's best rows are remembered for its hit."""
    storage, plan = index.storage, query.plan
    if "bm25" not in recipe.retrievers:
        return
    for variant, contents in zip(query.variants, query.contents, strict=True):
        tokens = without_names(list(contents), set(query.scoped_names))
        if not tokens or variant.reason not in BM25_VARIANTS:
            continue
        rows = storage.passages(tokens, query.depth, query.allowed)
        weight = plan.bm25_weight * variant.weight
        ranking.lists.append(RankedList("bm25", rows.tolist(), weight, detail=variant.reason))
        table_rows = storage.table_rows(tokens, query.depth, query.allowed)
        if table_rows is not None:
            weight = plan.bm25_weight * variant.weight * recipe.table_rows_weight
            if plan.kind in recipe.table_row_questions and weight > 0:
                passages = _passages(index, table_rows.tolist())
                ranking.lists.append(RankedList("bm25", passages, weight, "table_rows", variant.reason))
            content = [t for t in tokens if t not in query.names]
            if len(content) != len(tokens):
                table_rows = storage.table_rows(content, query.depth, query.allowed)
            remember_rows(index, (table_rows if table_rows is not None else rows[:0]).tolist(), ranking.best_rows,
                          recipe.row_candidates)  # fmt: skip


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


def _bigrams(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """BM25 over the question's adjacent CJK character pairs."""
    if "bm25" not in recipe.retrievers or recipe.bigram_weight <= 0:
        return
    pairs = bigrams_without_names(index.tokenizer, query.variants[0].text, set(query.scoped_names))
    if pairs:
        rows = index.storage.bigrams(pairs, query.depth, query.allowed)
        weight = query.plan.bm25_weight * recipe.bigram_weight
        ranking.lists.append(RankedList("bm25", rows.tolist(), weight, "bigrams"))


def _dense(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """The nearest passages to the question's embedding (with its translated terms when it has them)."""
    embedder = index.embedder
    if embedder is None or not index.storage.dense_search or "dense" not in recipe.retrievers:
        return
    variant = _dense_query(query)
    vector = embedder.embed_queries([variant.text])[0]
    rows = index.storage.nearest(vector, query.depth, query.allowed)
    weight = query.plan.dense_weight * variant.weight
    ranking.lists.append(RankedList("dense", rows.tolist(), weight, detail=variant.reason))


def _dense_query(query: Query) -> Variant:
    """What the dense retriever embeds, once: the query with its translated terms when it has them (a multilingual
    embedder reads both languages in one text: on the dev sets, the same hits as embedding the query and its
    translation apart, a better Chinese MRR, half the embedding time), else the query; at the query's weight."""
    original = query.variants[0]
    translated = next((v for v in query.variants if v.reason == "translated"), None)
    return Variant(translated.text, original.weight, translated.reason) if translated else original


def _proximity(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """Within one filing, its passages ranked by how close together they print the question's words."""
    if not query.within or recipe.proximity_weight <= 0 or "bm25" not in recipe.retrievers:
        return
    tokens = content_tokens(index.tokenizer.tokenize(query.text), index.tokenizer)
    words = without_names(tokens, set(query.scoped_names))
    near = proximity_list(index, words, ranking.lists, query.plan.bm25_weight * recipe.proximity_weight, recipe)
    ranking.lists += [near] if near else []


def _routed(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """BM25 within the sections the question is routed to."""
    coverage = _coverage(index, query, recipe, ranking)
    if "bm25" in recipe.retrievers:
        ranking.lists += routed_lists(index, list(query.variants), query.sections, query.plan, query.depth,
                                      query.allowed, recipe, set(query.scoped_names), coverage)  # fmt: skip


def _coverage(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> Coverage:
    """How much of the question a passage prints, against the first candidates of the lists before the routed
    ones (which rank within a section, however little of it a page prints)."""
    if ranking.coverage is None:
        ranking.coverage = Coverage(index, set(query.wanted), ranking.lists, recipe)
    return ranking.coverage


def _fuse(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """Weighted reciprocal-rank fusion (k within one filing or across), rows no vector ranks scaled up."""
    k = recipe.rrf_k_within if query.within else recipe.rrf_k
    fused = reciprocal_rank_fusion(ranking.lists, k)
    ranking.fused = rescale_unranked(fused, ranking.lists, "dense", index.storage.embedded)


def _adjust(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """Each score for its chunk's kind, filing and section (search/selection.py)."""
    coverage = _coverage(index, query, recipe, ranking)
    if query.sections:
        coverage.read([row for row, _ in ranking.fused if index.chunks.section(row) in query.sections])
    ranking.scored = rescored(index.chunks, ranking.fused, query.focus.preferred, query.sections, recipe,
                              coverage.enough, query.parent_asked)  # fmt: skip


def _select(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """The hits: one per page, no repeated text, two filings for a comparison, newest first for an anomaly; each
    with the table row on its page that best answers the question."""
    best_rank = best_ranks(ranking.lists)
    ranking.selected = select(index, ranking.scored, query.top_k, recipe.per_page, query.plan)
    for score, row in ranking.selected:
        chunk = index.chunks[row]
        evidence = matching_row(index, ranking.best_rows.get((chunk.document, chunk.page)), set(query.wanted))
        hit = make_hit(index, row, score, best_rank["bm25"].get(row), best_rank["dense"].get(row), evidence)
        ranking.hits.append(hit)


def _highlights(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """Boxes of the question's terms and figures in each hit."""
    budget = Budget(REQUEST_BUDGET_S, "highlighting the query's terms took too long; search with fewer terms")
    patterns = query_patterns(query.text, index.tokenizer)
    ranking.hits = with_highlights(index, ranking.hits, patterns, budget, recipe.max_highlights)


def _absence(index: LoadedIndex, query: Query, recipe: Recipe, ranking: Ranking) -> None:
    """The note on what the searched filings do not hold, and the hits that lack it marked weak."""
    searched = [index.documents[n] for n in (query.scope if query.scope is not None else index.documents)]
    rows = [row for _, row in ranking.selected]
    found = absence(
        query.text,
        index.tokenizer,
        index.storage.knows,
        searched,
        list(index.documents.values()),
        set(query.names),
        [h.content for h in ranking.hits],
        lambda i, terms: index.storage.held(rows[i], terms),
        lambda token: printed_in_scope(index, token, query.allowed),
    )
    ranking.hits = [h.model_copy(update={"weak": True}) if i in found.weak else h for i, h in enumerate(ranking.hits)]
    ranking.note = found.note


STAGES: tuple[Stage, ...] = (
    Stage("document focus", "query", "document_focus", False, None,
          "a company, year or form named in the question narrows the search to its filings"),
    Stage("expansion", "query", "expand", False, None, "keyword, translated and period variants of the question"),
    Stage("judgement line items", "query", "judgements", False, None,
          "a judgement is also searched with the line items printed where it is answered"),
    Stage("question routing", "query", "routing", False, None,
          "the kind of question sets the lists' weights, the recall depth and whether table rows vote"),
    Stage("sections", "query", "sections", False, None,
          "the sections the question points at: routed lists and boosts"),
    Stage("words", "lists", "retrievers", ("dense",), _words, _words.__doc__ or ""),
    Stage("CJK bigrams", "lists", "bigrams", False, _bigrams, _bigrams.__doc__ or ""),
    Stage("dense", "lists", "retrievers", ("bm25",), _dense, _dense.__doc__ or ""),
    Stage("term proximity", "lists", "proximity", False, _proximity, _proximity.__doc__ or ""),
    Stage("routed section lists", "lists", "routed_lists", False, _routed, _routed.__doc__ or ""),
    Stage("fuse", "fuse", None, None, _fuse, _fuse.__doc__ or ""),
    Stage("adjust", "adjust", None, None, _adjust, _adjust.__doc__ or ""),
    Stage("select", "select", None, None, _select, _select.__doc__ or ""),
    Stage("highlights", "annotate", "highlights", False, _highlights, _highlights.__doc__ or ""),
    Stage("absence", "annotate", "absence", False, _absence, _absence.__doc__ or ""),
)  # fmt: skip


def run_stages(index: LoadedIndex, query: Query, recipe: Recipe) -> Ranking:
    """Every stage after the query's, in order, those the recipe switches on."""
    ranking = Ranking()
    for stage in STAGES:
        if stage.run is not None and stage.on(recipe):
            stage.run(index, query, recipe, ranking)
    return ranking


RANKING_STEPS = ("query", "lists")  # the steps whose stages change what ranks first (annotations do not)


def ablations(recipe: Recipe = DEFAULT_RECIPE) -> dict[str, dict[str, object]]:
    """Each switchable stage that ranks, switched the other way from ``recipe``: "− term proximity" for a stage it
    runs, "+ CJK bigrams" for one it does not (each keeps being measured). Read by the ablation harness."""
    found: dict[str, dict[str, object]] = {}
    for stage in STAGES:
        if stage.switch is None or stage.step not in RANKING_STEPS:
            continue
        if stage.on(recipe):
            found[f"− {stage.name}"] = {stage.switch: stage.off}
        elif isinstance(stage.off, bool):
            found[f"+ {stage.name}"] = {stage.switch: not stage.off}
    return found
