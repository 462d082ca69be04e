"""Financial statements as data: each printed figure of the primary statements and the key-data tables as a row with
its concept, period, value in currency units, and the boxes of its label and its cell.

The statements are the outline's (``CONSOLIDATED BALANCE SHEETS``, 合并利润表 … from the page where the heading is
printed to the next section); parent-company statements (母公司…) are left out. Key-data tables are those titled
主要会计数据 / 主要财务指标 / Selected Financial Data / Financial Highlights. Each table's unit is read from its title
and the lines above it, or carried from the statement's first page; a continuation page without column headers takes
the headers of the statement's previous table of the same width.

A figure is a fact only when the filing establishes it: ``verified`` is true only when its value was found again at
its box and its scale, its currency (for money) and its period were each read from the filing — each part's printed
source is on the row (``scale_source``, ``currency_source``, ``period_source``). Otherwise ``missing`` says what was
not established; nothing is inferred from silence (no scale statement is not "units"; a bare $ is US dollars only on
a US SEC form, otherwise the filing's presentation-currency sentence must name it). A column that reports a change
(% change, 增减) is never a period.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from decimal import Decimal

from pydantic import BaseModel, Field

from indexer.core.figures import parse_value as parse_cell_value
from indexer.core.models import Box, Cell, Page, Table
from indexer.core.sections import names_kind, parent_only
from indexer.core.statement_names import KEY_FIGURES, PRIMARY, STATEMENT_OF_LABEL, STATEMENT_READ_PAGES
from indexer.core.tokenize import normalize_text
from indexer.evidence.columns import (
    EXCEPT_PER_SHARE,
    PER_SHARE,
    cell_header,
    header_rows,
    header_spans,
    is_year_row,
    parent_columns,
    per_share_by_parent,
    row_label,
    table_headers,
    unit_unnamed,
    with_heading,
)
from indexer.evidence.concepts import concept_of
from indexer.evidence.currency import DocumentCurrency
from indexer.evidence.outline import Section
from indexer.evidence.periods import ColumnPeriods, Period, ReportPeriod
from indexer.evidence.table_units import UNIT_LINES, column_currency, lines_above, table_unit
from indexer.evidence.units import DOLLAR, Source, Unit, declared_unit, lines_unit, signs_only, source

# get_financials' statement name of each primary-statement key of the outline
STATEMENT_OF_KEY = {label: STATEMENT_OF_LABEL[label] for label in PRIMARY}
# A statement (as get_financials names it) → the label of its pages (as search routes to them).
_SEGMENT = re.compile(r"\bsegments?\b|分部", re.I)  # a segment's selected data is not the company's key data
_SHARE_COUNT = re.compile(
    r"weighted[- ]average|number of (?:common |ordinary )?shares|shares (?:outstanding|used)", re.I
)
_SHARES = re.compile(r"\bshares\b|股数|股本总数", re.I)
_PERCENT = re.compile(r"%|％|收益率|\bratio\b|\bmargin\b", re.I)
_NUMBERS = re.compile(r"\d[\d,.]*")
SUMMARY_ROWS = 200  # rows a document may yield at most per statement table (a runaway table stops there)


class FinancialRow(BaseModel):
    """One printed figure of a statement: where it is, what it is, and its value in currency units."""

    document: str
    page: int
    statement: str = Field(description="income, balance, cash_flow or key_data")
    label: str = Field(description="the row label as printed; 'parent › label' where the label alone is ambiguous")
    concept: str | None = Field(description="normalised concept (revenue, net_income, capex, eps_diluted …) or None")
    period: str = Field(description="the column header as printed")
    period_end: str | None = Field(description="the date the column's period ends (ISO)")
    fiscal_year: int | None = Field(description="the fiscal year of the column, as the filer names it")
    months: int | None = Field(default=None, description="3, 6, 9 or 12 for a duration; None for a balance date")
    value: str | None = Field(
        description="the figure in units (currency, shares or percent) with its sign: (1,234) in millions → "
        "'-1234000000'; a nil dash is '0'; None when the cell is not a number"
    )
    value_printed: str = Field(description="the figure as printed")
    scale: str | None = Field(
        description="the scale the statement declares ('millions', '万元'; '' for figures in units); null when no "
        "scale is printed for it: then value is null and the row unverified (read the page)"
    )
    unit: str = Field(description="currency, per_share (currency per share), shares or percent")
    currency: str | None = Field(
        description="ISO code (USD, CNY, AUD …) as the filing establishes it; null when it does not (a bare $ off a "
        "US SEC form, and no presentation-currency sentence)"
    )
    calendar_year: int | None = Field(default=None, description="the calendar year the column's period ends in")
    verified: bool = Field(
        description="value found again at its box, and its scale, currency and period each read from the filing"
    )
    missing: list[str] = Field(default_factory=list, description="what was not established, when not verified")
    scale_source: Source | None = Field(default=None, description="the printed text declaring the scale")
    currency_source: Source | None = Field(default=None, description="the sign, code or sentence naming the currency")
    period_source: Source | None = Field(default=None, description="the column header the period was read from")
    xbrl_concept: str | None = Field(
        default=None, description="for an EDGAR HTML filing: the inline XBRL concept tagged for this figure"
    )
    xbrl_value: str | None = Field(default=None, description="the tagged value in units (scale and sign applied)")
    xbrl_agrees: bool | None = Field(
        default=None,
        description="true: the tagged value equals the printed one; false: the filer tagged this row's concept for "
        "this period with another value (check the page); null: no tagged fact found",
    )
    boxes: list[Box] = Field(serialization_alias="bboxes", description="the label's boxes, then the value cell's")
    page_width: float
    page_height: float


@dataclass(frozen=True)
class StatementTable:
    """A table of one statement on one page, its unit and its column headers (carried over where not printed)."""

    statement: str
    page: Page
    table: Table
    unit: Unit
    columns: tuple[str, ...]


def statement_tables(
    page_of: Callable[[int], Page],
    sections: list[Section],
    report: ReportPeriod,
    only: list[Section] | None = None,
) -> Iterable[StatementTable]:
    """The tables of each primary statement in the outline (or of ``only`` those), with their units and column
    headers."""
    # a filing that prints its profit or loss in a single statement of comprehensive income (IFRS allows it) has no
    # income statement of its own: that statement is its income statement
    keys = {s.key for s in sections if s.kind == "statement" and not parent_only(s.title)}
    of_key = STATEMENT_OF_KEY | ({"comprehensive_income": "income"} if "income_statement" not in keys else {})
    for position, section in enumerate(sections):
        statement = of_key.get(section.key) if section.kind == "statement" else None
        if statement is None or parent_only(section.title) or (only is not None and section not in only):
            continue
        following = sections[position + 1] if position + 1 < len(sections) else None
        heading = [line for line in page_of(section.page_start).lines if not line.furniture]
        # the unit printed under the heading ("(In millions)"), though the table may start on the next page
        unit = lines_unit(heading[section.line : section.line + UNIT_LINES], section.page_start)
        previous: dict[int, tuple[str, ...]] = {}
        last = min(section.page_end, section.page_start + STATEMENT_READ_PAGES - 1)  # the tables after it are others
        for number in range(section.page_start, last + 1):
            page = page_of(number)
            for table in _within(page, section, following):
                unit = table_unit(page, table, unit)
                columns = table_headers(page, table, report)
                if not any(columns):
                    columns = previous.get(len(columns), columns)
                previous[len(columns)] = columns
                yield StatementTable(statement, page, table, unit, columns)


def _within(page: Page, section: Section, following: Section | None) -> list[Table]:
    """The page's tables below the section's heading (on its first page) and above the next heading (on its last)."""
    body = [line for line in page.lines if not line.furniture]
    top = body[section.line].box.top if page.number == section.page_start and section.line < len(body) else None
    bottom = None
    if following is not None and following.page_start == page.number and following.line < len(body):
        bottom = body[following.line].box.top
    return [t for t in page.tables if (top is None or t.box.bottom > top) and (bottom is None or t.box.top < bottom)]


def _continues(page: Page, table: Table) -> bool:
    """Whether a table at the top of a page, with no heading of its own above it, continues the previous one."""
    return not any(line for line in page.lines if not line.furniture and line.box.bottom <= table.box.top - 1)


def key_data_tables(pages: Iterable[Page], report: ReportPeriod) -> Iterable[StatementTable]:
    """Key-data tables (主要会计数据, Selected Financial Data …), found by their titles or the lines just above."""
    last: tuple[int, Unit] | None = None  # the previous key-data table's page and unit: a table continued over
    for page in pages:
        for table in page.tables:
            heading = f"{table.title or ''}\n" + "\n".join(line.text for line in lines_above(page, table))[-200:]
            carried = last[1] if last is not None and page.number - last[0] <= 1 else None
            key_data = names_kind(KEY_FIGURES, heading) and not _SEGMENT.search(heading)
            if key_data or (carried and _continues(page, table)):
                unit = table_unit(page, table, carried)
                last = (page.number, unit)
                yield StatementTable("key_data", page, table, unit, table_headers(page, table, report))


def _printed_at(page: Page, cell: Cell) -> bool:
    """Whether the cell's figure is printed in a page line at the cell's first box."""
    if not cell.boxes:
        return False
    box, printed = cell.boxes[0], _compact(cell.text)
    return any(
        line.box.top <= box.bottom and box.top <= line.box.bottom and line.box.x0 <= box.x1 and box.x0 <= line.box.x1
        and printed in _compact(line.text)
        for line in page.lines
    )  # fmt: skip


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", normalize_text(text))


def _value(cell: Cell, label: str, unit: Unit, statement: str) -> tuple[str | None, str]:
    """The cell's value in units and what the unit is: per-share and percentages as printed, shares in their scale
    (a balance sheet's 'Common stock, $0.10 par value … 217.9 million shares' is an amount of equity, and a cash flow
    statement's 'Issuance of preferred shares' an amount of cash)."""
    # a cell holding several figures is a table the parser could not split: no value, never the first one's
    number = parse_cell_value(cell.text) if len(_NUMBERS.findall(cell.text)) <= 1 else None
    label = EXCEPT_PER_SHARE.sub(" ", label)  # "(In thousands, except per share data)" over a total is no per share
    if _SHARE_COUNT.search(label):
        kind, multiplier = "shares", unit.shares_multiplier
    elif PER_SHARE.search(label):
        kind, multiplier = "per_share", Decimal(1)
    elif _PERCENT.search(label) or cell.text.strip().endswith(("%", "％")):
        kind, multiplier = "percent", Decimal(1)
        if number is None:
            number = parse_cell_value(cell.text.strip().rstrip("%％"))
    elif _SHARES.search(label) and statement in ("income", "key_data"):
        kind, multiplier = "shares", unit.shares_multiplier
    else:
        kind, multiplier = "currency", unit.multiplier
    if number is None:
        return None, kind
    return _plain_decimal(number * multiplier), kind


_MINOR_UNIT = re.compile(r"\b(cents?|pence)\b|(?<=\d)p\b|\(p\)|\bin\s+p\b", re.I)


def _minor_unit(label: str, header: str) -> str | None:
    """'cents' or 'pence' where a per-share figure's label, its parent or its column says it is printed in the
    currency's hundredth ("Earnings per share (cents per share)", "Basic earnings per share (pence)")."""
    found = _MINOR_UNIT.search(label) or _MINOR_UNIT.search(header)
    return None if found is None else "pence" if (found.group(1) or "p").lower().startswith("p") else "cents"


def _plain_decimal(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0.0") else text


def _header_source(page: Page, header: str, cell: Cell) -> Source:
    """Where the column header ``header`` is printed over ``cell``: the nearest span above the cell's figure that
    is part of the header (no box when the header was carried from the statement's previous page)."""
    worded = [span for span in header_spans(page, header, cell) if len(span.text.strip()) > 1]  # not a bare sign
    found = max(worded, key=lambda span: span.box.bottom, default=None)
    return source(header, page.number, found.box if found else None)


def _missing(value: str | None, kind: str, unit: Unit, located: bool) -> list[str]:
    """What a figure lacks to be a fact, in the words the answer gives."""
    missing = []
    if value is None:  # a scaled figure whose scale is not stated has no value either
        missing.append("scale not stated" if kind in ("currency", "shares") and not unit.stated
                       else "no single figure in the cell")  # fmt: skip
    if kind in ("currency", "per_share") and unit.currency in (None, DOLLAR):
        missing.append("currency not stated" + (" (a bare $)" if unit.currency == DOLLAR else ""))
    if not located:
        missing.append("not found again at its box")
    return missing


class _Columns:
    """What each column of a statement table says: its period, where its header is printed, and its unit (the
    table's, with what the header declares over it: "Millions of yen", "US$'000", "Consolidated 2022 $"), each read
    once per column."""

    def __init__(self, found: StatementTable, report: ReportPeriod, money: DocumentCurrency | None) -> None:
        self._found, self._money = found, money
        self._periods = ColumnPeriods(found.columns, found.table.title, report)
        self._units: dict[str, Unit] = {}
        self._sources: dict[tuple[str, int], Source] = {}
        self._currencies: dict[int, tuple[str, str] | None] = {}

    def period(self, header: str) -> Period | None:
        return self._periods(header)

    def header(self, header: str, cell: Cell) -> Source:
        if (header, cell.column) not in self._sources:
            self._sources[header, cell.column] = _header_source(self._found.page, header, cell)
        return self._sources[header, cell.column]

    def currency(self, cell: Cell) -> tuple[str, str] | None:
        """The currency printed over the cell's column above the table (a convenience translation's 'US$')."""
        if cell.column not in self._currencies:
            self._currencies[cell.column] = column_currency(self._found.page, self._found.table, cell)
        return self._currencies[cell.column]

    def unit(self, header: str, cell: Cell) -> Unit:
        if header not in self._units:
            found, box = self._found, self.header(header, cell).box
            declared = declared_unit(header, found.page.number, box)
            unit = declared.over(found.unit) if declared else found.unit
            if not unit.stated and (in_units := signs_only([(header, box)], found.page.number)):
                unit = replace(unit, power=0, name="", scale_source=in_units)
            self._units[header] = self._money.settle(unit) if self._money is not None else unit
        return self._units[header]


def table_rows(
    document: str, found: StatementTable, report: ReportPeriod, money: DocumentCurrency | None = None
) -> list[FinancialRow]:
    """Every figure of one statement table under a period column, as rows (``money`` settles a bare $ or a table
    without a currency sign from the document: its form, its presentation-currency sentence)."""
    columns = _Columns(found, report, money)
    parents = parent_columns(found.page, found.table)  # the parent company's own, beside the group's: left out
    rows = []
    for printed in found.table.rows[header_rows(found.table) : SUMMARY_ROWS]:
        if is_year_row(printed):
            continue
        row = with_heading(found.page, printed)
        label = row_label(row, found.table)
        concept = concept_of(label, found.statement) or concept_of(row.label, found.statement)
        if per_share_by_parent(row, found.table):  # EPS where the row is net income's; never an amount's concept
            own = concept_of(row.label, found.statement)
            concept = concept_of(label, found.statement) if own in ("net_income", "net_income_attributable") else None
        label_boxes = [box for box in row.boxes if box not in {b for cell in row.cells for b in cell.boxes}]
        for cell in row.cells:
            if cell.column in parents:
                continue
            # the cell's own header (a table whose lower rows have their own: 2019年 above, 2019年末 below), else
            # the column's (perhaps stacked above the table or carried from the statement's previous page)
            header = cell_header(cell, found.columns, report)
            period = columns.period(header)
            if period is None:
                continue
            unit = columns.unit(header, cell)
            value, kind = _value(cell, label, unit, found.statement)
            unnamed, minor = unit_unnamed(row, label), None
            if unnamed:
                value = None  # an EPS or a share count: the page does not say which
            elif kind == "per_share" and (minor := _minor_unit(label, header)) and value is not None:
                value = _plain_decimal(Decimal(value) / 100)  # printed in cents or pence
            scaled = kind in ("currency", "shares")
            if scaled and not unit.stated:
                value = None  # no scale printed for it: never a figure in units that may be off by 10**6
            money_kind = kind in ("currency", "per_share")
            settled = money_kind and unit.currency not in (None, DOLLAR)
            located = (bool(label_boxes) or not row.label.strip()) and _printed_at(found.page, cell)  # a bare total
            missing = _missing(value, kind, unit, located)
            if settled and (over := columns.currency(cell)) and over[0] != unit.currency:
                missing.append(f"currency: its column is headed {over[1]!r}, not the statement's {unit.currency}")
            if unnamed:
                missing = ["unit not stated: 'Basic'/'Diluted' under no per-share or share-count heading", *missing]
            shown_scale = (unit.name if unit.stated else None) if scaled else minor or ""
            rows.append(
                FinancialRow(
                    document=document, page=found.page.number, statement=found.statement, label=label,
                    concept=concept, period=header, period_end=period.end, fiscal_year=period.fiscal_year,
                    calendar_year=int(period.end[:4]) if period.end else None, months=period.months, value=value,
                    value_printed=cell.text, scale=shown_scale, unit=kind,
                    currency=unit.currency if settled else None, verified=not missing, missing=missing,
                    scale_source=unit.scale_source if scaled else None,
                    currency_source=unit.currency_source if settled else None,
                    period_source=columns.header(header, cell),
                    boxes=[*label_boxes, *cell.boxes], page_width=found.page.width, page_height=found.page.height,
                )
            )  # fmt: skip
    return rows


def key_data_pages(sections: list[Section], tables_of: Callable[[int], list[Table]], pages: int) -> list[int]:
    """Pages that may hold a key-data table: inside a section titled like one (Item 6 Selected Financial Data,
    第二节 公司简介和主要财务指标), or with a table whose title names one."""
    numbers = {
        n for s in sections if names_kind(KEY_FIGURES, s.title) and s.kind != "statement"
        for n in range(s.page_start, s.page_end + 1)
    }  # fmt: skip
    numbers |= {n for n in range(1, pages + 1) if any(names_kind(KEY_FIGURES, t.title or "") for t in tables_of(n))}
    return sorted(numbers)
