"""Who a filing is about, from what it says about itself: the auditor's addressee and the directors' report name the
company in a sentence; a description ("formerly known as …", "the Company") is never a name; a cover whose text layer
lost its spaces still names its form and year; and the short forms analysts use (AMEX, J&J, P&G, 3M) reach the
company. The lines are as printed in real filings of the wide corpus and the dev sets."""

from __future__ import annotations

import pytest

from indexer.core.docmatch import names_company, short_forms
from indexer.core.models import Box, DocumentMeta, Place
from indexer.ingest.cover_agreement import Settled, _named_in, is_name, printed_names
from indexer.ingest.forms import detect_form
from indexer.ingest.metadata import detect_period


@pytest.mark.parametrize(
    ("line", "below", "name"),
    [
        ("To the Stockholders and Board of Directors", "Atreca, Inc.:", "Atreca, Inc."),
        ("To the shareholders and the Board of Directors of", "Weis Markets, Inc.", "Weis Markets, Inc."),
        ("INDEPENDENT AUDITOR'S REPORT TO THE MEMBERS OF STARVEST PLC", "", "STARVEST PLC"),
        (
            "Report of the statutory auditor to the General Meeting of Compagnie Financière Tradition SA, Lausanne",
            "",
            "Compagnie Financière Tradition SA",
        ),
        ("The directors of eMetals Limited (ASX: EMT) (Company or eMetals) submit herewith", "", "eMetals Limited"),
        ("The Directors of OFX Group Limited present their report on the", "", "OFX Group Limited"),
        ("To the Shareholders of Empire Company Limited", "", "Empire Company Limited"),
        ("To the shareholders of EPI (Holdings) Limited", "", "EPI (Holdings) Limited"),
    ],
)
def test_a_filing_names_itself_in_its_auditors_addressee_and_directors_report(line: str, below: str, name: str) -> None:
    assert _named_in(line, below) == name


@pytest.mark.parametrize(
    "line",
    [
        "and other reports delivered to the board of directors of Genworth), with such changes",  # prose
        "Profit after income tax attributable to the owners of Rectifier Technologies Ltd",  # a row label
        "The Directors present their report on the Company for the year ended 30 June 2022",  # no name
    ],
)
def test_prose_and_row_labels_name_no_one(line: str) -> None:
    assert _named_in(line, "") is None


def test_a_description_is_not_a_name_but_a_lower_case_registrant_is() -> None:
    assert not is_name("Formerly known as Kopore Metals Limited")
    assert not is_name("the Company") and not is_name("The Group")
    assert is_name("salesforce.com, inc.")  # the 8-K's registrant line, printed in lower case
    assert is_name("The Bank of New York Mellon Corporation")


def test_a_cover_without_spaces_still_names_its_form_and_year() -> None:
    cover = "FORM20-F\nX ANNUALREPORTPURSUANTTOSECTION13OR15(d)\nForthe fiscal yearendedDecember 31, 2022"
    assert detect_form("erc.pdf", cover) == "20-F"
    assert detect_period("20-F", "erc.pdf", cover) == "FY2022"
    glossy = "Mercia Asset Management PLC Annual Report & Accounts2022"
    assert detect_period("annual report", "erc.pdf", glossy) == "FY2022"


@pytest.mark.parametrize(
    "cover",
    [
        "ABN 71 142 411 390 Annual Financial Report For the year ended 30 June 2022",
        "ACN 614 854 045 FINANCIAL REPORT 30 JUNE 2022",
        "CONSOLIDATED FINANCIAL STATEMENTS ODYSSEY GROUP HOLDINGS, INC. AND SUBSIDIARIES AS OF DECEMBER 31, 2022",
        "Starvest plc Report and Financial Statements For the Year Ended 30 September 2022",
    ],
)
def test_a_years_financial_report_is_an_annual_report(cover: str) -> None:
    assert detect_form("erc_0.pdf", cover) == "annual report"
    assert (detect_period("annual report", "erc_0.pdf", cover) or "").startswith("FY2022")


def _meta(company: str) -> DocumentMeta:
    return DocumentMeta(document="x.pdf", sha256="0" * 64, pages=1, company=company)


@pytest.mark.parametrize(
    ("company", "question"),
    [
        ("American Express Company", "Does AMEX have an improving operating margin profile?"),
        ("3M Company", "Is 3M a capital-intensive business based on FY2022 data?"),
        ("Johnson & Johnson", "What drove J&J's pharmaceutical sales?"),
        ("The Procter & Gamble Company", "P&G gross margin in FY2023"),
        ("PG&E CORPORATION", "Is PG&E a capital-intensive business based on FY2021 data?"),  # the name itself
        ("AT&T Inc.", "AT&T wireless service revenues"),
    ],
)
def test_short_forms_reach_the_company(company: str, question: str) -> None:
    assert names_company(_meta(company), question)


def test_short_forms_name_no_other_company() -> None:
    assert short_forms("AT&T Inc.") == short_forms("PG&E Corporation") == set()  # an ampersand inside one word
    assert not names_company(_meta("PG&E CORPORATION"), "P&E ratio of the utility sector")  # not P&E
    assert not names_company(_meta("Adobe Inc."), "Is 3M a capital-intensive business?")
    assert not names_company(_meta("Best Buy Co., Inc."), "Does AMEX have an improving margin?")


def _place(where: str, text: str) -> Place:
    return Place(where=where, page=1, text=text, bbox=Box(page=1, x0=0, top=0, x1=100, bottom=10))


def test_an_unsettled_identity_keeps_every_name_the_filing_prints_for_search() -> None:
    found = [_place("cover", "Yellow Pages Limited Annual Report 2022"), _place("footer", "YP Digital")]
    unsettled = Settled("YP Digital", False, ())
    names = printed_names(unsettled, ["YP Digital", "Yellow Pages Limited", "Nowhere Printed Inc."], found)
    assert names == ["Yellow Pages Limited"]  # printed in a naming place; a name printed nowhere is not kept
    meta = _meta("YP Digital").model_copy(update={"printed_names": names})
    assert names_company(meta, "What did Yellow Pages earn in 2022?")
    assert printed_names(Settled("Yellow Pages Limited", True, ()), ["YP Digital"], found) == []
