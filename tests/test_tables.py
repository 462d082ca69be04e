"""Tables: rows, column headers, cell boxes and totals on real pages; table rows as search evidence."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from indexer.core.figures import is_value, parse_value
from indexer.core.models import Box, Line, Page, Span, Table, TableRegion
from indexer.evidence.claims import check_claim
from indexer.index.reader import LoadedIndex
from indexer.ingest.chunk import ChunkSettings, mark_furniture
from indexer.ingest.parse import PdfParser
from indexer.ingest.table_lines import split_line
from indexer.ingest.tables import check_totals, find_tables
from indexer.knowledge_base import KnowledgeBase
from indexer.search.table_evidence import is_period_token
from tests.conftest import BESTBUY_10Q, BROKER, ROOT, SIFANG, hits_for, text_under

NICS = ROOT / "tests" / "pdfs" / "pdfplumber_nics-background-checks-2015-11.pdf"


@pytest.fixture(scope="module")
def parsed() -> dict[str, list[Page]]:
    parser = PdfParser()
    return {path.name: mark_furniture(parser.parse(path), ChunkSettings()) for path in (NICS, BESTBUY_10Q, SIFANG)}


def _tables(parsed: dict[str, list[Page]], path: Path, page: int) -> list[Table]:
    return find_tables(parsed[path.name][page - 1])


def _row(table: Table, label: str):  # type: ignore[no-untyped-def]
    return next(r for r in table.rows if r.label == label)


@pytest.mark.parametrize(
    ("text", "value"),
    [("1,234", True), ("(1,234)", True), ("$ 9,583", True), ("-4.49", True), ("12.5%", True), ("—", True),
     ("4 559", True), ("１，２３４", True), ("2019年", False), ("Revenue", False), ("Note 5", False)],
)  # fmt: skip
def test_is_value(text: str, value: bool) -> None:
    assert is_value(text) is value


def test_parse_value() -> None:
    assert parse_value("(1,234)") == Decimal(-1234)
    assert parse_value("$2,491") == Decimal(2491)
    assert parse_value("-") == Decimal(0)
    assert parse_value("-28.95") == Decimal("-28.95")
    assert parse_value("12.5%") is None
    assert parse_value("n/a") is None


def test_nics_rows_columns_and_totals(parsed: dict[str, list[Page]]) -> None:
    """The reference values of ../shared/corpus/README.md: Alabama first, Wyoming last, their totals 71,137
    and 5,017, and every numeric column sums to its totals row."""
    tables = _tables(parsed, NICS, 1)
    assert len(tables) == 1
    table = tables[0]
    states = [r for r in table.rows if not r.total]
    assert states[0].label == "Alabama" and states[-1].label == "Wyoming"
    assert len(states) == 55  # 50 states, DC, Guam, Mariana Islands, Puerto Rico, Virgin Islands
    assert table.rows[-1].total and table.rows[-1].label == "Totals"
    totals_column = len(table.columns) - 1
    assert table.columns[totals_column] == "Totals"
    by_column = {c.column: c.text for c in states[0].cells}
    assert by_column[totals_column] == "71,137"
    assert {c.column: c.text for c in states[-1].cells}[totals_column] == "5,017"
    assert table.columns[:3] == ["Permit", "Handgun", "Long Gun"]
    check = check_totals(table)
    assert check.checked == len(table.columns) == 24
    assert check.matching == check.checked
    # a figure the PDF prints without its comma ("98452" as two text items) is one cell, not two
    california = _row(table, "California")
    assert {c.column: c.text for c in california.cells}[0] == "98452"


def test_statement_rows_headers_and_cell_boxes(parsed: dict[str, list[Page]]) -> None:
    table = _tables(parsed, BESTBUY_10Q, 4)[0]
    assert table.title is not None and table.title.startswith("Condensed Consolidated Statements of Earnings")
    assert table.columns == [
        "Three Months Ended July 29, 2023",
        "Three Months Ended July 30, 2022",
        "Six Months Ended July 29, 2023",
        "Six Months Ended July 30, 2022",
    ]
    revenue = _row(table, "Revenue")
    assert [c.text for c in revenue.cells] == ["$9,583", "$10,329", "$19,050", "$20,976"]
    for cell in revenue.cells:
        assert text_under(BESTBUY_10Q, 4, cell.boxes) == cell.text
        assert all(b.page == 4 and 0 <= b.x0 < b.x1 <= 612 and 0 <= b.top < b.bottom <= 792 for b in cell.boxes)
    assert text_under(BESTBUY_10Q, 4, revenue.boxes[:1]) == "Revenue"
    # nil dashes sit right of the figures but belong to their columns; group labels scope indented rows only
    gain = _row(table, "Gain on sale of subsidiary, net")
    assert [(c.column, c.text) for c in gain.cells] == [(0, "21"), (1, "-"), (2, "21"), (3, "-")]
    assert gain.group == "Other income (expense):"
    assert _row(table, "Net earnings").group is None


def test_balance_sheet_totals_add_up(parsed: dict[str, list[Page]]) -> None:
    table = _tables(parsed, BESTBUY_10Q, 3)[0]
    assert table.columns == ["July 29, 2023", "January 28, 2023", "July 30, 2022"]
    current = _row(table, "Total current assets")
    assert current.total and [c.text for c in current.cells] == ["8,304", "8,802", "8,344"]
    check = check_totals(table)
    assert check.checked >= 12 and check.matching / check.checked >= 0.75


def test_chinese_table_wrapped_labels_and_a_header_row_inside(parsed: dict[str, list[Page]]) -> None:
    table = next(t for t in _tables(parsed, SIFANG, 5) if any(r.label == "营业收入" for r in t.rows))
    revenue = _row(table, "营业收入")
    cells = [(c.header, c.text) for c in revenue.cells]
    assert cells[:2] == [("2019年", "1,175,301,034.32"), ("2018年", "1,230,537,181.80")]
    profit = _row(table, "归属于上市公司股东的净利润")  # printed on two lines around its figures
    assert profit.cells[0].text == "129,465,020.68"
    assert text_under(SIFANG, 5, profit.cells[0].boxes) == "129,465,020.68"
    assets = _row(table, "总资产")  # under the second header row of the table: year-end balances
    assert [c.header for c in assets.cells][:2] == ["2019年末", "2018年末"]


def test_table_rows_are_indexed_and_shown_with_hits(samples_index: LoadedIndex, samples_kb: KnowledgeBase) -> None:
    rows = [c for c in samples_index.chunks if c.kind == "table_row"]
    assert rows and samples_index.storage.bm25_rows is not None
    assert all(c.parent is not None and c.table_ref is not None for c in rows if c.page == 4)
    assert not any(
        c.kind == "table_row" for row in samples_index.storage.dense.rows for c in [samples_index.chunks[row]]
    )

    hits = hits_for(samples_kb, "四方科技 2019年 总资产", top_k=5)
    top = hits[0]
    assert (top.document, top.page) == (SIFANG.name, 5) and top.table_row is not None
    assert top.table_row.label == "总资产"
    cell = top.table_row.cells[0]
    assert (cell.header, cell.text) == ("2019年末", "2,464,948,703.85")
    assert text_under(SIFANG, 5, cell.boxes) == "2,464,948,703.85"
    assert "总资产 | 2019年末: 2,464,948,703.85" in top.table_row.text

    question = "cost of sales six months ended July 29, 2023 statement of earnings"
    hits = hits_for(samples_kb, question, top_k=10, documents="BESTBUY_2024Q2*")
    on_statement = next(h for h in hits if h.page == 4)
    evidence = on_statement.table_row
    assert evidence is not None and evidence.label == "Cost of sales"
    cell = next(c for c in evidence.cells if c.header == "Six Months Ended July 29, 2023")
    assert cell.text == "14,680"
    assert text_under(BESTBUY_10Q, 4, cell.boxes) == "14,680"
    assert "Six Months Ended July 29, 2023: 14,680" in evidence.text


def test_a_row_is_shown_only_when_its_own_label_answers(samples_kb: KnowledgeBase) -> None:
    """On the Domestic segment page the table-row BM25 also ranks 'Pacific Sales | 20 | …' (its label shares
    'sales'): the row shown is the one whose label holds most of the question's terms, a period alone is none."""
    hits = hits_for(samples_kb, "Domestic comparable sales % change", top_k=10, documents="BESTBUY_2024Q2*")
    on_page = next(h for h in hits if h.page == 17)
    assert on_page.table_row is not None and on_page.table_row.label.startswith("Comparable sales")
    assert text_under(BESTBUY_10Q, 17, on_page.table_row.boxes[:1]).replace(" ", "").startswith("Comparablesales")
    assert is_period_token("2023") and is_period_token("2019年") and not is_period_token("sales")


