"""Lists a question's routing adds to the fusion, and what a search can ask of the documents it searched: BM25 within
the sections the question is routed to (a statement it names none of the words of still listed), a question's
words (and CJK bigrams) without the names of the companies in scope, and whether a searched document prints a
term."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from indexer.core.recipe import Recipe
from indexer.core.statement_names import STATEMENT_LABELS
from indexer.core.tokenize import BIGRAM_MARK, Tokenizer
from indexer.index.reader import LoadedIndex, section_rows
from indexer.search.expand import Variant, content_tokens
from indexer.search.fusion import RankedList
from indexer.search.routing import Route

# Which query variants each retriever searches: BM25 gains from every spelling, a dense model from a short
# translation (a long bag of synonyms costs 2-4x the embedding time and measured no better).
BM25_VARIANTS = frozenset({"original", "keywords"})


def routed_lists(
    index: LoadedIndex,
    variants: list[Variant],
    sections: tuple[str, ...],
    weights: Route,
    depth: int,
    allowed: np.ndarray | None,
    recipe: Recipe,
    scoped_names: set[str],
    coverage: Coverage,
) -> list[RankedList]:
    """BM25 within the sections the question is routed to (where its concepts' inputs are printed): the best
    income-statement page for a margin question reaches the fusion even when other pages repeat its words more.
    It searches the question's words and their glossary equivalents (a signatures page says "Chief Financial
    Officer", not "CFO"). A passage votes only when it holds enough of the question (:class:`Coverage`)."""
    words = [t for v in variants if v.reason in BM25_VARIANTS for t in index.tokenizer.tokenize(v.text)]
    tokens = without_names(content_tokens(list(dict.fromkeys(words)), index.tokenizer), scoped_names)
    present = [(s, rows) for s in sections if len(rows := section_rows(index, s, allowed))]  # in the scope
    lists = []
    for (section, rows), weight in zip(present, recipe.routed_weights, strict=False):
        if weight <= 0:
            continue
        ranked = index.storage.passages(tokens, depth, rows).tolist() if tokens else []
        if not ranked and section in STATEMENT_LABELS and allowed is not None:
            # a statement the question is routed to is on the list even when none of its words is on its pages
            # ("Is X capital-intensive?" is answered by the cash flow statement's capex line): its pages in order,
            # only when the search is scoped to named filings
            ranked = [int(row) for row in rows[:depth]]
        if ranked and tokens:
            coverage.read(ranked)
            ranked = [row for row in ranked if coverage.enough(row)]
        if ranked:
            lists.append(RankedList("bm25", ranked, weights.bm25_weight * weight, "routed", section))
    return lists


class Coverage:
    """How many of a question's ``wanted`` terms a passage prints, against the best-covered of the first candidates
    of ``lists``: within a section every page ranks, however little of the question it prints, and a section the
    question is routed to should count for a page that answers, not for every page of the section."""

    def __init__(self, index: LoadedIndex, wanted: set[str], lists: list[RankedList], recipe: Recipe) -> None:
        self._held_counts = index.storage.held_counts
        self._wanted = wanted
        self._counts: dict[int, int] = {}
        self._first = [list(ranked.rows[: recipe.coverage_candidates]) for ranked in lists]  # the lists so far
        self._share = recipe.section_coverage if wanted else 0.0

    @cached_property
    def floor(self) -> float:
        """The terms a passage must hold: the share of what the best-covered first candidate holds (read only when
        a section is asked about: a question routed nowhere pays nothing)."""
        if self._share <= 0:
            return 0.0
        first = [row for rows in self._first for row in rows]
        self.read(first)
        return self._share * max((self._counts[row] for row in first), default=0)

    def read(self, rows: list[int]) -> None:
        """Count the terms of each of ``rows`` not counted yet, all at once."""
        unread = np.array(sorted({row for row in rows if row not in self._counts}), dtype=np.int64)
        if unread.size:
            self._counts.update(zip(unread.tolist(), self._held_counts(unread, self._wanted).tolist(), strict=True))

    def count(self, row: int) -> int:
        self.read([row])
        return self._counts[row]

    def enough(self, row: int) -> bool:
        """Whether passage ``row`` holds at least ``section_coverage`` of what the best candidate holds."""
        return self.floor <= 0 or self.count(row) >= self.floor


def printed_in_scope(index: LoadedIndex, text: str, allowed: np.ndarray | None) -> bool:
    """Whether some passage of the documents searched holds every token of ``text`` (a year a filing prints)."""
    tokens = index.tokenizer.tokenize(text)
    if not tokens or not all(index.storage.knows(t) for t in tokens):
        return False
    rows = index.storage.passages(tokens, 1, allowed)
    return bool(rows.size) and index.storage.held(int(rows[0]), set(tokens)) == set(tokens)


def without_names(tokens: list[str], names: set[str]) -> list[str]:
    """``tokens`` without ``names``, unless nothing else is left (a question that only names a company)."""
    kept = [t for t in tokens if t not in names]
    return kept or tokens


def bigrams_without_names(tokenizer: Tokenizer, text: str, names: set[str]) -> list[str]:
    """The CJK bigrams of ``text`` but those inside a scoped company's name (printed on every page of its filings),
    unless nothing else is left."""
    pairs = list(dict.fromkeys(tokenizer.bigrams(text)))
    kept = [p for p in pairs if not any(p[len(BIGRAM_MARK) :] in name for name in names)]
    return kept or pairs
