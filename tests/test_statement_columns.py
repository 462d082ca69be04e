"""What a statement's columns say of their figures, read off real pages: whose figures a column holds (the group's
beside the parent company's), the span a caption gives columns whose headers name none, the order numeric dates
print day and month in, and a column headed by a bare currency sign over figures in full."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.core.fiscal import first_date, numeric_month_first
from indexer.evidence.periods import ColumnPeriods, ReportPeriod, ending_at_newest
from indexer.ingest.build import BuildSettings, build_index
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import FinancialsRequest
from tests.conftest import docs_folder, text_under

PDFS = Path(__file__).parent / "pdfs"
GROUP_AND_PARENT = PDFS / "structural_monitoring_2022_p23_p28.pdf"  # Consolidated 2022 2021 | Parent 2022 2021
POUNDS = PDFS / "starvest_2022_p36.pdf"  # 'Year ended 30 September 2022 £' over figures in full pounds
QUARTER = PDFS / "ebay_2023q1_release_p8.pdf"  # 'Three Months Ended' over 'March 31, 2023 | 2022'
SHARE_COUNTS = PDFS / "nice_2022_20f_p114.pdf"  # EPS rows, then share counts under 'Weighted average number of shares'
NOTE_UNDER_TITLE = PDFS / "benjamin_hornigold_2022_p15_p19.pdf"  # 'Note 2022 2021' under 'For the year 30 June 2022'
BRACKETED_SIGN = PDFS / "canadian_banc_2022_p16_p24.pdf"  # '($) ($)' over figures in full dollars
DOLLAR_DEFINED = PDFS / "tower_semiconductor_2022_20f_p3_p104.pdf"  # 'references … to "$" are to United States dollars'


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> KnowledgeBase:
    docs = docs_folder(
        tmp_path_factory.mktemp("columns-docs"),
        GROUP_AND_PARENT,
        POUNDS,
        QUARTER,
        DOLLAR_DEFINED,
        SHARE_COUNTS,
        NOTE_UNDER_TITLE,
        BRACKETED_SIGN,
    )
    index = tmp_path_factory.mktemp("columns") / "index"
    build_index(BuildSettings(docs_dir=docs, index_dir=index, embedder="none", progress=False, cache_dir=cache_dir))
    return KnowledgeBase.open(index, cache_dir, with_embedder=False)


def test_the_parent_companys_columns_beside_the_groups_are_left_out(kb: KnowledgeBase) -> None:
    request = FinancialsRequest(document=GROUP_AND_PARENT.name, statement="balance", items=["total_assets"])
    rows = kb.financials(request).rows
    # the group's two years; the parent's 11,715 and 10,191, printed in the same row, are not the group's figures
    assert [(r.value_printed, r.fiscal_year) for r in rows] == [("35,051", 2022), ("16,862", 2021)]
    assets = rows[0]
    assert (assets.page, assets.currency, assets.scale, assets.verified) == (1, "AUD", "thousands", True)
    assert text_under(GROUP_AND_PARENT, 1, assets.boxes[-1:]) == "35,051"
    every = kb.financials(FinancialsRequest(document=GROUP_AND_PARENT.name, statement="balance")).rows
    printed = {r.value_printed for r in every}
    assert {"17,397", "19,491", "15,560"} <= printed and not printed & {"11,715", "10,191", "10,964", "751"}
    assert all(r.verified for r in every if r.concept in ("total_assets", "total_liabilities", "total_equity"))


def test_a_bare_pound_sign_over_each_column_states_figures_in_pounds(kb: KnowledgeBase) -> None:
    (loss,) = kb.financials(FinancialsRequest(document=POUNDS.name, items=["net_income"], year=2022)).rows
    assert (loss.label, loss.value_printed, loss.value) == (
        "Loss for the financial year attributable to", "(5,869,756)", "-5869756"
    )  # fmt: skip
    assert (loss.currency, loss.scale, loss.verified, loss.missing) == ("GBP", "", True, [])
    assert loss.scale_source is not None and "Year ended 30 September 2022 £" in loss.scale_source.text
    assert loss.scale_source.box is not None and "£" in text_under(POUNDS, 1, [loss.scale_source.box])


def test_a_caption_gives_its_span_to_columns_whose_headers_name_none(kb: KnowledgeBase) -> None:
    rows = kb.financials(FinancialsRequest(document=QUARTER.name, statement="income", items=["revenue"])).rows
    assert [(r.value_printed, r.period_end, r.months) for r in rows] == [
        ("$2,510", "2023-03-31", 3), ("$2,483", "2022-03-31", 3)
    ]  # fmt: skip


def test_numeric_dates_are_read_in_the_order_the_same_headers_print_them() -> None:
    headers = ["12 Weeks Ended 6/17/2023", "12 Weeks Ended 6/11/2022"]
    assert numeric_month_first(headers) and not numeric_month_first(["17/6/2023", "11/6/2022"])
    assert not numeric_month_first(["6/11/2022"]) and not numeric_month_first(["6/17/2023", "17/6/2023"])
    assert first_date("6/11/2022") == "2022-11-06" and first_date("6/11/2022", month_first=True) == "2022-06-11"
    assert first_date("17/6/2023", month_first=True) == "2023-06-17"  # a day past 12 is a day, whatever the order
    periods = ColumnPeriods(headers, "Condensed Consolidated Statement of Income", ReportPeriod("2023-06-17", 2023))
    assert [(p.end, p.months) for h in headers if (p := periods(h))] == [("2023-06-17", None), ("2022-06-11", None)]


def test_a_sentence_that_says_what_its_dollar_sign_stands_for_settles_it(kb: KnowledgeBase) -> None:
    # a 20-F is filed with the SEC in whatever currency the issuer presents in: its $ is settled by its own words
    rows = kb.financials(FinancialsRequest(document=DOLLAR_DEFINED.name, items=["revenue"], year=2022)).rows
    revenue = rows[0]
    assert (revenue.page, revenue.value_printed, revenue.currency, revenue.verified) == (2, "$1,677,614", "USD", True)
    where = revenue.currency_source
    assert where is not None and where.page == 1 and '"$" are to United States dollars' in where.text
    assert where.box is not None and "UnitedStatesdollars" in text_under(DOLLAR_DEFINED, 1, [where.box])


def test_rows_under_a_heading_that_counts_shares_are_share_counts(kb: KnowledgeBase) -> None:
    # 'Weighted average number of shares (in thousands) used in computing:' over 'Basic earnings per share'
    request = FinancialsRequest(document=SHARE_COUNTS.name, items=["eps_basic", "shares_basic"], year=2022)
    rows = {r.concept: r for r in kb.financials(request).rows}
    assert (rows["eps_basic"].value_printed, rows["eps_basic"].unit) == ("$4.17", "per_share")
    shares = rows["shares_basic"]
    assert (shares.value_printed, shares.unit) == ("63,790", "shares")
    assert shares.label.startswith("Weighted average number of shares") and shares.label.endswith(
        "Basic earnings per share"
    )


def test_a_note_column_under_the_statements_title_is_no_period(kb: KnowledgeBase) -> None:
    rows = kb.financials(FinancialsRequest(document=NOTE_UNDER_TITLE.name, statement="income")).rows
    assert {r.period for r in rows} == {"2022", "2021"}  # not the title 'For the year 30 June 2022' over the notes
    assert not {r.value_printed for r in rows} & {"5", "7", "17"}
    pretax = next(r for r in rows if r.concept == "pretax_income" and r.period == "2022")
    assert (pretax.value_printed, pretax.currency, pretax.scale, pretax.verified) == ("(1,239,019)", "AUD", "", True)


def test_a_bracketed_sign_over_each_column_states_figures_in_full(kb: KnowledgeBase) -> None:
    (cash,) = kb.financials(FinancialsRequest(document=BRACKETED_SIGN.name, items=["cash"], year=2022)).rows
    assert (cash.value_printed, cash.currency, cash.scale, cash.verified) == ("60,390,826", "CAD", "", True)
    assert cash.scale_source is not None and cash.scale_source.text.startswith("($) ($)")
    assert cash.scale_source.box is not None and text_under(BRACKETED_SIGN, 1, [cash.scale_source.box]) == "($)($)"


def test_a_report_known_by_its_fiscal_year_alone_ends_at_its_newest_column() -> None:
    # a fiscal first-quarter release of a January year-end filer, whose record names the fiscal year (2024) only
    headers = ["Three Months Ended April 30, 2023", "Three Months Ended April 30, 2022", "January 31, 2023"]
    report = ending_at_newest(ReportPeriod(None, 2024), headers)
    assert report == ReportPeriod("2023-04-30", 2024)
    periods = ColumnPeriods(headers, None, report)
    assert [(p.end, p.fiscal_year, p.months) for h in headers if (p := periods(h))] == [
        ("2023-04-30", 2024, 3), ("2022-04-30", 2023, 3), ("2023-01-31", 2023, None)
    ]  # fmt: skip
    assert ending_at_newest(ReportPeriod(None, 2024), ["2023", "2022"]).end is None  # no date printed: none read
    known = ReportPeriod("2023-04-30", 2024)
    assert ending_at_newest(known, ["January 31, 2024"]) is known  # a report's own end stands
