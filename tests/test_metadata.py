from pathlib import Path

import pytest

from indexer.core.fiscal import fiscal_year, period_end
from indexer.core.models import Box, Line, Page, Span
from indexer.ingest.metadata import describe, detect_form, detect_period
from indexer.ingest.parse import PdfParser
from tests.conftest import BESTBUY_10Q, BROKER, MGM, SHARED, SIFANG


@pytest.mark.parametrize(
    ("pdf", "company", "form", "period", "year", "language", "code"),
    [
        (BESTBUY_10Q, "BEST BUY CO., INC.", "10-Q", "quarter ended 2023-07-29", 2024, "en", None),  # fiscal 2024
        (MGM, "MGM RESORTS INTERNATIONAL", "earnings release", "Q4 2022", 2022, "en", None),
        (SIFANG, "四方科技", "年报", "FY2019", 2019, "zh", "603339"),
        (BROKER, "高测股份", "研报", "2022-07-19", 2022, "zh", "688556"),
    ],
)
def test_sample_metadata(pdf, company, form, period, year, language, code) -> None:  # type: ignore[no-untyped-def]
    meta = describe(pdf.name, PdfParser().parse(pdf))
    assert (meta["company"], meta["form"], meta["period"], meta["year"]) == (company, form, period, year)
    assert (meta["language"], meta["stock_code"]) == (language, code)
    assert company in str(meta["title"])


def test_unknown_stays_unknown() -> None:
    assert detect_form("scan_0001.pdf", "some text without any form words") is None
    assert detect_period(None, "scan_0001.pdf", "no dates here") is None


def test_a_form_named_in_running_text_is_another_document() -> None:
    release = (
        "ACME Corp Reports First-Quarter 2023 Results; Raises Full-Year Guidance\nNet revenue growth 10.2%\n"
        "… Please refer to ACME's Quarterly Report on Form 10-Q for the 12 weeks ended March 25, 2023 …"
    )
    assert detect_form("x.pdf", release) == "earnings release"
    cover = "UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nFORM 10-Q\nACME Corp Reports First-Quarter Results"
    assert detect_form("x.pdf", cover) == "10-Q"  # a cover's title line outranks a headline


def test_ten_k_fiscal_year_comes_from_the_cover() -> None:
    text = "FORM 10-K\nFor the fiscal year ended January 28, 2023\nBEST BUY CO., INC.\n(Exact name of registrant"
    assert detect_form("x.pdf", text) == "10-K"
    assert detect_period("10-K", "x.pdf", text) == "FY2023"
    assert period_end(text) == "2023-01-28" and fiscal_year("x.pdf", text, "2023-01-28", None, annual=True) == 2023


def test_fiscal_years_as_filers_name_them() -> None:
    early = "FORM 10-K\nFor the fiscal year ended January 1, 2023\nACME CORP"  # a 52/53-week year: fiscal 2022
    assert (
        detect_period("10-K", "x.pdf", early) == "FY2022"
        and fiscal_year("x.pdf", early, period_end(early), None) == 2022
    )
    quarter = "For the quarterly period ended July 29, 2023 … results for the second quarter of fiscal 2024 …"
    assert period_end(quarter) == "2023-07-29" and fiscal_year("x.pdf", quarter, "2023-07-29", None) == 2024
    assert fiscal_year("AAPL_2022_10K.pdf", "no fiscal words", "2022-09-24", None) == 2022
    assert period_end("四方科技 2019 年年度报告") == "2019-12-31" and period_end("2023年半年度报告") == "2023-06-30"
    # the Best Buy 10-Q renamed: the year comes from its own "second quarter of fiscal 2024", not the file name
    renamed = describe("report.pdf", PdfParser().parse(BESTBUY_10Q))
    assert (renamed["year"], renamed["period_end"]) == (2024, "2023-07-29")
    assert renamed["title"] == "BEST BUY CO., INC. · 10-Q · quarter ended 2023-07-29 (fiscal 2024)"


def test_broker_note_cover() -> None:
    """The real 德邦证券 note on 高测股份 (also ../shared/corpus/broker/): broker, analyst, rating, price, date."""
    meta = describe(BROKER.name, PdfParser().parse(BROKER))
    assert meta["broker"] == "德邦证券"
    assert meta["analysts"] == ["倪正洋"]  # the licensed analyst; the research assistant has no SAC number
    assert (meta["rating"], meta["rating_action"]) == ("增持", "维持")
    assert (meta["price"], meta["target_price"]) == (82.42, None)  # the cover prints no target price
    assert meta["period"] == "2022-07-19"
    renamed = describe("note.pdf", PdfParser().parse(BROKER))  # without the file name's hint
    assert renamed["broker"] == "德邦证券" and renamed["company"] == "高测股份"


