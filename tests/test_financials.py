"""Financial statements as data: real statement pages of the committed samples, each figure checked at its boxes by
pdfplumber; periods, units and concepts as pure functions on real header and label text."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.core.errors import NotFoundError
from indexer.core.models import Box, Cell, Line, Page, Span, Table, TableRow
from indexer.evidence.columns import is_year_row, table_headers
from indexer.evidence.concepts import concept_of, concepts_named, normalise_label
from indexer.evidence.financials import FinancialRow
from indexer.evidence.periods import ReportPeriod, column_period
from indexer.evidence.statement_content import likely_pages
from indexer.evidence.table_units import column_currency
from indexer.evidence.units import declared_unit
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import FinancialsRequest
from tests.conftest import BESTBUY_10Q, BROKER, MGM, SIFANG, call_tools, text_under


def _row(rows: list[FinancialRow], concept: str, period: str) -> FinancialRow:
    found = [r for r in rows if r.concept == concept and r.period == period]
    assert len(found) == 1, [(r.label, r.period, r.page) for r in rows if r.concept == concept]
    return found[0]


def test_a_10q_income_statement_as_rows(samples_kb: KnowledgeBase) -> None:
    rows, documents, _, _ = samples_kb.financials(FinancialsRequest(document=BESTBUY_10Q.name, statement="income"))
    assert documents == [BESTBUY_10Q.name]
    revenue = _row(rows, "revenue", "Three Months Ended July 29, 2023")
    assert (revenue.page, revenue.label, revenue.value_printed) == (4, "Revenue", "$9,583")
    assert (revenue.value, revenue.scale, revenue.currency, revenue.unit) == (
        "9583000000",
        "millions",
        "USD",
        "currency",
    )
    # Best Buy's quarter ended 29 July 2023 is in fiscal 2024; the six months a year before in fiscal 2023
    assert (revenue.period_end, revenue.fiscal_year, revenue.months) == ("2023-07-29", 2024, 3)
    earlier = _row(rows, "revenue", "Six Months Ended July 30, 2022")
    assert (earlier.value, earlier.period_end, earlier.fiscal_year, earlier.months) == (
        "20976000000", "2022-07-30", 2023, 6,
    )  # fmt: skip
    assert revenue.verified and earlier.verified
    label_box, value_box = revenue.boxes[0], revenue.boxes[-1]
    assert text_under(BESTBUY_10Q, 4, [label_box]) == "Revenue"
    assert text_under(BESTBUY_10Q, 4, [value_box]).endswith("9,583")
    # (7) in millions is minus seven million; per-share figures are not scaled
    restructuring = next(r for r in rows if r.label == "Restructuring charges" and r.period.startswith("Three Months"))
    assert (restructuring.value_printed, restructuring.value) == ("(7)", "-7000000")
    eps = _row(rows, "eps_diluted", "Three Months Ended July 29, 2023")
    assert (eps.value, eps.unit, eps.scale, eps.currency) == ("1.25", "per_share", "", "USD")
    assert text_under(BESTBUY_10Q, 4, [eps.boxes[-1]]).endswith("1.25")


def test_a_balance_sheet_column_six_months_back_is_the_previous_fiscal_year(samples_kb: KnowledgeBase) -> None:
    kb = samples_kb
    rows = kb.financials(FinancialsRequest(document=BESTBUY_10Q.name, statement="balance", items=["total_assets"])).rows
    assert [(r.period, r.period_end, r.fiscal_year, r.value) for r in rows] == [
        ("July 29, 2023", "2023-07-29", 2024, "15318000000"),
        ("January 28, 2023", "2023-01-28", 2023, "15803000000"),
        ("July 30, 2022", "2022-07-30", 2023, "15419000000"),
    ]
    assert all(r.page == 3 and r.verified and r.months is None for r in rows)
    assert [text_under(BESTBUY_10Q, 3, [r.boxes[-1]]) for r in rows] == ["$15,318", "$15,803", "$15,419"]


def test_a_cash_flow_statement_gives_capex_and_operating_cash_flow(samples_kb: KnowledgeBase) -> None:
    rows, _, _, _ = samples_kb.financials(
        FinancialsRequest(
            document=BESTBUY_10Q.name, statement="cash_flow", items=["capex", "operating cash flow"], year=2024
        )
    )
    assert [(r.concept, r.period, r.value) for r in rows] == [
        ("capex", "Six Months Ended July 29, 2023", "-395000000"),
        ("operating_cash_flow", "Six Months Ended July 29, 2023", "181000000"),
    ]
    capex = rows[0]
    assert (capex.page, capex.label, capex.value_printed) == (6, "Additions to property and equipment", "(395)")
    assert text_under(BESTBUY_10Q, 6, [capex.boxes[-1]]) == "(395)"


def test_a_chinese_annual_report_key_data(samples_kb: KnowledgeBase) -> None:
    kb = samples_kb
    rows, _, _, _ = kb.financials(
        FinancialsRequest(document=SIFANG.name, statement="key_data", items=["营业收入"], year=2019)
    )
    assert [r.months for r in rows] == [12, 3, 3, 3, 3]  # the year, then its quarters
    revenue = rows[0]
    assert (revenue.page, revenue.label, revenue.concept, revenue.period) == (5, "营业收入", "revenue", "2019年")
    assert (revenue.value, revenue.value_printed, revenue.scale, revenue.currency) == (
        "1175301034.32", "1,175,301,034.32", "元", "CNY",
    )  # fmt: skip
    assert (revenue.period_end, revenue.fiscal_year) == ("2019-12-31", 2019)
    assert text_under(SIFANG, 5, [revenue.boxes[-1]]) == "1,175,301,034.32"
    assets, _, _, _ = kb.financials(FinancialsRequest(document=SIFANG.name, items=["total assets"], year=2018))
    assert [(r.period, r.period_end, r.value) for r in assets] == [("2018年末", "2018-12-31", "2051223456.86")]
    # the change column (本期比上年同期增减(%)) is not a period; ROE is a percentage, not scaled
    all_rows, _, _, _ = kb.financials(FinancialsRequest(document=SIFANG.name))
    assert not any("增减" in r.period for r in all_rows)
    roe = next(r for r in all_rows if r.concept == "roe" and r.fiscal_year == 2019)
    assert (roe.value, roe.unit) == ("7.64", "percent")
    # the quarterly table: each quarter ends three months into the year
    quarters = [r for r in all_rows if r.concept == "revenue" and r.months == 3]
    assert [r.period_end for r in quarters] == ["2019-03-31", "2019-06-30", "2019-09-30", "2019-12-31"]


def test_bad_requests_say_what_exists(samples_kb: KnowledgeBase) -> None:
    kb = samples_kb
    with pytest.raises(NotFoundError, match=r"no row for item 'goodwill impairment'.*concepts found: .*revenue"):
        kb.financials(FinancialsRequest(document=BESTBUY_10Q.name, statement="income", items=["goodwill impairment"]))
    with pytest.raises(NotFoundError, match=r"no primary statements or key-data tables found in .*高测股份"):
        kb.financials(FinancialsRequest(document=BROKER.name))
    with pytest.raises(
        NotFoundError, match=r"no figure for fiscal or calendar year 2031; .* cover fiscal \[2023, 2024\]"
    ):
        kb.financials(FinancialsRequest(document=BESTBUY_10Q.name, statement="income", year=2031))
    with pytest.raises(NotFoundError, match="unknown document"):
        kb.financials(FinancialsRequest(document="NOPE.pdf"))


def test_the_pages_most_likely_to_hold_a_statement_are_those_printing_most_of_its_rows(
    samples_kb: KnowledgeBase,
) -> None:
    """What a "not found" names instead of nothing: pages ranked by how many of a statement's concepts they print
    as rows with figures (the Best Buy 10-Q's statements are on pages 3, 4 and 6; MD&A tables follow)."""
    kb = samples_kb
    pages = [(n, kb.page(BESTBUY_10Q.name, n).lines) for n in range(1, 31)]
    assert likely_pages(pages, ["balance_sheet"]) == [3]
    assert likely_pages(pages, ["income_statement"])[0] == 4
    assert likely_pages(pages, ["cash_flow"])[0] == 6
    assert likely_pages([(n, kb.page(MGM.name, n).lines) for n in range(1, 16)], ["cash_flow"]) == []
    with pytest.raises(NotFoundError, match=r"^no cash_flow figures found; statements found: income, balance$"):
        kb.financials(
            FinancialsRequest(document=MGM.name, statement="cash_flow")
        )  # no page prints its rows: nothing to point at


def test_several_items_answer_with_what_was_found_and_name_what_was_not(samples_kb: KnowledgeBase) -> None:
    """One item that names no row does not fail the call: the others' rows come back, and the note names the missing
    item with the concepts there are."""
    rows, _, _, missing = samples_kb.financials(
        FinancialsRequest(document=BESTBUY_10Q.name, statement="income", items=["revenue", "goodwill impairment"])
    )
    assert rows and {r.concept for r in rows} == {"revenue"}
    assert len(missing) == 1 and missing[0].startswith("no row for item 'goodwill impairment'")
    assert "revenue" in missing[0]


def test_get_financials_through_mcp(samples_index_dir: Path, cache_dir: Path) -> None:
    found, company, missing = call_tools(
        samples_index_dir,
        cache_dir,
        [
            ("get_financials", {"document": BESTBUY_10Q.name, "statement": "income", "items": ["revenue"]}),
            ("get_financials", {"company": "Best Buy", "items": ["eps_diluted"], "year": 2024}),
            ("get_financials", {}),
        ],
    )
    assert not found.is_error
    text = found.content[0].text
    # the company beside its file (a file name may say nothing of it)
    head = 'BESTBUY_2024Q2_10Q.pdf ("BEST BUY CO., INC.") p.4 · income · USD millions'
    verdict = "· each figure verified: value, scale, currency and period read from the filing"
    assert text.splitlines()[0].endswith(verdict)
    assert head + " (scale '$ and shares in millions" in text
    assert "currency '$ on a US SEC Form 10-Q' p.4)" in text
    assert "[0] Three Months Ended July 29, 2023 (fiscal 2024, 3 months ended 2023-07-29)" in text
    assert "- Revenue [revenue]: $9,583 | $10,329 | $19,050 | $20,976" in text
    rows = [line for line in text.splitlines() if line.startswith("- ")]  # counts say what they count (issue 43)
    figures = sum(sum(1 for f in line.split(": ", 1)[1].split(" | ") if f != "—") for line in rows)
    counts = f"{len(rows)} row{'s' if len(rows) != 1 else ''}, {figures} figures"
    assert text.startswith(f"{counts} in 1 table from 1 document")
    (statement,) = found.structured_content["statements"]  # compact: the table as printed, without boxes
    assert (statement["document"], statement["page"], statement["currency"]) == ("BESTBUY_2024Q2_10Q.pdf", 4, "USD")
    revenue = next(row for row in statement["rows"] if row["concept"] == "revenue")
    assert revenue["figures"][0] == "$9,583" and statement["periods"][0]["period"] == "Three Months Ended July 29, 2023"
    assert "bboxes" not in revenue and statement["bbox"]["page"] == 4
    per_share = company.structured_content["statements"]
    assert not company.is_error and {f for s in per_share for r in s["rows"] for f in r["figures"]} >= {
        "$1.25",
        "$2.36",
    }
    assert missing.is_error and "pass document" in missing.content[0].text


@pytest.mark.parametrize(
    ("header", "report", "expected"),
    [
        ("Three Months Ended July 30, 2022", ("2023-07-29", 2024), ("2022-07-30", 2023, 3)),
        ("January 28, 2023", ("2023-07-29", 2024), ("2023-01-28", 2023, None)),
        ("52 Weeks Ended January 1, 2023", ("2023-01-01", 2022), ("2023-01-01", 2022, 12)),
        ("31.12.2021¹", ("2022-12-31", 2022), ("2021-12-31", 2021, None)),
        ("31 December 2021", ("2022-12-31", 2022), ("2021-12-31", 2021, None)),
        ("Fiscal 2021", ("2023-01-01", 2022), ("2022-01-01", 2021, 12)),
        ("2019年末", ("2019-12-31", 2019), ("2019-12-31", 2019, None)),
        ("上期发生额", ("2019-12-31", 2019), ("2018-12-31", 2018, None)),
        ("期初余额", ("2019-12-31", 2019), ("2018-12-31", 2018, None)),
        ("第二季度（4-6 月份）", ("2019-12-31", 2019), ("2019-06-30", 2019, 3)),
        ("% of revenue", ("2019-12-31", 2019), None),
        ("本期比上年同期增减(%)", ("2019-12-31", 2019), None),
        ("Note", ("2019-12-31", 2019), None),
        ("2023 vs 2022", ("2023-12-31", 2023), None),
    ],
)
def test_column_periods(header: str, report: tuple[str, int], expected: tuple[str, int, int | None] | None) -> None:
    period = column_period(header, ReportPeriod(*report))
    assert (None if period is None else (period.end, period.fiscal_year, period.months)) == expected


@pytest.mark.parametrize(
    ("text", "power", "currency", "share_power"),
    [
        ("$ and shares in millions, except per share amounts", 6, "$", 6),
        ("(In millions, except number of shares, which are reflected in thousands, and per-share amounts)", 6, None, 3),
        ("(in millions, except shares and per share data)", 6, None, 0),
        ("(in thousands of Canadian dollars, except share and per share information)", 3, "CAD", 0),
        ("(in thousands, except per share amounts)", 3, None, None),
        ("单位：万元 币种：人民币", 4, "CNY", None),
        ("RMB’000", 3, "CNY", None),
        ("€m", 6, "EUR", None),
        ("(Dollars in thousands)", 3, "$", None),
    ],
)
def test_declared_units(text: str, power: int, currency: str | None, share_power: int | None) -> None:
    unit = declared_unit(text)
    assert unit is not None and (unit.power, unit.currency, unit.share_power) == (power, currency, share_power)


def test_a_sentence_with_millions_declares_no_unit() -> None:
    assert declared_unit("The Company has 3 million customers") is None


@pytest.mark.parametrize(
    ("label", "statement", "concept"),
    [
        ("Net cash provided by (used in) operating activities¹", "cash_flow", "operating_cash_flow"),
        ("Total cash provided by operating activities", "cash_flow", "operating_cash_flow"),
        ("购建固定资产、无形资产和其他长期资产支付的现金", "cash_flow", "capex"),
        ("一、营业总收入", "income", "revenue"),
        ("其中：营业收入", "income", "revenue"),
        ("所有者权益（或股东权益）合计", "balance", "total_equity"),
        ("Weighted-average common shares outstanding › Diluted", "income", "shares_diluted"),
        ("Earnings per share › Diluted", "income", "eps_diluted"),
        ("Income taxes paid", "cash_flow", None),
        ("Deferred revenue", "balance", None),
        ("Net loss for the year", "income", "net_income"),
        ("Loss for the financial year", "income", "net_income"),
        ("Net loss for the year attributable to non-controlling interests", "income", None),
        ("Profit for the financial year attributable to owners of the parent", "income", "net_income_attributable"),
        ("Weighted average number of shares used in computing › Basic earnings per share", "income", "shares_basic"),
        (
            "Weighted average number of shares used in computing › Diluted earnings per share",
            "income",
            "shares_diluted",
        ),
    ],
)
def test_concepts_from_labels(label: str, statement: str, concept: str | None) -> None:
    assert concept_of(label, statement) == concept


def test_items_name_concepts_in_either_language() -> None:
    assert concepts_named("net sales") == concepts_named("营业收入") == concepts_named("Revenue") == {"revenue"}
    assert concepts_named("capex") == {"capex"}
    assert normalise_label("Net Revenue¹") == "net revenue"


def test_the_cli_prints_figures_with_their_checks(samples_index_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from indexer.cli import EXIT_ERROR, main

    code = main(["financials", SIFANG.name, "--index", str(samples_index_dir), "--item", "营业收入", "--year", "2019"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and out[-1] == "5 figure(s)"
    assert (
        out[0]
        == "p.5 key_data | 营业收入 [revenue] | 2019年 (FY2019, 2019-12-31) | 1,175,301,034.32 = 1175301034.32 CNY"
    )
    code = main(["financials", BESTBUY_10Q.name, "--index", str(samples_index_dir), "--statement", "key_data"])
    assert code == EXIT_ERROR and "no key_data figures found; statements found: balance, income, cash_flow" in (
        capsys.readouterr().err
    )


def test_a_company_wide_call_reads_the_most_recent_filings_within_a_bound(
    samples_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer import knowledge_base

    monkeypatch.setattr(knowledge_base, "FINANCIAL_DOCUMENTS", 1)
    outcome = samples_kb.financials(FinancialsRequest(items=["revenue"]))
    assert outcome.documents == [BESTBUY_10Q.name] and outcome.skipped == 3
    assert {row.document for row in outcome.rows} == {BESTBUY_10Q.name}
    for_2019 = samples_kb.financials(FinancialsRequest(items=["revenue"], year=2019))  # filings of 2019-2021 only
    assert for_2019.documents == [SIFANG.name] and for_2019.skipped == 0


def _table(columns: list[str], rows: list[tuple[str, dict[int, str]]]) -> Table:
    box = Box(page=1, x0=0, top=0, x1=1, bottom=1)
    made = [
        TableRow(
            label=label,
            cells=[Cell(column=c, header=columns[c], text=t, boxes=[box]) for c, t in cells.items()],
            boxes=[box],
        )
        for label, cells in rows
    ]
    return Table(page=1, box=box, columns=columns, rows=made)


def test_header_rows_that_a_title_or_a_label_stands_over() -> None:
    """Two 10-K layouts: a title naming all three years centred over the first column ('For the Years Ended May 31,
    2021, 2020 and 2019') above a row of years; a row of years whose label swallowed the first one ('In millions
    Years ended December 31, 2022' over '2021 | 2020')."""
    page = Page(number=1, width=612, height=792, lines=[])
    oracle = _table(
        ["STATEMENTS OF OPERATIONS For the Years Ended May 31, 2021, 2020 and 2019", "Year Ended May 31,", ""],
        [("(in millions)", {0: "2021", 1: "2020", 2: "2019"}), ("Total revenues", {0: "40,479", 1: "39,068"})],
    )
    report = ReportPeriod("2021-05-31", 2021)
    headers = table_headers(page, oracle, report)
    assert [column_period(h, report).end for h in headers] == ["2021-05-31", "2020-05-31", "2019-05-31"]  # type: ignore[union-attr]
    mcdonalds = _table(
        ["", "", ""],
        [("In millions Years ended December 31, 2022", {1: "2021", 2: "2020"}), ("Revenues", {0: "8,748.4"})],
    )
    report = ReportPeriod("2022-12-31", 2022)
    headers = table_headers(page, mcdonalds, report)
    assert [column_period(h, report).end for h in headers] == ["2022-12-31", "2021-12-31", "2020-12-31"]  # type: ignore[union-attr]


def test_a_row_of_years_inside_a_table_is_a_header_not_figures() -> None:
    page_header = _table(["", "", ""], [("Notes", {0: "2021", 1: "2022", 2: "2022"}), ("Revenue", {0: "995,940"})])
    assert [is_year_row(row) for row in page_header.rows] == [True, False]


@pytest.mark.parametrize(
    "header", ["本期比上年同", "期增减(%)", "本期比上年同 期增减(%)", "较上年末增减", "比上期增减"]
)
def test_a_change_column_is_never_a_period_however_its_header_is_wrapped(header: str) -> None:
    """A 年报's "本期比上年同期增减(%)" wrapped over two lines: its first line says 本期, yet the column compares."""
    report = ReportPeriod("2021-12-31", 2021)
    assert column_period(header, report) is None
    assert column_period("2020年", report) is not None and column_period("上年同期", report) is not None


@pytest.mark.parametrize(
    ("label", "statement", "concept"),
    [
        ("Net Loss Attributable to Common Shareholders", "income", "net_income_attributable"),
        ("Net income attributable to MGM Resorts International", "income", "net_income_attributable"),
        ("Profit for the year attributable to equity holders of the Company", "income", "net_income_attributable"),
        ("Net income attributable to noncontrolling interests", "income", None),
        ("Cash and cash equivalents › End of year", "cash_flow", "cash_end"),
        ("Cash, cash equivalents and restricted cash at end of period", "cash_flow", "cash_end"),
        ("Cash and cash equivalents at 1 January", "cash_flow", None),
        ("Cash dividends declared per common share", "income", "dividends_per_share"),
        ("Dividends per share (cents)", "key_data", "dividends_per_share"),
    ],
)
def test_labels_of_any_business_take_their_concept(label: str, statement: str, concept: str | None) -> None:
    assert concept_of(label, statement) == concept


def _spans_line(page: int, top: float, spans: list[tuple[str, float, float]]) -> Line:
    made = [Span(text=t, box=Box(page=page, x0=x0, top=top, x1=x1, bottom=top + 8)) for t, x0, x1 in spans]
    box = Box(page=page, x0=made[0].box.x0, top=top, x1=made[-1].box.x1, bottom=top + 8)
    return Line(text=" ".join(t for t, _, _ in spans), box=box, spans=made)


def test_a_convenience_translation_column_is_not_the_statements_currency() -> None:
    """A 20-F's statement: '(RMB and US$ in thousands)', then 'RMB RMB RMB US$' over its columns. The statement is in
    RMB; the last column is a translation into US$, so its figures are not established as RMB, and nothing is
    claimed over a column headed by a bare $ (the statement's currency settles that one)."""
    lines = [
        _spans_line(204, 86, [("(RMB and US$ in thousands, except for share and per share data)", 143, 470)]),
        _spans_line(204, 116, [("2020", 333, 350), ("2021", 393, 410), ("2022", 453, 470), ("2022", 513, 530)]),
        _spans_line(204, 124, [("RMB", 332, 350), ("RMB", 392, 410), ("RMB", 452, 470), ("US$Note 2 (f)", 500, 560)]),
        _spans_line(204, 139, [("Total revenues", 49, 110), ("378,264", 339, 362), ("10,812", 526, 545)]),
    ]
    cells = [Cell(text=t, column=n, header="", boxes=[Box(page=204, x0=x0, top=139, x1=x1, bottom=147)])
             for n, (t, x0, x1) in enumerate([("378,264", 339, 362), ("10,812", 526, 545)])]  # fmt: skip
    table = Table(page=204, box=Box(page=204, x0=49, top=137, x1=545, bottom=147), columns=["", ""],
                  rows=[TableRow(label="Total revenues", cells=cells, boxes=[])])  # fmt: skip
    page = Page(number=204, width=612, height=792, lines=lines, tables=[table])
    assert column_currency(page, table, cells[0]) == ("CNY", "RMB")
    assert column_currency(page, table, cells[1]) == ("USD", "US$Note 2 (f)")
    bare = page.model_copy(update={"lines": [*lines[:2], _spans_line(204, 124, [("$", 340, 350), ("$", 530, 540)])]})
    assert column_currency(bare, table, cells[1]) is None
