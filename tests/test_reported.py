"""What a filing reports, read at build time: its statements' periods (printed and as calendar ends) and an 8-K's
items, shown in list_documents."""

from __future__ import annotations

from indexer.core.models import Box, Line, Page, Span
from indexer.ingest.reported import eight_k_items
from indexer.knowledge_base import KnowledgeBase
from indexer.listing import grouped
from indexer.requests import ListRequest
from tests.conftest import BESTBUY_10Q, MGM, SIFANG


def test_a_10q_reports_its_quarter_its_half_and_its_balance_dates(samples_kb: KnowledgeBase) -> None:
    periods = {(p.end, p.months): p for p in samples_kb.document(BESTBUY_10Q.name).periods}
    assert periods[("2023-07-29", 3)].printed == "Three Months Ended July 29, 2023"
    assert periods[("2023-07-29", 6)].fiscal_year == 2024  # Best Buy names the year by its January end
    assert {("2023-01-28", None), ("2022-07-30", 3)} <= set(periods)
    listed = samples_kb.list_documents(ListRequest(documents=BESTBUY_10Q.name))
    assert listed.documents[0].periods == samples_kb.document(BESTBUY_10Q.name).periods


def test_an_earnings_release_reports_its_quarter_and_its_year(samples_kb: KnowledgeBase) -> None:
    periods = {(p.end, p.months): p.printed for p in samples_kb.document(MGM.name).periods}
    assert periods[("2022-12-31", 3)].endswith("Three Months Ended December 31, 2022")
    assert periods[("2022-12-31", 12)] == "Twelve Months Ended December 31, 2022"
    assert {("2021-12-31", 3), ("2021-12-31", 12), ("2022-12-31", None)} <= set(periods)
    assert not samples_kb.document(SIFANG.name).periods  # pages 1-12 of a 年报: no statement among them


def _page(number: int, texts: list[str]) -> Page:
    lines = []
    for n, text in enumerate(texts):
        box = Box(page=number, x0=72, top=100 + 14 * n, x1=72 + 5 * len(text), bottom=110 + 14 * n)
        lines.append(Line(text=text, box=box, spans=[Span(text=text, box=box)]))
    return Page(number=number, width=612, height=792, lines=lines)


def test_an_8k_reports_the_items_it_prints_each_once() -> None:
    pages = [
        _page(1, ["UNITED STATES SECURITIES AND EXCHANGE COMMISSION", "FORM 8-K", "CURRENT REPORT"]),
        _page(2, [
            "Item 5.07. Submission of Matters to a Vote of Security Holders.",
            "The Annual Meeting of Shareholders was held on May 3, 2023. See Item 5.07 above for the votes.",
            "Item 9.01 Financial Statements and Exhibits",
            "Item 5.07 Submission of Matters to a Vote of Security Holders (continued)",
        ]),
    ]  # fmt: skip
    items = eight_k_items(pages)
    assert [(i.number, i.title) for i in items] == [
        ("5.07", "Submission of Matters to a Vote of Security Holders"),
        ("9.01", "Financial Statements and Exhibits"),
    ]


def test_a_company_line_names_an_8ks_items(samples_kb: KnowledgeBase) -> None:
    items = eight_k_items([_page(1, ["Item 5.07 Submission of Matters to a Vote of Security Holders"])])
    meta = samples_kb.document(MGM.name).model_copy(update={"form": "8-K", "period": "2023-05-03", "items": items})
    ((line, _),) = grouped([meta])
    assert line.filings == ("8-K 2023-05-03 (5.07)",)
