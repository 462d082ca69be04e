"""Financial statements as data: each printed figure of the primary statements and the key-data tables as a row with
its concept, period, value in currency units, and the boxes of its label and its cell.

The statements are the outline's (``CONSOLIDATED BALANCE SHEETS``, 合并利润表 … from the page where the heading is
printed to the next section); parent-company statements (母公司…) are left out. Key-data tables are those titled
主要会计数据 / 主要财务指标 / Selected Financial Data / Financial Highlights. Each table's unit is read from its title
and the lines above it, or carried from the statement's first page; a continuation page without column headers takes
the headers of the statement's previous table of the same width. A figure is returned as verified only when its
printed text is found again in the page line at its box.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

from pydantic import BaseModel, Field

from indexer.core.errors import NotFoundError, shown
from indexer.core.figures import parse_value as parse_cell_value
from indexer.core.models import Box, Cell, Page, Table
from indexer.core.tokenize import normalize_text
from indexer.evidence.columns import cell_header, header_rows, is_year_row, row_label, table_headers
from indexer.evidence.concepts import concept_of, concepts_named, normalise_label
from indexer.evidence.outline import Section
from indexer.evidence.periods import Period, ReportPeriod, column_period
from indexer.evidence.units import Unit, currency, declared_unit

STATEMENTS = ("income", "balance", "cash_flow", "key_data")
# get_financials' statement name of each primary-statement key of the outline
STATEMENT_OF_KEY = {"income_statement": "income", "balance_sheet": "balance", "cash_flow": "cash_flow"}
_KEY_DATA = re.compile(
    r"主要会计数据|主要财务指标|主要财务数据|selected (consolidated )?financial data|financial highlights|key figures|"
    r"five[- ]year (financial )?summary|key financial (data|information)",
    re.I,
)
_SEGMENT = re.compile(r"\bsegments?\b|分部", re.I)  # a segment's selected data is not the company's key data
_PARENT_ONLY = re.compile(r"^母公司|parent company only", re.I)
_SHARE_COUNT = re.compile(
    r"weighted[- ]average|number of (?:common |ordinary )?shares|shares (?:outstanding|used)", re.I
)
_PER_SHARE = re.compile(r"per (common |ordinary )?share|每股|\beps\b|元\s*/\s*股", re.I)
_SHARES = re.compile(r"\bshares\b|股数|股本总数", re.I)
_PERCENT = re.compile(r"%|％|收益率|\bratio\b|\bmargin\b", re.I)
_NUMBERS = re.compile(r"\d[\d,.]*")
STATEMENT_PAGES = 4  # a primary statement fills at most this many pages (a 年报's balance sheet takes three)
UNIT_LINES = 8  # lines above a table read for its unit
HEADER_BAND = 30.0  # points below a table's top where header rows (and a unit note beside them) may stand
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
    currency: str | None = Field(description="ISO code (USD, CNY, EUR …) when the statement or document names it")
    verified: bool = Field(description="the printed figure was found again at its box on the page")
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


def _lines_above(page: Page, table: Table) -> str:
    """The lines printed above the table and beside its header rows ('单位：元' often stands right of them)."""
    above = [line.text for line in page.lines if line.box.bottom <= table.box.top + HEADER_BAND]
    return "\n".join(above[-UNIT_LINES:])


def _merged(unit: Unit, declared: Unit | None) -> Unit:
    """``unit`` with what ``declared`` states over it: its scale where it names one (a currency sign alone does not
    undo a scale stated before), its currency where it names one."""
    if declared is None:
        return unit
    scaled = declared if declared.name else unit
    money = declared.currency or unit.currency
    return Unit(scaled.power, scaled.name, money, scaled.share_power, unit.stated or declared.stated)


def _table_unit(page: Page, table: Table, carried: Unit | None, language: str | None) -> Unit:
    """The unit a table declares above it (title first), else the statement's so far (a scale stated once on the
    statement's first page), else what the page states elsewhere (its header, a footnote); the currency, when none
    is stated, is guessed from the cells or the document's language (a guess states no scale)."""
    unit = _merged(carried or Unit(), declared_unit(f"{table.title or ''}\n{_lines_above(page, table)}"))
    if not unit.name:
        stated = declared_unit(page.text)
        if stated is not None and stated.name:
            unit = _merged(unit, stated)
    if unit.currency is None:
        cells = " ".join(cell.text for row in table.rows[:5] for cell in row.cells)
        guess = currency(cells) or ("CNY" if language == "zh" else None)
        unit = Unit(unit.power, unit.name, guess, unit.share_power, unit.stated)
    return unit


