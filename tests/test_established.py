"""A figure is verified only when the filing establishes it: its scale, currency and period each read from the page
(or the filing's presentation-currency sentence), and its statement's identities holding. Real statement pages: an
Australian annual report's, with and without the notes page that names its currency, and the samples."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from indexer.core.models import Page, Table
from indexer.evidence.currency import DocumentCurrency
from indexer.evidence.financials import statement_tables, table_rows
from indexer.evidence.identities import page_identities
from indexer.evidence.periods import ReportPeriod, not_a_period
from indexer.evidence.text_figures import mentions, scale_checks
from indexer.evidence.units import DOLLAR, declared_unit
from indexer.ingest.build import BuildSettings, build_index
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import FinancialsRequest
from mcp_server.renderings import answer_parts
from tests.conftest import BESTBUY_10Q, MGM, docs_folder, text_under

PDFS = Path(__file__).parent / "pdfs"
WITH_NOTES = PDFS / "elixir_energy_2022_p30-34.pdf"  # statements, then the notes page naming the currency
WITHOUT = PDFS / "elixir_energy_2022_p30-33.pdf"  # the statements alone


@pytest.fixture(scope="module")
def elixir(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> KnowledgeBase:
    docs = docs_folder(tmp_path_factory.mktemp("elixir-docs"), WITH_NOTES, WITHOUT)
    index = tmp_path_factory.mktemp("elixir") / "index"
    build_index(BuildSettings(docs_dir=docs, index_dir=index, embedder="none", progress=False, cache_dir=cache_dir))
    return KnowledgeBase.open(index, cache_dir, with_embedder=False)


def _assets(kb: KnowledgeBase, pdf: Path) -> list:
    request = FinancialsRequest(document=pdf.name, statement="balance", items=["total assets"], year=2022)
    return kb.financials(request).rows


def test_a_bare_dollar_takes_its_currency_from_the_presentation_sentence(elixir: KnowledgeBase) -> None:
    (assets,) = _assets(elixir, WITH_NOTES)
    assert (assets.page, assets.value_printed, assets.value) == (2, "44,125,647", "44125647")
    assert (assets.currency, assets.scale, assets.verified, assets.missing) == ("AUD", "", True, [])
    # the currency: the notes' sentence, on its page, at its line
    where = assets.currency_source
    assert where is not None and where.page == 5 and "presented in Australian dollars" in where.text
    assert where.box is not None and "Australian" in text_under(WITH_NOTES, 5, [where.box])
    # the scale: the bare $ printed over each column (not $'000), so the figures are in dollars
    scale = assets.scale_source
    assert scale is not None and scale.page == 2 and "$ $" in scale.text
    assert scale.box is not None and text_under(WITH_NOTES, 2, [scale.box]).count("$") == 2
    # the period: the column header over the figure
    period = assets.period_source
    assert period is not None and period.text == assets.period == "2022" and period.box is not None
    assert text_under(WITH_NOTES, 2, [period.box]) == "2022"
    assert (assets.fiscal_year, assets.calendar_year) == (2022, 2022)


def test_without_that_sentence_a_bare_dollar_is_no_currency(elixir: KnowledgeBase) -> None:
    (assets,) = _assets(elixir, WITHOUT)
    assert assets.value_printed == "44,125,647" and assets.currency is None and assets.currency_source is None
    assert not assets.verified and assets.missing == ["currency not stated (a bare $)"]
    result = elixir.get_financials(
        FinancialsRequest(document=WITHOUT.name, statement="balance", items=["total assets"])
    )
    text, structured = answer_parts(result, "compact")
    assert "p.2 · balance · units, currency not established" in text
    assert "NOT VERIFIED: currency not stated (a bare $)" in text and "44,125,647*" in text
    assert "each figure verified" not in text
    assert "* not established (see NOT VERIFIED). Cite as" in text  # the footer tells what its star means
    (statement,) = structured["statements"]
    assert statement["currency"] is None and statement["missing"] == ["currency not stated (a bare $) (2 figures)"]


def test_a_us_sec_form_settles_a_bare_dollar(samples_kb: KnowledgeBase) -> None:
    rows = samples_kb.financials(FinancialsRequest(document=BESTBUY_10Q.name, items=["revenue"], year=2024)).rows
    revenue = rows[0]
    assert (revenue.currency, revenue.verified) == ("USD", True)
    assert revenue.currency_source is not None and revenue.currency_source.text == "$ on a US SEC Form 10-Q"
    assert revenue.scale_source is not None and "$ and shares in millions" in revenue.scale_source.text
    # a release that labels itself an exhibit to an 8-K is filed in US dollars too
    income = samples_kb.financials(FinancialsRequest(document=MGM.name, statement="income")).rows
    assert {r.currency for r in income if r.unit == "currency"} == {"USD"}
    money = next(r for r in income if r.currency_source is not None)
    assert money.currency_source is not None and money.currency_source.text == "$ on an Exhibit 99.1 to a US SEC filing"


@pytest.mark.parametrize(
    ("text", "power", "currency"),
    [
        ("(Millions, except per share amounts)", 6, None),
        ("(MILLIONS, EXCEPT PER SHARE DATA)", 6, None),
        ("2022 £000’s", 3, "GBP"),
        ("Note 2022 $'m", 6, DOLLAR),
        ("A$'000", 3, "AUD"),
        ("(Dollars in thousands)", 3, DOLLAR),
        ("In thousands of Canadian dollars", 3, "CAD"),
        ("Figures in Pound Sterling", 0, "GBP"),
        ("单位：元 币种：人民币", 0, "CNY"),
    ],
)
def test_scale_and_currency_as_printed(text: str, power: int, currency: str | None) -> None:
    unit = declared_unit(text)
    assert unit is not None and unit.stated and (unit.power, unit.currency) == (power, currency)


def test_a_bare_dollar_or_no_scale_declares_nothing_established() -> None:
    unit = declared_unit("Revenue $ 9,583")
    assert unit is not None and unit.currency == DOLLAR and not unit.stated
    assert declared_unit("The Company has 3 million customers") is None


@pytest.mark.parametrize(
    "header",
    ["% change", "Change", "Increase (decrease)", "Inc/ (Dec)", "本期比上年同期增减(%)", "同比", "2023 vs 2022"],
)
def test_a_change_column_is_never_a_period(header: str) -> None:
    assert not_a_period(header)


def test_the_statements_check_themselves(samples_kb: KnowledgeBase) -> None:
    identities = samples_kb.identities(BESTBUY_10Q.name)
    balance = [i for i in identities if i.page == 3]
    assert len(balance) >= 15 and all(i.holds for i in balance)
    assert sorted(i.period for i in balance if i.name == "total assets = liabilities + equity") == [
        "January 28, 2023", "July 29, 2023", "July 30, 2022",
    ]  # fmt: skip
    assert any(i.page == 6 and i.name == "net change in cash = the cash flows" and i.holds for i in identities)
    result = samples_kb.get_financials(FinancialsRequest(document=BESTBUY_10Q.name, statement="balance"))
    text, structured = answer_parts(result, "compact")
    holding = f"{len(balance)} of {len(balance)} identities hold"
    assert f"checks: {holding}" in text and structured["statements"][0]["checks"] == holding


def test_a_figure_that_does_not_add_up_is_not_verified(samples_kb: KnowledgeBase) -> None:
    """The balance sheet page with one figure misread (Total current assets 8,304 read as 8,340 in July 2023): that
    total fails for that period alone (as does the total it feeds), and is marked so; it holds in the other periods."""
    document = BESTBUY_10Q.name
    page = samples_kb.page(document, 3)
    misread = page.model_copy(update={"tables": [_misread(table) for table in page.tables]})
    assert misread.tables != page.tables
    meta = samples_kb.document(document)
    report = ReportPeriod(meta.period_end, meta.year)

    def page_of(number: int) -> Page:
        return misread if number == 3 else samples_kb.page(document, number)

    found = [t for t in statement_tables(page_of, samples_kb.outline(document), report) if t.page.number == 3]
    money = DocumentCurrency(meta.form, meta.pages, page_of)
    rows = [r for t in found for r in table_rows(document, t, report, money)]
    checks = page_identities(document, "balance", [t.table for t in found], rows)
    failed = [i for i in checks if not i.holds]
    assert {i.period for i in failed} == {"July 29, 2023"}  # it and what sums it (total assets)
    assert "Total current assets = the rows above" in {i.name for i in failed}
    total = next(r for r in rows if r.label == "Total current assets" and r.period == "July 29, 2023")
    assert not total.verified and total.missing[-1].startswith("does not add up")
    assert all(r.verified for r in rows if r.label == "Total current assets" and r.period != "July 29, 2023")


def test_a_total_printed_without_a_label_closes_its_section(samples_kb: KnowledgeBase) -> None:
    """MGM's balance sheet prints its total assets and its total liabilities and equity with no label: by position
    and by the balance they strike, the first closes the assets, the second the liabilities and equity."""
    rows = samples_kb.financials(FinancialsRequest(document=MGM.name, statement="balance", year=2022)).rows
    totals = [(r.label, r.concept, r.value_printed, r.verified) for r in rows if r.concept in _CLOSING and r.page == 12]
    assert totals == [
        ("", "total_assets", "$45,692,206", True), ("", "total_liabilities_and_equity", "$45,692,206", True),
    ]  # fmt: skip
    balance = [i for i in samples_kb.identities(MGM.name) if i.name == "total assets = liabilities + equity"]
    assert [(i.period, i.holds) for i in balance] == [("December 31, 2022", True), ("December 31, 2021", True)]


_CLOSING = ("total_assets", "total_liabilities_and_equity")


def _misread(table: Table) -> Table:
    """The table with its first 'Total current assets' figure read as 8,340 instead of the 8,304 printed."""
    rows = []
    for row in table.rows:
        if row.label == "Total current assets" and row.cells[0].text == "8,304":
            row = row.model_copy(update={"cells": [row.cells[0].model_copy(update={"text": "8,340"}), *row.cells[1:]]})
        rows.append(row)
    return table.model_copy(update={"rows": rows})


def test_a_year_is_matched_as_the_fiscal_year_then_as_the_calendar_year(samples_kb: KnowledgeBase) -> None:
    """Best Buy's fiscal 2023 holds the six months to 30 July 2022; no period of the 10-Q is in its fiscal 2022, so
    year=2022 is the calendar year those six months end in, and the answer says which it matched."""
    fiscal = samples_kb.financials(FinancialsRequest(document=BESTBUY_10Q.name, items=["revenue"], year=2023))
    assert {(r.period_end, r.fiscal_year, r.calendar_year) for r in fiscal.rows} == {("2022-07-30", 2023, 2022)}
    assert fiscal.missing == ["year 2023 matched the filer's fiscal 2023, whose periods end 2022-07-30"]
    calendar = samples_kb.financials(FinancialsRequest(document=BESTBUY_10Q.name, items=["revenue"], year=2022))
    assert calendar.rows == fiscal.rows
    assert calendar.missing == ["year 2022 matched the calendar year the periods end in (the filer's fiscal [2023])"]


def test_the_scale_agrees_with_the_figure_the_text_states(samples_kb: KnowledgeBase) -> None:
    """MGM's release says 'Consolidated net revenues of $3.6 billion' (p.1); its statement prints 3,553,787 in
    thousands. Read in thousands the figure agrees; read in units (a scale lost) it is a thousand times under, and
    is not verified."""
    document = MGM.name
    printed = next(
        r for r in samples_kb.financial_rows(document)
        if r.page == 11 and r.value_printed == "3,553,787" and r.period.endswith("Three Months Ended December 31, 2022")
    )  # fmt: skip
    meta = samples_kb.document(document)
    said = mentions(lambda n: samples_kb.page(document, n), meta.pages, {"revenue": "income"})
    assert any(m.page == 1 and m.value == Decimal("3.6E9") and m.text == "net revenues of $3.6 billion" for m in said)
    revenue = printed.model_copy(update={"concept": "revenue", "missing": [], "verified": True})
    (agrees,) = scale_checks(document, [revenue], lambda n: samples_kb.page(document, n), meta.pages)
    assert (
        agrees.holds
        and revenue.verified
        and agrees.detail == "3,553,787 (thousands) vs 'net revenues of $3.6 billion' p.1"
    )
    lost = revenue.model_copy(update={"value": "3553787", "scale": "", "missing": [], "verified": True})
    (disagrees,) = scale_checks(document, [lost], lambda n: samples_kb.page(document, n), meta.pages)
    assert not disagrees.holds and not lost.verified
    assert lost.missing == ["scale disagrees with the text ('net revenues of $3.6 billion' p.1)"]


def test_a_footer_names_only_what_the_answer_holds(samples_kb: KnowledgeBase) -> None:
    """Every figure of Best Buy's income statement is established: no star, no NOT VERIFIED, and no footer line
    about them (agents spent calls confirming pages the footer wrongly put in doubt)."""
    result = samples_kb.get_financials(FinancialsRequest(document=BESTBUY_10Q.name, statement="income"))
    text, _ = answer_parts(result, "compact")
    assert result.rows and all(row.verified for row in result.rows)
    assert "*" not in text and "NOT VERIFIED" not in text and "not established" not in text
    assert text.endswith("Cite as document p.N. Values in units, each part's source and boxes: detail='full'.")
