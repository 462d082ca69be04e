"""A hit shows the sentences or rows that match (issue 43): the unit holding most of the question's terms, with its
neighbours while they fit, starting at a sentence or row boundary, and a survey line its best sentence."""

from __future__ import annotations

from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest
from mcp_server.snippets import CUT, matched_passage, units
from mcp_server.tools.search_reports import PASSAGE_CHARS, search_brief

STATEMENT = """Consolidated Results
Revenue decreased in the quarter. Comparable sales declined 6.2%, driven by appliances and home theater.
Online revenue was $2.8 billion.
Revenue $ 9,583 $ 10,329
Cost of sales 7,385 8,051
Gross profit 2,198 2,278"""


def test_units_are_sentences_headings_and_rows() -> None:
    assert units(STATEMENT) == [
        ("Consolidated Results", True),
        ("Revenue decreased in the quarter.", False),
        ("Comparable sales declined 6.2%, driven by appliances and home theater.", False),
        ("Online revenue was $2.8 billion.", False),
        ("Revenue $ 9,583 $ 10,329", True),
        ("Cost of sales 7,385 8,051", True),
        ("Gross profit 2,198 2,278", True),
    ]


def test_the_unit_with_most_terms_is_shown_with_its_neighbours() -> None:
    shown = matched_passage(STATEMENT, ["comparable", "sales", "declined"], 120)
    assert (
        shown
        == CUT
        + "Comparable sales declined 6.2%, driven by appliances and home theater. Online revenue was $2.8 billion."
        + CUT
    )
    rows = matched_passage(STATEMENT, ["gross profit"], 60)
    assert rows == CUT + "Cost of sales 7,385 8,051\nGross profit 2,198 2,278"  # rows keep their own lines
    assert matched_passage(STATEMENT, ["no such term"], 40).startswith("Consolidated Results")  # none: the start
    long = matched_passage("word " * 60 + "needle " + "word " * 60, ["needle"], 80)
    assert "needle" in long and len(long) <= 82 and long.startswith(CUT) and long.endswith(CUT)


def test_a_hit_shows_the_sentence_that_matched(samples_kb: KnowledgeBase) -> None:
    request = SearchRequest(query="comparable sales declines appliances", top_k=5, documents="BESTBUY*")
    result = samples_kb.search_reports(request)
    brief = search_brief(result)
    texts = [hit.text for hit in brief.hits]  # type: ignore[union-attr]
    first = next(t for t in texts if "comparable sales declines in appliances" in t)
    assert "The decrease in revenue" in first  # from the sentence's start, not the passage's
    assert all(len(t) <= PASSAGE_CHARS + 2 for t in texts)
    survey = search_brief(result, survey=True)
    assert any("comparable sales declines" in p.line for p in survey.hits)  # type: ignore[union-attr]
