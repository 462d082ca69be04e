"""Term proximity within one filing (issue 42): a passage that prints a question's words together outranks, in its
own list, one that prints them rows or paragraphs apart; the list runs only where it can tell pages apart."""

from __future__ import annotations

import math

import pytest

import indexer.search.stages as stages
from indexer.core.recipe import DEFAULT_RECIPE
from indexer.index.reader import LoadedIndex, allowed_rows
from indexer.knowledge_base import KnowledgeBase
from indexer.search.fusion import RankedList
from indexer.search.proximity import nearness, proximity_list
from indexer.search.request import SearchRequest

QUESTION = "Why did comparable sales decline in the second quarter?"
WINDOW = DEFAULT_RECIPE.proximity_window


def test_nearness_is_the_best_stretch_of_distinct_words() -> None:
    weights = {"gross": 2.0, "margin": 1.5, "rate": 0.5}
    assert nearness(["gross", "margin", "rate"], weights, 3) == 4.0
    assert nearness(["gross", "gross", "gross"], weights, 3) == 0.0  # one word, however often
    apart, two = ["margin"] + ["x"] * 5 + ["rate"], {"margin": 1.5, "rate": 0.5}
    assert nearness(apart, two, 6) == 2.0 and nearness(apart, two, 5) == 0.0  # first to last: 6 tokens
    # two common words that weigh less than the rarest word alone are no evidence of it
    assert nearness(["margin", "rate"], {"margin": 0.4, "rate": 0.4, "gross": 2.0}, 3) == 0.0
    assert nearness([], weights, 3) == 0.0 and nearness(["gross", "margin"], {}, 3) == 0.0


def _close_together(index: LoadedIndex, row: int, words: set[str]) -> bool:
    """Whether passage ``row`` prints two different ``words`` at most WINDOW tokens apart (read apart from the
    module: every pair of positions)."""
    places = [(at, t) for at, t in enumerate(index.tokenizer.tokenize(index.chunks.text(row))) if t in words]
    return any(b[0] - a[0] <= WINDOW and a[1] != b[1] for i, a in enumerate(places) for b in places[i + 1 :])


def test_the_list_ranks_the_paragraph_that_says_it_in_one_sentence(samples_index: LoadedIndex) -> None:
    index = samples_index
    scope = [name for name in index.documents if name.startswith("BESTBUY")]
    allowed = allowed_rows(index, scope)
    words = index.tokenizer.tokenize(QUESTION)
    words = [w for w in words if index.storage.knows(w)]
    assert {"compar", "sale", "declin"} <= set(words)
    bm25 = RankedList("bm25", index.storage.passages(words, 50, allowed).tolist())
    near = proximity_list(index, words, [bm25], 0.7, DEFAULT_RECIPE)
    assert near is not None and near.weight == 0.7 and near.detail == "proximity"
    assert set(near.rows) <= set(bm25.rows[: DEFAULT_RECIPE.proximity_candidates])
    assert all(_close_together(index, row, set(words)) for row in near.rows)
    first = index.chunks.text(near.rows[0])
    assert "comparable sales declines" in first and index.chunks.page(near.rows[0]) == 17
    assert near.rows[0] != bm25.rows[0]  # BM25 alone ranks another passage first
    weights = index.storage.rarity(words)
    passages = [r for r in range(len(index.chunks)) if index.chunks.kind(r) != "table_row"]
    printing = {w: sum(1 for r in passages if index.storage.held(r, {w})) for w in ("compar", "sale", "declin")}
    rarest_first = sorted(printing, key=printing.get)  # type: ignore[arg-type]
    assert len(set(printing.values())) == 3 and weights[rarest_first[2]] > 0
    assert [weights[w] for w in rarest_first] == sorted((weights[w] for w in rarest_first), reverse=True)
    expected = math.log(1 + (len(passages) - printing["compar"] + 0.5) / (printing["compar"] + 0.5))  # Lucene's
    assert weights["compar"] == pytest.approx(expected) and index.storage.rarity(["zzzyx"]) == {}


@pytest.mark.parametrize(
    ("query", "documents", "runs"),
    [
        (QUESTION, "BESTBUY*", True),  # one filing
        (QUESTION, None, False),  # every filing: a phrase in each year's report is no evidence for one
        ("Is Best Buy a capital-intensive business?", "BESTBUY*", False),  # a judgement: line items it never says
        # a judgement's pattern, but the question names what it asks about (its line item): its words are the answer's
        ("Why did Best Buy's operating income fall?", "BESTBUY*", True),
    ],
)
def test_it_runs_within_one_filing_and_not_for_a_judgement(
    samples_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, query: str, documents: str | None, runs: bool
) -> None:
    called: list[list[str]] = []
    real = stages.proximity_list

    def spy(*args: object, **kwargs: object) -> RankedList | None:
        called.append(args[1])  # type: ignore[arg-type]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    fused_with: list[int] = []
    fuse = stages.reciprocal_rank_fusion

    def fusion_spy(lists: list[RankedList], k: int) -> list[tuple[int, float]]:
        fused_with.append(k)
        return fuse(lists, k)

    monkeypatch.setattr(stages, "proximity_list", spy)
    monkeypatch.setattr(stages, "reciprocal_rank_fusion", fusion_spy)
    outcome = samples_kb.search(SearchRequest(query=query, top_k=5, documents=documents))
    assert outcome.hits
    assert bool(called) is runs
    # where the filing's own words are the evidence, the fusion trusts each list's first places more
    assert fused_with == [DEFAULT_RECIPE.rrf_k_within if runs else DEFAULT_RECIPE.rrf_k]
    off = DEFAULT_RECIPE.model_copy(update={"proximity": False})
    called.clear()
    samples_kb.search(SearchRequest(query=query, top_k=5, documents=documents), off)
    assert not called
    assert fused_with[-1] == (DEFAULT_RECIPE.rrf_k_within if runs else DEFAULT_RECIPE.rrf_k)  # k is not proximity's
