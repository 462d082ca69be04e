"""Term proximity within one filing: the passages where the question's words stand close together.

Inside a filing every page shares its vocabulary (the company, the years, "revenue", "segment"), and BM25, which
counts words wherever they are, ranks the statement that prints each of a question's words once in a different row
as high as the paragraph that says them in one sentence. The span a question's words cover on a passage is the
classic remedy (Tao and Zhai, "An exploration of proximity measures in information retrieval", SIGIR 2007: the
smallest window holding the terms): a passage scores by the best window of ``window`` tokens, as the summed IDF of
the distinct question words inside it, and counts only when two words or more meet there. The passages are ranked
by that score as one more list for the fusion, so it adds a vote and never replaces BM25's.

It runs where it can tell pages apart: a search scoped to one filing (across filings, a phrase printed in every
year's report is no evidence for one of them), and not for an analyst's judgement ("Is X capital-intensive?"),
whose answer prints line items the question does not say.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from indexer.core.recipe import Recipe
from indexer.index.reader import LoadedIndex
from indexer.search.fusion import RankedList


def nearness(tokens: Sequence[str], weights: Mapping[str, float], window: int) -> float:
    """The summed weight of the distinct ``weights`` terms in the best stretch of ``tokens`` whose first and last
    are at most ``window`` tokens apart; 0 when no stretch holds two of them (one word alone is BM25's business)."""
    places = [(at, token) for at, token in enumerate(tokens) if token in weights]
    inside: Counter[str] = Counter()
    best = held = 0.0
    first = 0
    for at, token in places:
        if not inside[token]:
            held += weights[token]
        inside[token] += 1
        while places[first][0] < at - window:
            leaving = places[first][1]
            inside[leaving] -= 1
            if not inside[leaving]:
                held -= weights[leaving]
            first += 1
        best = max(best, held)
    return best if best > max(weights.values(), default=0.0) else 0.0


def proximity_list(
    index: LoadedIndex, words: list[str], lists: Sequence[RankedList], weight: float, recipe: Recipe
) -> RankedList | None:
    """The first ``recipe.proximity_candidates`` passages of each BM25 list ranked by the :func:`nearness` of the
    question's ``words`` (their BM25 IDF as weights), best first, BM25's order breaking ties; None when fewer than
    two words are asked or no passage holds two of them close together."""
    terms = list(dict.fromkeys(words))
    if len(terms) < 2:
        return None
    weights = index.storage.rarity(terms)
    candidates: dict[int, None] = {}
    for ranked in lists:
        if ranked.retriever == "bm25" and ranked.source == "passages":
            candidates.update(dict.fromkeys(ranked.rows[: recipe.proximity_candidates]))
    tokenize = index.tokenizer.tokenize
    scored = []
    for order, row in enumerate(candidates):
        score = nearness(tokenize(index.chunks.text(row)), weights, recipe.proximity_window)
        if score > 0:
            scored.append((-score, order, row))
    if not scored:
        return None
    return RankedList("bm25", [row for _, _, row in sorted(scored)], weight, "passages", "proximity")
