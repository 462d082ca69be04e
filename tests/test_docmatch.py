"""Document awareness with metadata as the indexer extracts it from the committed samples."""

import pytest

from indexer.core.docmatch import aliases, focus, names_company, question_forms, question_years
from indexer.core.models import DocumentMeta


def _meta(document: str, **fields: object) -> DocumentMeta:
    return DocumentMeta(document=document, sha256="0" * 64, pages=10, **fields)  # type: ignore[arg-type]


DOCS = [
    _meta("ACME_2018_10K.pdf", company="ACME WIDGETS, INC.", form="10-K", period="FY2018", year=2018, tickers=["ACMW"]),
    _meta("ACME_2022_10K.pdf", company="ACME WIDGETS, INC.", form="10-K", period="FY2022", year=2022, tickers=["ACMW"]),
    _meta("ACME_2023Q2_10Q.pdf", company="ACME WIDGETS, INC.", form="10-Q", period="quarter ended 2023-07-01",
          year=2023),
    _meta("THE_BOLT_COMPANY_2022.pdf", company="THE BOLT COMPANY", form="10-K", year=2022, tickers=["BA"]),
    _meta("r_600519_贵州茅台_2023.pdf", company="贵州茅台", form="年报", year=2023, stock_code="600519",
          english_name="Kweichow Moutai Co., Ltd."),
]  # fmt: skip


def test_aliases_come_from_metadata() -> None:
    acme = aliases(DOCS[0])
    assert "acmewidgets" in acme.compact and "acmw" in acme.words
    maotai = aliases(DOCS[4])
    assert {"贵州茅台", "贵州"} <= maotai.cjk or "贵州茅台" in maotai.cjk
    assert "600519" in maotai.words and "guizhoumaotai" in maotai.compact and "kweichowmoutai" in maotai.compact


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What was ACME Widgets' capex?", True),
        ("acmewidgets revenue", True),
        ("What did ACMW report?", True),
        ("Bolt's margin", False),
        ("What was the BA segment revenue?", False),
    ],
)
def test_company_named_in_question(question: str, expected: bool) -> None:
    assert names_company(DOCS[0], question) is expected


def test_two_letter_tickers_need_exact_case() -> None:
    assert names_company(DOCS[3], "How did BA do in 2022?")
    assert not names_company(DOCS[3], "a ba b")


def test_year_and_form_pick_the_right_filing_of_a_company() -> None:
    found = focus(DOCS, "What were ACME Widgets' FY2018 capital expenditures in its 10-K?")
    assert set(found.scope or []) == {"ACME_2018_10K.pdf", "ACME_2022_10K.pdf", "ACME_2023Q2_10Q.pdf"}
    assert found.preferred == frozenset({"ACME_2018_10K.pdf"})
    quarter = focus(DOCS, "ACME Widgets cash at the end of Q2 2023")
    assert quarter.preferred == frozenset({"ACME_2023Q2_10Q.pdf"})


def test_chinese_names_pinyin_and_codes() -> None:
    assert focus(DOCS, "贵州茅台2023年营业收入").scope == ["r_600519_贵州茅台_2023.pdf"]
    assert focus(DOCS, "What was Guizhou Maotai's 2023 revenue?").scope == ["r_600519_贵州茅台_2023.pdf"]
    assert focus(DOCS, "600519的净利润").scope == ["r_600519_贵州茅台_2023.pdf"]


def test_no_company_named_means_no_scope() -> None:
    found = focus(DOCS, "Which filings discuss inflation?")
    assert found.scope is None and not found.companies_named


def test_years_and_forms_in_questions() -> None:
    assert question_years("FY22 vs 2021年 and 1Q25") == {2022, 2021, 2025}
    assert question_forms("in its 10-K annual report") == {"annual"}
    assert "research" in question_forms("券商研报的目标价")


def test_without_a_year_the_latest_filing_of_each_form_is_preferred() -> None:
    found = focus(DOCS, "Are ACME Widgets' gross margins improving?")
    assert found.preferred == {"ACME_2022_10K.pdf", "ACME_2023Q2_10Q.pdf"}  # the newest 10-K and the newest 10-Q
    assert focus(DOCS, "ACME Widgets' annual report: gross margin").preferred == {"ACME_2022_10K.pdf"}
    assert focus(DOCS, "ACME Widgets' gross margin in FY2018").preferred == {"ACME_2018_10K.pdf"}


def test_a_question_about_history_prefers_the_latest_annual_report() -> None:
    for question in ("Are ACME Widgets' gross margins historically consistent?", "ACME Widgets' capex each year"):
        assert focus(DOCS, question).preferred == {"ACME_2022_10K.pdf"}, question
    assert question_forms("over the past five years") == {"annual"}


def test_a_date_the_filing_reports_outweighs_year_and_form() -> None:
    docs = [
        _meta("JJ_2023Q2_EARNINGS.pdf", company="Johnson & Johnson", form="earnings release", year=2023),
        _meta("JJ_8K.pdf", company="Johnson & Johnson", form="8-K", year=2023, period_end="2023-08-30"),
        _meta("JJ_2023Q3_10Q.pdf", company="Johnson & Johnson", form="10-Q", year=2023, period_end="2023-10-01"),
    ]
    asked = "What gain did Johnson & Johnson book on the separation, as of August 30, 2023?"
    assert focus(docs, asked).preferred == {"JJ_8K.pdf"}
    assert focus(docs, "Johnson & Johnson's Q3 2023 earnings release, as of 1 Sep 2023").preferred == {"JJ_8K.pdf"}
    assert focus(docs, "Johnson & Johnson cash as of October 1, 2023").preferred == {"JJ_2023Q3_10Q.pdf"}
    assert focus(docs, "Johnson & Johnson cash as of March 3, 2023").preferred == frozenset()  # no filing's date


def test_a_long_name_is_known_by_its_initials_in_capitals() -> None:
    amd = _meta("AMD_2015_10K.pdf", company="ADVANCED MICRO DEVICES, INC.", form="10-K", year=2015)
    assert names_company(amd, "What is the FY2015 D&A margin for AMD?")
    assert not names_company(amd, "amd and others")  # lower case is a word, not the acronym
    assert not names_company(DOCS[0], "AW capex")  # two words give no acronym
