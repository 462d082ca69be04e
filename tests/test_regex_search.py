import time

import pytest

from indexer.core.errors import QueryError
from indexer.core.models import Box, Chunk
from indexer.search.regex_search import compile_pattern, regex_budget, regex_matches


def _chunk(text: str, n: int) -> Chunk:
    return Chunk(
        chunk_id=f"c{n}", document="d.pdf", page=1, page_width=600, page_height=800, text=text,
        boxes=[Box(page=1, x0=0, top=0, x1=10, bottom=10)], content_hash=str(n),
    )  # fmt: skip


CHUNKS = [
    _chunk("Revenue was $9,583 million and $10,329 million", 0),
    _chunk("no figures here", 1),
    _chunk("capital expenditures of $1,577 Million", 2),
]


def test_matches_are_case_insensitive_and_counted() -> None:
    found = regex_matches(r"\$[\d,]+\s*million", range(3), lambda row: CHUNKS[row].text, regex_budget("x"))
    assert found == [(0, 2), (2, 1)]


def test_invalid_pattern_names_the_problem() -> None:
    with pytest.raises(QueryError, match=r"invalid regular expression.*position"):
        compile_pattern("(unclosed")


def test_catastrophic_pattern_stops_at_the_deadline() -> None:
    evil = [_chunk("a" * 40 + "!", n) for n in range(5)]
    started = time.monotonic()
    with pytest.raises(QueryError, match="took longer"):
        regex_matches(r"(a|aa)+$", range(5), lambda row: evil[row].text, regex_budget("(a|aa)+$", 0.5))
    assert time.monotonic() - started < 3


def test_empty_and_huge_patterns_are_refused() -> None:
    with pytest.raises(QueryError, match="empty"):
        compile_pattern("  ")
    with pytest.raises(QueryError, match="over the limit of 500"):
        compile_pattern("a" * 501)


def test_patterns_that_match_empty_count_where_they_match() -> None:
    budget = regex_budget("x")
    assert regex_matches(r"x?", range(3), lambda row: CHUNKS[row].text, budget) == [
        (0, 1),
        (1, 1),
        (2, 1),
    ]  # only empty matches: 1 each
    assert regex_matches(r"(?=million)", range(3), lambda row: CHUNKS[row].text, budget) == [(0, 1), (2, 1)]
    assert regex_matches(r"e?", range(1), lambda row: CHUNKS[row].text, budget) == [(0, 3)]  # non-empty matches counted
