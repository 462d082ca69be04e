import time

import pytest

from indexer.core.errors import QueryError
from indexer.core.models import Box, Chunk
from indexer.knowledge_base import KnowledgeBase
from indexer.search.regex_search import Tally, compile_pattern, regex_budget, regex_matches
from indexer.search.request import SearchRequest


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


def test_matches_of_separators_alone_rank_last_and_are_told() -> None:
    chunks = [*CHUNKS, _chunk("appliances, home theater, computing, and gaming", 3)]
    tally = Tally()
    found = regex_matches(r"[\d,]+", range(4), lambda row: chunks[row].text, regex_budget("x"), tally)
    assert found == [(0, 2), (2, 1), (3, 0)]  # the bare commas of row 3 are no match worth ranking
    assert (tally.meaningful, tally.separators) == (3, 3) and tally.note(r"[\d,]+") is None  # not mostly
    tally = Tally()
    regex_matches(r"[\s,]+", range(4), lambda row: chunks[row].text, regex_budget("x"), tally)
    note = tally.note(r"[\s,]+")
    assert tally.meaningful == 0 and note is not None and "only separators or spaces" in note and r"\d[\d,.]*" in note


def test_a_search_for_separators_says_so(samples_kb: KnowledgeBase) -> None:
    request = SearchRequest(query=r",\s*", use_regex=True, top_k=5, documents="BESTBUY*")
    outcome = samples_kb.search(request)
    assert outcome.note is not None and "only separators or spaces" in outcome.note
    assert outcome.hits and all(hit.score == 0 for hit in outcome.hits)
    figures = samples_kb.search(SearchRequest(query=r"\d[\d,]*", use_regex=True, top_k=5, documents="BESTBUY*"))
    assert figures.note is None and figures.hits[0].score > 0