def test_annual_report_and_filings_have_no_broker_fields() -> None:
    for pdf in (SIFANG, BESTBUY_10Q):
        meta = describe(pdf.name, PdfParser().parse(pdf))
        assert "broker" not in meta and "rating" not in meta


def test_broker_rating_and_target_price_forms() -> None:
    from indexer.ingest.broker_note import _CURRENT_PRICE, _RATING, _RATING_LABELLED, _TARGET_PRICE

    assert _RATING.search("买入（首次）").groups() == ("买入", "首次")
    assert _RATING.search("增持(维持评级)").groups() == ("增持", "维持")
    assert _RATING_LABELLED.search("投资评级：推荐").group(1) == "推荐"
    assert _TARGET_PRICE.search("目标价格（元）：105.60").group(1) == "105.60"
    assert _CURRENT_PRICE.search("收盘价(元) 1,234.5").group(1) == "1,234.5"


ERC = SHARED / "eval" / "dev" / "en" / "pdfs"


@pytest.mark.parametrize(
    ("name", "company", "form", "year", "end"),
    [
        ("erc_zegona_communications_3696c1b2.pdf", "Zegona Communications plc", "annual report", 2022, "2022-12-31"),
        ("erc_ethernity_networks_e51b7204.pdf", "Ethernity Networks Ltd", "annual report", 2022, "2022-12-31"),
        ("erc_mainstreet_bancshares_53a00624.pdf", "MainStreet Bancshares, Inc.", "annual report", 2022, "2022-12-31"),
        # its cover prints only "2022 Annual Report": the registrant of the 10-K bound behind it (page 7), not the
        # file name; the period end from "For the years ended December 31, 2022 …" in the report's year
        (
            "erc_acres_commercial_realty_0279901b.pdf",
            "ACRES COMMERCIAL REALTY CORP.",
            "annual report",
            2022,
            "2022-12-31",
        ),
    ],
)
def test_an_annual_report_to_shareholders_from_its_cover(
    name: str, company: str | None, form: str, year: int, end: str | None
) -> None:
    """Annual reports of other countries and US shareholders' reports: the company as a cover line with a legal form,
    the form by the title, the year by "2022 Annual Report" or "For the Year Ended 31 December 2022" — and a title
    such as "2022 Annual Report" is no company."""
    pages = PdfParser().parse(ERC / name)[:12]
    described = describe(name, pages)
    assert (described["company"], described["form"], described["year"], described["period_end"]) == (
        company, form, year, end,
    )  # fmt: skip


def test_a_company_named_only_inside_its_annual_report() -> None:
    """KP Tissue's report is branded Kruger Products on every cover page; the company it is about is the legal name
    printed on the most pages ("KP Tissue Inc." 22 pages, its parent "Kruger Inc." 20)."""
    name = "erc_kp_tissue_d14ae2b6.pdf"
    described = describe(name, PdfParser().parse(ERC / name))
    assert (described["company"], described["year"], described["period_end"]) == ("KP Tissue Inc.", 2022, "2022-12-31")


def test_small_capitals_are_joined_again() -> None:
    from indexer.ingest.cover_agreement import unsplit

    assert unsplit("MGM R ESORTS I NTERNATIONAL") == "MGM RESORTS INTERNATIONAL"
    assert unsplit("J CREW GROUP") == "J CREW GROUP"  # one split word: nothing to tell it from an initial


def test_a_period_end_printed_apart_from_its_words() -> None:
    """A 10-Q cover whose columns run together: the first date within reach of "quarterly period ended"."""
    cover = "For the quarterly period ended Commission file number 1-5805\nMarch 31, 2021"
    assert period_end(cover) == "2021-03-31"
    assert period_end("12 weeks ended March 25, 2023") == "2023-03-25"
    assert period_end("For the quarterly period ended\n" + "x" * 200 + " March 31, 2021") is None  # out of reach


def _pages(*texts: str) -> list[Page]:
    """Pages whose lines are the given texts, one line per text line (the layout does not matter to metadata)."""
    pages = []
    for number, text in enumerate(texts, start=1):
        lines = []
        for index, line in enumerate(text.splitlines()):
            box = Box(page=number, x0=50, top=50 + 12 * index, x1=400, bottom=60 + 12 * index)
            lines.append(Line(text=line, box=box, spans=[Span(text=line, box=box)]))
        pages.append(Page(number=number, width=612, height=792, lines=lines))
    return pages


