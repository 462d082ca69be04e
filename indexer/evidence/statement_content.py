"""A primary statement recognised by what it contains, not by its title: a page whose lines are mostly the rows of
one statement — revenue, cost of sales, operating income, net income, EPS (or a bank's interest income, an
insurer's premiums) for the income statement; total assets, liabilities and equity for the balance sheet; operating,
investing and financing activities for the cash flow statement — each printed with figures.

Titles vary too much to be the only evidence ("Statements of Operations", "Group income statement", a title printed
as a picture, a running header); the rows a statement must print do not. A row counts once per concept, so a long
note that repeats "net income" is not an income statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache

from indexer.core.models import Line
from indexer.core.statement_names import PRIMARY
from indexer.data.vocabulary import vocabulary

# A row ends in a figure; the figure is at most 40 characters, so a search from further back stops at once.
_FIGURE = re.compile(r"(?=.{0,40}$)(?<![\w.])\(?-?[$€£¥]?\s?\d[\d,]*(?:\.\d+)?\)?\s*$")
# What each statement prints (the vocabulary's statements' `rows`): row kind → the start of its row label, after a
# note number or a bullet.
STATEMENT_KINDS = PRIMARY


@cache
def _markers() -> dict[str, dict[str, re.Pattern[str]]]:
    statements = vocabulary().statements
    return {
        kind: {row: re.compile(rf"^(?:\d{{1,2}}\s+|[•·]\s*)?(?:{p})", re.I) for row, p in statements[kind].rows.items()}
        for kind in STATEMENT_KINDS
    }


# The least a page must print to be a statement's: the concepts of that statement (and the ones it cannot lack).
ENOUGH = {"income_statement": 3, "balance_sheet": 3, "cash_flow": 2}
LIKELY_CONCEPTS = 2  # a page named as likely to hold a statement prints at least this many of its concepts
_ACTIVITIES = ("operating", "investing", "financing")


def concepts_on(lines: Sequence[Line]) -> dict[str, set[str]]:
    """Per statement kind, the concepts the page prints as rows with figures."""
    found: dict[str, set[str]] = {kind: set() for kind in STATEMENT_KINDS}
    for line in lines:
        text = " ".join(line.text.split())
        if not _FIGURE.search(text):
            continue
        for kind, markers in _markers().items():
            found[kind].update(concept for concept, pattern in markers.items() if pattern.match(text))
    return found


def page_kind(found: dict[str, set[str]]) -> tuple[str | None, int]:
    """The statement a page's rows (``concepts_on``) make it, and how many of that statement's concepts it prints;
    (None, 0) when no statement has enough. A cash flow statement needs two of its activities; an income statement
    fewer than two (the cash flow statement starts from net income too; IFRS prints "profit from operating
    activities")."""
    activities = len(found["cash_flow"] & set(_ACTIVITIES))
    scores: dict[str, int] = {}
    for kind, concepts in found.items():
        if len(concepts) < ENOUGH[kind]:
            continue
        if kind == "cash_flow" and activities < 2:
            continue
        if kind == "income_statement" and activities >= 2:  # "profit from operating activities" is an income row
            continue
        scores[kind] = len(concepts)
    if not scores:
        return None, 0
    kind = max(scores, key=lambda k: (scores[k], k == "cash_flow"))
    return kind, scores[kind]


def likely_pages(pages: Iterable[tuple[int, Sequence[Line]]], kinds: Sequence[str], limit: int = 3) -> list[int]:
    """The pages printing the most concepts of the ``kinds`` of statement as rows with figures (at least two), best
    first: where a statement no heading or threshold found most likely is."""
    scored = []
    for number, lines in pages:
        found = concepts_on(lines)
        count = max(len(found[kind]) for kind in kinds)
        if count >= LIKELY_CONCEPTS:
            scored.append((-count, number))
    return [number for _, number in sorted(scored)[:limit]]
