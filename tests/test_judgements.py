"""Judgement questions find their statements (issue 30): "Is X capital-intensive?", "a healthy liquidity profile?",
"increased its debt?" name none of the line items that answer them; the question is routed to the statements and
searched with the line items printed there (the judgements of indexer/data/vocabulary.toml), and analysts'
abbreviations expand both ways in both languages (its concepts' terms)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from indexer.core.sections import question_sections
from indexer.core.tokenize import Tokenizer
from indexer.data.vocabulary import vocabulary
from indexer.evidence.concepts import concepts_named
from indexer.knowledge_base import KnowledgeBase
from indexer.search.expand import expand, glossary_terms, judgement_terms
from indexer.search.judgement_routes import judgement_sections
from tests.conftest import BESTBUY_10Q, hits_for

BALANCE_SHEET, CASH_FLOW = 3, 6


@pytest.fixture(scope="module")
def tokenize(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[str]]:
    """The tokenizer an index reads questions with (its jieba cache in a folder of the test's own)."""
    return Tokenizer(tmp_path_factory.mktemp("jieba")).tokenize  # Best Buy's Q2 FY2024 10-Q: the statements' pages


@pytest.mark.parametrize(
    ("question", "first", "printed"),
    [
        ("Is Boeing a capital-intensive business?", "cash_flow", "capital expenditures"),
        ("Does 3M have a healthy liquidity profile?", "balance_sheet", "total current liabilities"),
        ("Has AMD increased its debt on the balance sheet?", "balance_sheet", "long-term debt"),
        ("四方科技是重资产公司吗？", "cash_flow", "购建固定资产"),
    ],
)
def test_a_judgement_is_routed_to_its_statements_and_searched_with_their_line_items(
    question: str, first: str, printed: str, tokenize: Callable[[str], list[str]]
) -> None:
    assert question_sections(question, judgement_sections(question, tokenize))[0] == first
    assert printed in judgement_terms(question)
    keywords = next(v for v in expand(question) if v.reason == "keywords")
    assert printed in keywords.text.lower()


def test_a_judgements_route_is_derived_from_the_statements_of_its_line_items(
    tokenize: Callable[[str], list[str]],
) -> None:
    """No route is written for a judgement: its line items' concepts say which statements print them (issue 42)."""
    capex = {s for name in concepts_named("capital expenditures") for s in vocabulary().concept(name).statements}
    assert capex == {"cash_flow"}
    routed = judgement_sections("Is Boeing a capital-intensive business?", tokenize)
    assert routed[0] == "cash_flow" and "balance_sheet" in routed and routed[-2:] == ("mdna", "notes")
    assert judgement_sections("Does 3M have a healthy liquidity profile?", tokenize)[0] == "balance_sheet"
    # a question that names one of the line items is routed by what it names, not by the judgement
    assert judgement_sections("Did gross margin improve in 2022?", tokenize) == ()
    assert question_sections("Did gross margin improve in 2022?")[0] == "income_statement"
    # as a margin the filing prints is named: "operating margin" is one of its judgement's line items too
    assert judgement_sections("What drove the change in operating margin?", tokenize) == ()
    assert judgement_sections("What was revenue in 2022?", tokenize) == ()


def test_a_line_item_is_named_in_any_order_and_form(tokenize: Callable[[str], list[str]]) -> None:
    """Read with the index's tokenizer, "paid dividends" names "dividends paid" and "repurchased common stock" names
    "repurchases of common stock": such a question asks about what it names, not a judgement it leaves unsaid."""
    for question in ("Has MGM paid dividends to its shareholders?", "Has Apple repurchased common stock since 2020?"):
        assert "dividends paid" not in question and "repurchases of common stock" not in question  # not as written
        assert judgement_sections(question, tokenize) == ()
    assert judgement_sections("Is Boeing a capital-intensive business?", tokenize)[0] == "cash_flow"
    assert judgement_sections("Does MGM pay a dividend?", tokenize)[0] == "cash_flow"  # "paid" is not said


def test_judgement_terms_go_one_way() -> None:
    """A question about a line item is not a question about the judgement it serves."""
    assert judgement_terms("What was Boeing's capex in 2022?") == []
    assert judgement_terms("What were the capital expenditures in FY2021?") == []


@pytest.mark.parametrize(
    ("abbreviation", "meaning"),
    [
        ("PPNE", "property plant and equipment"),
        ("FCF", "free cash flow"),
        ("NPL ratio", "non-performing loans"),
        ("ROIC", "return on invested capital"),
        ("SG&A", "selling general and administrative"),
        ("opex", "operating expenses"),
        ("TTM revenue", "trailing twelve months"),
        ("不良贷款率", "npl"),
        ("资产负债率", "debt to asset ratio"),
        ("return on invested capital", "roic"),
    ],
)
def test_analysts_abbreviations_expand_both_ways(abbreviation: str, meaning: str) -> None:
    assert meaning in glossary_terms(abbreviation)


def test_a_capital_intensity_question_reaches_the_statements(e5_samples_kb: KnowledgeBase) -> None:
    pages = [hit.page for hit in hits_for(e5_samples_kb, "Is Best Buy a capital-intensive business?", top_k=5)]
    # answered where its line items are printed (the capex line), not where its own words are: MD&A's "Business
    # Strategy Update" and "Liquidity and Capital Resources" print "business" and "capital"
    assert pages[0] == CASH_FLOW and {BALANCE_SHEET, CASH_FLOW} & set(pages), pages
    hits = hits_for(e5_samples_kb, "Has Best Buy increased its debt?", top_k=5)
    assert hits[0].document == BESTBUY_10Q.name and BALANCE_SHEET in [h.page for h in hits]