def test_a_combined_cover_names_its_first_registrant_from_the_row_below_the_column_head() -> None:
    """Two registrants in one 10-K: "Exact Name of Registrant" heads a column; each registrant is a row."""
    cover = (
        "FORM 10-K\nFor the Fiscal Year Ended December 31, 2021\n"
        "For the transition period from _________ to ___________\n"
        "Commission Exact Name of Registrant State or Other Jurisdiction of IRS Employer\n"
        "File Number as Specified In Its Charter Incorporation or Organization Identification Number\n"
        "1-12609 PG&E CORPORATION California 94-3234914\n"
        "1-2348 PACIFIC GAS AND ELECTRIC COMPANY California 94-0742640\n"
        "Indicate by check mark whether the registrant is a well-known seasoned issuer"
    )
    described = describe("combined_10k.pdf", _pages(cover))
    assert (described["company"], described["form"], described["period_end"]) == (
        "PG&E CORPORATION", "10-K", "2021-12-31",
    )  # fmt: skip


def test_a_cover_line_that_is_no_company_is_never_taken_for_one() -> None:
    """An exchange, a check-box sentence and a transition-period line sit where a registrant is expected."""
    cover = (
        "FORM 10-K\nFor the fiscal year ended December 31, 2022\n"
        "Chicago Stock Exchange, Inc.\n(Exact name of registrant as specified in its charter)\n"
    )
    body = "Acme Widgets Inc. makes widgets.\nAcme Widgets Inc. sells them."
    described = describe("acme.pdf", _pages(cover, body, body, body))
    assert described["company"] == "Acme Widgets Inc."


def test_a_directory_on_the_cover_gives_way_to_the_company_the_report_is_about() -> None:
    """An annual report whose first legal names are its auditor and bank (a corporate directory); the company it is
    about is printed on every page."""
    cover = "Annual Report\nFor the year ended 30 June 2022\nAuditors BDO Audit Pty Ltd\nBankers Westpac Banking Ltd"
    body = "Elixir Energy Limited\nDirectors' report\nElixir Energy Limited explores for gas."
    described = describe("report.pdf", _pages(cover, body, body, body, body))
    assert (described["company"], described["form"], described["year"], described["period_end"]) == (
        "Elixir Energy Limited", "annual report", 2022, "2022-06-30",
    )  # fmt: skip


def test_a_report_titled_with_its_year_end_and_a_cover_that_is_all_picture() -> None:
    pages = _pages("", "abrdn Japan Investment Trust plc\nAnnual Report 31 March 2022\nJapan specialists")
    described = describe("trust.pdf", pages)
    assert (described["company"], described["form"], described["year"], described["period_end"]) == (
        "abrdn Japan Investment Trust plc", "annual report", 2022, "2022-03-31",
    )  # fmt: skip


def test_an_annual_report_whose_cover_names_no_year_takes_the_year_its_pages_say_ended() -> None:
    """The cover's year is in a picture (OCR reads "Annual Report" and the logo): the year is the one the auditor's
    report and the statements say ended, not a year a letter mentions or the comparatives' year."""
    pages = _pages(
        "Annual\nReport\nYellowPages",
        "Table of Contents\nIndependent Auditor's Report........29",
        "Message to Shareholders\nI am pleased to report that 2022 was yet another year; in 2023 we expect more.",
        "Independent Auditor's Report\nWe have audited the financial statements for the year ended December 31, 2022",
        "Consolidated Statements of Income\nFor the years ended December 31, 2022 and 2021",
        "Consolidated Statements of Cash Flows\nFor the years ended December 31, 2022 and 2021\n"
        "Year ended December 31, 2021",
    )
    described = describe("report.pdf", pages)
    assert (described["form"], described["period"], described["period_end"], described["year"]) == (
        "annual report", "FY2022", "2022-12-31", 2022,
    )  # fmt: skip
    no_year = describe("report.pdf", pages[:3])  # nothing says a year ended: no year is guessed from the letter
    assert no_year["period_end"] is None


def test_an_8k_is_dated_by_the_date_its_cover_prints_over_the_caption_not_by_its_file_name() -> None:
    # the cover prints "January 4, 2023" on the line above "Date of Report (date of earliest event reported)"; the
    # file name says 2021
    pdf = Path(__file__).parent / "pdfs" / "SALESFORCE_2021_8K_p1-2.pdf"
    meta = describe(pdf.name, PdfParser().parse(pdf))
    assert (meta["form"], meta["period"], meta["period_end"], meta["year"]) == ("8-K", "2023-01-04", "2023-01-04", 2023)