def test_figures_merged_into_a_label_run_are_split_off() -> None:
    """A parser may print 'Net Revenue $ 86,392 $ 79,474 $' as one text run (PepsiCo's 10-K): the trailing figures
    become values, each boxed by its share of the run; figures inside a label stay in it."""
    box = Box(page=1, x0=100, top=10, x1=400, bottom=20)
    merged = split_line(Line(text="", box=box, spans=[Span(text="Net Revenue $ 86,392 $ 79,474 $", box=box)]))
    assert [s.text for s in merged.label] == ["Net Revenue"]
    assert [text for text, _ in merged.values] == ["$86,392", "$79,474"]
    assert merged.values[0][1][-1].box.x0 > merged.label[0].box.x1
    label = "Issued and outstanding - 217.9 million and 218.1 million shares, respectively"
    kept = split_line(Line(text="", box=box, spans=[Span(text=label, box=box)]))
    assert [s.text for s in kept.label] == [label] and not kept.values


def _printed(page: int, rows: list[tuple[float, list[tuple[str, float, float]]]]) -> list[Line]:
    """Lines as a parser gives them: (top, [(text, x0, x1), …]) with 10-point-high spans."""
    lines = []
    for top, spans in rows:
        made = [Span(text=t, box=Box(page=page, x0=x0, top=top, x1=x1, bottom=top + 10)) for t, x0, x1 in spans]
        box = Box(page=page, x0=made[0].box.x0, top=top, x1=made[-1].box.x1, bottom=top + 10)
        lines.append(Line(text=" ".join(t for t, _, _ in spans), box=box, spans=made))
    return lines