def statement_tables(
    page_of: Callable[[int], Page],
    sections: list[Section],
    language: str | None,
    report: ReportPeriod,
    only: list[Section] | None = None,
) -> Iterable[StatementTable]:
    """The tables of each primary statement in the outline (or of ``only`` those), with their units and column
    headers."""
    for position, section in enumerate(sections):
        statement = STATEMENT_OF_KEY.get(section.key) if section.kind == "statement" else None
        if statement is None or _PARENT_ONLY.search(section.title) or (only is not None and section not in only):
            continue
        following = sections[position + 1] if position + 1 < len(sections) else None
        heading = [line.text for line in page_of(section.page_start).lines if not line.furniture]
        # the unit printed under the heading ("(In millions)"), though the table may start on the next page
        unit = declared_unit("\n".join(heading[section.line : section.line + UNIT_LINES]))
        previous: dict[int, tuple[str, ...]] = {}
        last = min(section.page_end, section.page_start + STATEMENT_PAGES - 1)  # the tables after it are others
        for number in range(section.page_start, last + 1):
            page = page_of(number)
            for table in _within(page, section, following):
                unit = _table_unit(page, table, unit, language)
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


def key_data_tables(pages: Iterable[Page], language: str | None, report: ReportPeriod) -> Iterable[StatementTable]:
    """Key-data tables (主要会计数据, Selected Financial Data …), found by their titles or the lines just above."""
    for page in pages:
        for table in page.tables:
            heading = f"{table.title or ''}\n{_lines_above(page, table)[-200:]}"
            if _KEY_DATA.search(heading) and not _SEGMENT.search(heading):
                unit = _table_unit(page, table, None, language)
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


def _value(cell: Cell, label: str, unit: Unit) -> tuple[str | None, str]:
    """The cell's value in units and what the unit is: per-share and percentages as printed, shares in their scale."""
    # a cell holding several figures is a table the parser could not split: no value, never the first one's
    number = parse_cell_value(cell.text) if len(_NUMBERS.findall(cell.text)) <= 1 else None
    if _SHARE_COUNT.search(label):
        kind, multiplier = "shares", unit.shares_multiplier
    elif _PER_SHARE.search(label):
        kind, multiplier = "per_share", Decimal(1)
    elif _PERCENT.search(label) or cell.text.strip().endswith(("%", "％")):
        kind, multiplier = "percent", Decimal(1)
        if number is None:
            number = parse_cell_value(cell.text.strip().rstrip("%％"))
    elif _SHARES.search(label):
        kind, multiplier = "shares", unit.shares_multiplier
    else:
        kind, multiplier = "currency", unit.multiplier
    if number is None:
        return None, kind
    return _plain_decimal(number * multiplier), kind


