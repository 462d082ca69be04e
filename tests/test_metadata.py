import pytest

from indexer.metadata import describe, detect_form, detect_period
from indexer.parse import PdfParser
from tests.conftest import BESTBUY_10Q, BROKER, MGM, SIFANG


@pytest.mark.parametrize(
    ("pdf", "company", "form", "period", "year", "language", "code"),
    [
        (BESTBUY_10Q, "BEST BUY CO., INC.", "10-Q", "quarter ended 2023-07-29", 2023, "en", None),
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


def test_ten_k_fiscal_year_comes_from_the_cover() -> None:
    text = "FORM 10-K\nFor the fiscal year ended January 28, 2023\nBEST BUY CO., INC.\n(Exact name of registrant"
    assert detect_form("x.pdf", text) == "10-K"
    assert detect_period("10-K", "x.pdf", text) == "FY2023"