def test_a_statement_as_printed_negative_figures_one_header_piece_and_a_group_label() -> None:
    """The geometry of a Canadian income statement (figures aligned on their digits, so a negative "(150,847)" hangs
    its parenthesis past the right edge of the parser's table block; both dates printed as one text piece over the
    two columns; a group label evenly between two rows of one parser band)."""
    lines = _printed(44, [
        (138, [("Note", 334, 354), ("December 31, 2022 December 31, 2021", 385, 551)]),
        (195, [("Revenue", 59, 93), ("18", 340, 350), ("176,935", 436, 462), ("125,076", 521, 548)]),
        (210, [("Cost of sales", 59, 110), ("(150,847)", 432, 466), ("(107,465)", 517, 552)]),
        (224, [("Gross profit", 59, 106), ("26,088", 435, 462), ("17,611", 521, 548)]),
        (238, [("Operating expenses", 59, 138)]),
        (252, [("Administration expenses", 59, 150), ("(8,900)", 436, 466), ("(7,462)", 521, 552)]),
        (266, [("Sales and marketing expenses", 59, 170), ("(3,807)", 436, 466), ("(3,463)", 521, 552)]),
    ])  # fmt: skip
    block = TableRegion(box=Box(page=44, x0=55, top=135, x1=548.5, bottom=277), row_bands=((163, 220), (220, 277)))
    tables = find_tables(Page(number=44, width=612, height=792, lines=lines), [block])
    assert len(tables) == 1
    table = tables[0]
    assert table.columns[-2:] == ["December 31, 2022", "December 31, 2021"]
    by_label = {row.label: row for row in table.rows}
    assert list(by_label) == [
        "Revenue", "Cost of sales", "Gross profit", "Administration expenses", "Sales and marketing expenses",
    ]  # fmt: skip
    assert [(c.header, c.text) for c in by_label["Cost of sales"].cells] == [
        ("December 31, 2022", "(150,847)"), ("December 31, 2021", "(107,465)"),
    ]  # fmt: skip
    assert by_label["Administration expenses"].group == "Operating expenses"
    assert by_label["Gross profit"].group is None


def test_a_label_printed_level_with_a_row_of_figures_in_a_band_of_several_rows() -> None:
    """A label-only line whose top is level with a row's (a side note beside it) goes with that row, not the one
    above; level with the only rows of a band, it once had nowhere to go and stopped the build."""
    lines = _printed(9, [
        (100, [("Revenue", 59, 93), ("1,000", 436, 462), ("900", 530, 548)]),
        (114, [("Cost of sales", 59, 110), ("(600)", 436, 466), ("(500)", 525, 552)]),
        (128, [("Gross profit", 59, 106), ("400", 445, 462), ("400", 530, 548)]),
        (128, [("see note 4", 200, 240)]),
    ])  # fmt: skip
    block = TableRegion(box=Box(page=9, x0=55, top=98, x1=548.5, bottom=140), row_bands=((98, 140),))
    tables = find_tables(Page(number=9, width=612, height=792, lines=lines), [block])
    assert [row.label for row in tables[0].rows] == ["Revenue", "Cost of sales", "Gross profit see note 4"]