def _plain_decimal(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0.0") else text


def table_rows(document: str, found: StatementTable, report: ReportPeriod) -> list[FinancialRow]:
    """Every figure of one statement table under a period column, as rows."""
    periods: dict[str, Period | None] = {}

    def period_of(header: str) -> Period | None:
        if header not in periods:
            periods[header] = column_period(header, report)
        return periods[header]

    rows = []
    for row in found.table.rows[header_rows(found.table) : SUMMARY_ROWS]:
        if is_year_row(row):
            continue
        label = row_label(row, found.table)
        concept = concept_of(label, found.statement) or concept_of(row.label, found.statement)
        label_boxes = [box for box in row.boxes if box not in {b for cell in row.cells for b in cell.boxes}]
        for cell in row.cells:
            # the cell's own header (a table whose lower rows have their own: 2019年 above, 2019年末 below), else
            # the column's (perhaps stacked above the table or carried from the statement's previous page)
            header = cell_header(cell, found.columns, report)
            period = period_of(header)
            if period is None:
                continue
            unit = _merged(found.unit, declared_unit(header))  # a column headed "Millions of yen" / "US$'000"
            value, kind = _value(cell, label, unit)
            scaled = kind in ("currency", "shares")
            if scaled and not unit.stated:
                value = None  # no scale printed for it: never a figure in units that may be off by 10**6
            rows.append(
                FinancialRow(
                    document=document, page=found.page.number, statement=found.statement, label=label,
                    concept=concept, period=header, period_end=period.end,
                    fiscal_year=period.fiscal_year, months=period.months, value=value, value_printed=cell.text,
                    scale=(unit.name if unit.stated else None) if scaled else "", unit=kind,
                    currency=unit.currency if kind in ("currency", "per_share") else None,
                    verified=value is not None and bool(label_boxes) and _printed_at(found.page, cell),
                    boxes=[*label_boxes, *cell.boxes], page_width=found.page.width, page_height=found.page.height,
                )
            )  # fmt: skip
    return rows


def key_data_pages(sections: list[Section], tables_of: Callable[[int], list[Table]], pages: int) -> list[int]:
    """Pages that may hold a key-data table: inside a section titled like one (Item 6 Selected Financial Data,
    第二节 公司简介和主要财务指标), or with a table whose title names one."""
    numbers = {
        n for s in sections if _KEY_DATA.search(s.title) and s.kind != "statement"
        for n in range(s.page_start, s.page_end + 1)
    }  # fmt: skip
    numbers |= {n for n in range(1, pages + 1) if any(_KEY_DATA.search(t.title or "") for t in tables_of(n))}
    return sorted(numbers)


def _names(item: str, row: FinancialRow) -> bool:
    words = normalise_label(item)
    return bool(words) and words in normalise_label(row.label)


def _missing_item(item: str, statement: str | None, chosen: list[FinancialRow]) -> str:
    """What to say of an item that names no row: the concepts and labels there are."""
    present = sorted({r.concept for r in chosen if r.concept})
    labels = list(dict.fromkeys(r.label for r in chosen if r.concept is None))[:12]
    return (
        f"no row for item {shown(item)}"
        + (f" in the {statement} statement" if statement else "")
        + f"; concepts found: {', '.join(present) or 'none'}; other labels: "
        + ("; ".join(shown(label, 40) for label in labels) or "none")
        + ". Pass a concept or words of a label (English or Chinese)."
    )


def select_rows(
    rows: list[FinancialRow], statement: str | None, items: list[str] | None, year: int | None
) -> tuple[list[FinancialRow], list[str]]:
    """The rows of ``statement`` whose concept or label ``items`` name, in fiscal ``year``, and what to say of the
    items that name nothing. When no item names a row, :class:`NotFoundError` lists the concepts and labels there
    are; when some do, the others are only noted (a partial answer, never an error for the whole call)."""
    chosen = [r for r in rows if statement is None or r.statement == statement]
    if not chosen:
        found = ", ".join(dict.fromkeys(r.statement for r in rows))
        raise NotFoundError(f"no {statement} figures found; statements found: {found}")
    missing: list[str] = []
    if items:
        kept: list[FinancialRow] = []
        for item in items:
            named = concepts_named(item)  # a concept's name or a label its patterns accept; else words of a label
            matching = [r for r in chosen if (r.concept in named if named else _names(item, r))]
            if not matching:
                missing.append(_missing_item(item, statement, chosen))
            kept.extend(r for r in matching if r not in kept)
        if not kept:
            others = f" ({len(missing) - 1} more item(s) found nothing either)" if len(missing) > 1 else ""
            raise NotFoundError(missing[0] + others)
        chosen = kept
    if year is not None:
        years = sorted({r.fiscal_year for r in chosen if r.fiscal_year})
        chosen = [r for r in chosen if r.fiscal_year == year]
        if not chosen:
            raise NotFoundError(f"no figure for fiscal year {year}; the statements selected cover {years or 'none'}")
    return chosen, missing
