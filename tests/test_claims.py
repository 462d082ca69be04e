"""A claim, not only a string: a figure verified in its table row and under its period's column (real sample pages)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from indexer.core.errors import QueryError
from indexer.core.models import Box, Cell, Page, Table, TableRow
from indexer.evidence.claims import check_claim
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import BESTBUY_10Q, SIFANG, call_tools, text_under

QUARTER = "Three Months Ended July 29, 2023"


@pytest.mark.parametrize(
    ("pdf", "page", "quote", "label", "period", "where"),
    [
        (SIFANG, 5, "1,175,301,034.32", "营业收入", "2019年", "row '营业收入' under '2019年'"),
        (SIFANG, 5, "2,464,948,703.85", "总资产", "2019", "row '总资产' under '2019年末'"),
        (
            BESTBUY_10Q,
            17,
            "8,890",
            "Revenue",
            "July 29, 2023",
            "row 'Revenue' under 'Three Months Ended July 29, 2023'",
        ),
        (
            BESTBUY_10Q,
            17,
            "8.89 billion",
            "Revenue",
            None,
            "under 'Three Months Ended July 29, 2023'",
        ),  # "(in millions)"
    ],
)
def test_a_figure_in_its_row_and_column_is_verified(
    samples_kb: KnowledgeBase, pdf: Path, page: int, quote: str, label: str, period: str | None, where: str
) -> None:
    found = samples_kb.locate(pdf.name, page, quote, label, period)
    assert found.verified and found.match == "table_cell" and where in found.note
    figure = "".join(c for c in found.matched_text if c.isdigit())
    assert "".join(c for c in text_under(pdf, page, found.boxes[:1], level="chars") if c.isdigit()) == figure
    # then the row label's boxes and the column header's: what pdfplumber reads under the latter is the header
    header = re.search(r"under '(.*)'$", found.note or "")
    assert header is not None and len(found.boxes) >= 3
    under = text_under(pdf, page, [b for b in found.boxes[1:] if b.top < found.boxes[0].top - 2])
    assert re.sub(r"\s+", "", under) == re.sub(r"\s+", "", header.group(1))


def test_a_figure_in_another_row_or_column_is_not_verified_and_the_note_says_where(samples_kb: KnowledgeBase) -> None:
    kb = samples_kb
    other_year = kb.locate(SIFANG.name, 5, "1,175,301,034.32", "营业收入", "2018年")
    assert not other_year.verified and "it is in row '营业收入' under '2019年'" in other_year.note
    other_row = kb.locate(SIFANG.name, 5, "1,175,301,034.32", "总资产", None)
    assert not other_row.verified and "is not in row '总资产'" in other_row.note
    nowhere = kb.locate(BESTBUY_10Q.name, 17, "1,234", "Revenue", None)
    assert not nowhere.verified and nowhere.match == "none" and "table(s) on page 17" in nowhere.note
    with pytest.raises(QueryError, match="one figure"):
        kb.locate(SIFANG.name, 5, "1,175,301,034.32 and 1,230,537,181.80", "营业收入", None)


def test_a_figure_in_the_claimed_column_of_another_row_is_label_not_matched(samples_kb: KnowledgeBase) -> None:
    """The claimed period's column holds the figure, in a row the label does not name: the verdict names that row
    (the agent judges whether it is the same item under another wording), not "elsewhere"."""
    found = samples_kb.locate(SIFANG.name, 5, "1,175,301,034.32", "营业总收入", "2019年")
    assert not found.verified and found.note.startswith("label not matched: 1,175,301,034.32 is under '2019年'")
    assert "in row '营业收入' under '2019年'" in found.note and found.context.startswith("营业收入")
    assert "".join(c for c in text_under(SIFANG, 5, found.boxes[:1], level="chars") if c.isdigit()) == "117530103432"
    other_year = samples_kb.locate(SIFANG.name, 5, "1,175,301,034.32", "营业总收入", "2018年")
    assert not other_year.verified and other_year.note.startswith("1,175,301,034.32 is not in row")


def test_locate_quote_takes_label_and_period(samples_index_dir: Path, cache_dir: Path) -> None:
    arguments = {"document": SIFANG.name, "page": 5, "quote": "129,465,020.68", "label": "归属于上市公司股东的净利润"}
    right, wrong = call_tools(samples_index_dir, cache_dir, [
        ("locate_quote", arguments | {"period": "2019年"}),
        ("locate_quote", arguments | {"period": "2017年"}),
    ])  # fmt: skip
    assert right.structured_content["verified"] and right.content[0].text.startswith("VERIFIED (table_cell)")
    assert not wrong.structured_content["verified"] and "under '2019年'" in wrong.content[0].text


def test_a_label_printed_twice_with_either_sign_is_told_apart_by_the_sign() -> None:
    """A cash flow statement prints 'Excess tax benefits from stock-based compensation' under operating activities
    as (68,153) and under financing activities as 68,153: the quoted sign says which row is meant."""
    box = Box(page=63, x0=400, top=100, x1=440, bottom=110)

    def row(group: str, text: str) -> TableRow:
        cell = Cell(column=0, header="November 27, 2015", text=text, boxes=[box])
        return TableRow(label="Excess tax benefits from stock-based compensation", group=group, cells=[cell],
                        boxes=[box])  # fmt: skip

    rows = [
        row("Cash flows from operating activities:", "(68,153)"),
        row("Cash flows from financing activities:", "68,153"),
    ]
    table = Table(page=63, box=box, columns=["November 27, 2015"], rows=rows)
    page = Page(number=63, width=612, height=792, lines=[], tables=[table])
    for quote, group in (("(68,153)", "operating"), ("68,153", "financing")):
        found = check_claim(page, quote, "Excess tax benefits from stock-based compensation", "2015")
        assert found.verified and group in (found.note or ""), found.note


def test_a_continued_statement_page_checks_claims_under_the_columns_its_statement_carries() -> None:
    """A 年报 balance sheet continued over pages: its third page prints no header; get_financials carries the
    columns from the statement's first page, and a claim on that page is checked under the same columns."""
    box = Box(page=61, x0=400, top=100, x1=480, bottom=110)
    cells = [Cell(column=c, header="", text=t, boxes=[box]) for c, t in enumerate(["719,546,813.39", "405,997,436.79"])]
    table = Table(page=61, box=box, columns=["", ""], rows=[TableRow(label="负债合计", cells=cells, boxes=[box])])
    page = Page(number=61, width=612, height=792, lines=[], tables=[table])
    alone = check_claim(page, "719,546,813.39", "负债合计", "2019")
    assert not alone.verified and "an unlabelled column" in (alone.note or "")
    carried = {0: ("2019 年 12 月 31 日", "2018 年 12 月 31 日")}
    found = check_claim(page, "719,546,813.39", "负债合计", "2019", known=carried)
    assert found.verified and "under '2019 年 12 月 31 日'" in (found.note or "")


def test_a_claimed_label_ending_with_a_rows_wrapped_tail_names_that_row() -> None:
    """A label printed over two lines whose first line the table kept apart: the claim's whole label, as printed,
    ends with the row's, and names it; a row label of one or two words is too short to be named this way."""
    box = Box(page=15, x0=400, top=300, x1=440, bottom=310)
    cells = [Cell(text="(1,239,019)", column=0, header="2022", boxes=[box])]
    row = TableRow(label="the owners of Benjamin Hornigold Ltd", cells=cells, boxes=[])
    short = TableRow(label="Net loss", cells=[cells[0].model_copy(update={"text": "(5,000)"})], boxes=[])
    table = Table(page=15, box=Box(page=15, x0=50, top=250, x1=450, bottom=320), columns=["2022"], rows=[row, short])
    page = Page(number=15, width=600, height=800, lines=[], tables=[table])
    claimed = "(Loss)/Profit after income tax attributable to the owners of Benjamin Hornigold Ltd"
    assert check_claim(page, "(1,239,019)", claimed, "2022").verified
    assert not check_claim(page, "(5,000)", "Group net loss", "2022").verified