def test_years_over_currencies_boxed_apart_still_head_the_table_below() -> None:
    """A 20-F balance sheet: the parser boxes 'As of December 31,' / '2021 2022 2022' / 'RMB RMB US$' apart from the
    table, and 'RMB', centred over a narrower column of figures, starts left of them."""
    lines = _printed(203, [
        (98, [("As of December 31,", 435, 490)]),
        (110, [("2021", 399, 412), ("2022", 457, 470), ("2022", 514, 528)]),
        (122, [("RMB", 398, 413), ("RMB", 455, 471), ("US$", 520, 535)]),
        (133, [("ASSETS", 49, 75)]),
        (148, [("Cash and cash equivalents", 55, 126), ("217,901", 405, 427), ("249,728", 463, 485),
               ("36,207", 524, 543)]),
        (156, [("Restricted cash", 55, 100), ("1,468", 412, 427), ("1,482", 470, 485), ("215", 530, 543)]),
    ])  # fmt: skip
    blocks = [
        TableRegion(box=Box(page=203, x0=398, top=110, x1=541, bottom=132), row_bands=((110, 121), (121, 132))),
        TableRegion(box=Box(page=203, x0=49, top=133, x1=545, bottom=170), row_bands=()),
    ]
    tables = find_tables(Page(number=203, width=612, height=792, lines=lines), blocks)
    assert len(tables) == 1
    assert [(c.header, c.text) for c in tables[0].rows[0].cells] == [
        ("2021 RMB", "217,901"), ("As of December 31, 2022 RMB", "249,728"), ("2022 US$", "36,207"),
    ]  # fmt: skip


def test_a_nil_dash_run_together_with_the_next_currency_sign_is_its_own_figure() -> None:
    """'- $' as one text run between two columns (a 10-K's cash flow supplement): the dash is the middle column's
    figure and the sign the last one's, so the three columns stay three."""
    [line] = _printed(61, [(682, [("Issuance of common stock", 58, 160), ("$", 370, 374), ("10,348", 401, 426),
                                  ("$", 436, 440), ("- $", 483, 506), ("677", 544, 558)])])  # fmt: skip
    values = split_line(line).values
    assert [text for text, _ in values] == ["$10,348", "$-", "$677"]
    assert [round(spans[-1].box.x0) for _, spans in values] == [401, 483, 544]


def test_a_statements_first_row_above_the_parsers_block_is_in_the_table() -> None:
    """A cash flow statement whose first row ('Net earnings $ 1,419 …') the parser left above its block, a group label
    between them; the title line above it, whose figures do not stand in the columns, stays out."""
    lines = _printed(42, [
        (80, [("Consolidated Statements of Cash Flows", 200, 400)]),
        (94, [("November - 2015", 280, 350)]),
        (108, [("Net earnings", 50, 110), ("$", 380, 385), ("1,419", 400, 420), ("$", 450, 455), ("2,454", 470, 490),
               ("$", 520, 525), ("1,798", 540, 560)]),
        (122, [("Adjustments to reconcile net earnings to cash provided by operating activities:", 50, 360)]),
        (136, [("Depreciation and amortization", 60, 190), ("918", 408, 420), ("869", 478, 490), ("839", 548, 560)]),
        (150, [("Restructuring charges", 60, 160), ("147", 408, 420), ("(34)", 474, 492), ("254", 548, 560)]),
    ])  # fmt: skip
    block = TableRegion(box=Box(page=42, x0=48, top=134, x1=562, bottom=162), row_bands=())
    tables = find_tables(Page(number=42, width=612, height=792, lines=lines), [block])
    assert [row.label for row in tables[0].rows] == ["Net earnings", "Depreciation and amortization",
                                                     "Restructuring charges"]  # fmt: skip
    assert [cell.text for cell in tables[0].rows[0].cells] == ["$1,419", "$2,454", "$1,798"]


def test_a_label_wrapped_over_lines_the_parser_banded_apart_is_one_row() -> None:
    """A bank's statement: each printed line its own parser band. A label over three lines (the figures on the
    last), and one whose last word wraps after its figures, are each one row; a group label stays a group, also
    below a label ending in ', net'."""
    lines = _printed(12, [
        (100, [("Year ended 31 December", 59, 160), ("2023", 436, 462), ("2022", 521, 548)]),
        (120, [("Operating income", 59, 150)]),
        (134, [("Net interest income", 69, 160), ("9,000", 436, 462), ("8,000", 521, 548)]),
        (148, [("Consolidated profit or loss attributable to", 59, 230)]),
        (159, [("shareholders and investors in additional", 59, 220)]),
        (170, [("equity components", 59, 140), ("2,155", 436, 462), ("1,980", 521, 548)]),
        (184, [("Profit attributable to non-controlling", 59, 220), ("45", 445, 462), ("40", 530, 548)]),
        (195, [("interests", 59, 100)]),
        (209, [("Net profit", 59, 110), ("2,200", 436, 462), ("2,020", 521, 548)]),
        (223, [("Property and equipment, net", 59, 180), ("700", 445, 462), ("650", 530, 548)]),
        (234, [("Other assets", 59, 120)]),
        (245, [("Goodwill", 69, 110), ("300", 445, 462), ("300", 530, 548)]),
    ])  # fmt: skip
    bands = tuple((line.box.top - 1, line.box.bottom + 1) for line in lines[1:])
    block = TableRegion(box=Box(page=12, x0=55, top=98, x1=550, bottom=256), row_bands=bands)
    (table,) = find_tables(Page(number=12, width=612, height=792, lines=lines), [block])
    claimed = "Consolidated profit or loss attributable to shareholders and investors in additional equity components"
    assert table.columns == ["2023", "2022"]
    assert [(row.group, row.label) for row in table.rows] == [
        ("Operating income", "Net interest income"),
        (None, claimed),
        (None, "Profit attributable to non-controlling interests"),
        (None, "Net profit"),
        (None, "Property and equipment, net"),  # a whole label: ', net' ends it
        ("Other assets", "Goodwill"),
    ]  # fmt: skip
    page = Page(number=12, width=612, height=792, lines=lines, tables=[table])
    assert check_claim(page, "2,155", claimed, "2023").verified


def test_two_tables_printed_side_by_side_are_two_tables(samples_kb: KnowledgeBase) -> None:
    """A broker note's last page prints its ratios beside its income statement, each with its labels and year
    columns (2022E: a forecast): two tables, each figure under its own label and year."""
    tables = samples_kb.tables(BROKER.name, 3)
    ratios = next(t for t in tables if any(r.label == "每股收益" for r in t.rows))
    income = next(t for t in tables if any(r.label == "营业成本" for r in t.rows))
    assert ratios is not income and ratios.box.x1 < income.box.x0
    assert [(c.header, c.text) for c in _row(income, "营业成本").cells] == [
        ("2021", "1,038"), ("2022E", "2,394"), ("2023E", "3,236"), ("2024E", "3,567"),
    ]  # fmt: skip
    assert [c.text for c in _row(ratios, "每股收益").cells] == ["1.07", "2.91", "4.43", "5.77"]
    found = samples_kb.locate(BROKER.name, 3, "2,394", "营业成本", "2022E")
    assert found.verified and found.note == "2,394 is in row '营业成本' under '2022E'"
    assert text_under(BROKER, 3, found.boxes[:1]).strip() == "2,394"


def test_a_text_column_between_figures_is_not_a_second_table() -> None:
    """Figures with a unit ('5.15 years') or N/A between two runs of figures are a column of the one table."""
    lines = _printed(70, [
        (200, [("Gross", 148, 170), ("Impairment", 233, 270), ("Life", 391, 420), ("Net", 565, 580)]),
        (222, [("Developed technology", 25, 120), ("258", 169, 190), ("(54)", 233, 255), ("5.15 years", 391, 440),
               ("258", 452, 470), ("57", 565, 580)]),
        (244, [("In-process research", 25, 110), ("6", 177, 190), ("(6)", 237, 255), ("N/A", 410, 430),
               ("6", 460, 470), ("6", 569, 580)]),
        (256, [("Customer relationships", 25, 120), ("168", 169, 190), ("(1)", 237, 255), ("1.25 years", 391, 440),
               ("168", 452, 470), ("1", 569, 580)]),
        (268, [("Trademark and trade name", 25, 125), ("37", 173, 190), ("(1)", 237, 255), ("1.25 years", 391, 440),
               ("37", 456, 470), ("1", 569, 580)]),
    ])  # fmt: skip
    tables = find_tables(Page(number=70, width=612, height=792, lines=lines), [])
    assert len(tables) == 1 and [len(row.cells) for row in tables[0].rows] == [4, 4, 4, 4]
