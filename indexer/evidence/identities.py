"""A statement checks itself: the identities its own figures print, checked with the figures as printed.

- **Totals.** A 'Total …' / 合计 row equals the rows above it back to some start: walking up from the total, a row
  adds its figure, and an earlier total (or a row its own parts sum to) adds its own figure and stands for the block
  it closes ("Total liabilities" = "Total current liabilities" + the non-current rows). The total holds when some
  start gives its figure within rounding (half a printed unit per figure). It fails when the rows above sum to it in
  another period of the statement but not in this one: the statement's own structure shows what should add up. A
  total that sums in no period (a bank's interest expense printed positive and subtracted) is not checked.
- **The balance sheet balances.** Total assets = total liabilities and equity (or total liabilities + total equity).
- **The income statement subtracts.** Gross profit = revenue - cost of revenue; net income = pretax income - income
  tax (an expense printed either sign) + the rows printed between them (equity income, discontinued operations).
- **Cash rolls forward.** The net change in cash = operating + investing + financing cash flows (+ the exchange-rate
  effect).

Every check is on the printed figures, so it needs no scale and holds on any layout; a merged row, a shifted column
or a lost sign shows as a failure. A figure in a failed identity is not verified ("does not add up").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal

from pydantic import BaseModel, Field

from indexer.core.figures import decimal_places, parse_value
from indexer.core.models import Box, Table
from indexer.evidence.concepts import normalise_label
from indexer.evidence.financials import FinancialRow

WALK_ROWS = 60  # rows above a total read at most
ALIGNED = 12.0  # points between the right edges of figures of one printed column
DIFFERENCE_ROWS = 6  # rows between revenue and gross profit, or pretax and net income, at most
_PART_OF = ("其中", "of which", "including", "includes")  # a breakdown of the row above, not an addend
_LESS = re.compile(r"^\s*(?:less\b|减\s*[:：])", re.I)


class Identity(BaseModel):
    """One identity a statement prints, for one period, and whether its figures satisfy it."""

    document: str
    page: int
    statement: str
    period: str
    name: str = Field(description="what was checked: 'Total current assets = 6 rows above', 'assets = L + E' …")
    holds: bool
    detail: str = Field(description="the figures compared, as printed")


class _Figure:
    """A figure of a statement in one column: its row's label, whether it totals, its printed number."""

    __slots__ = ("label", "number", "places", "total")

    def __init__(self, label: str, total: bool, printed: str) -> None:
        self.label, self.total = label, total
        self.number = parse_value(printed)
        if self.number is not None and self.number > 0 and _LESS.match(label):
            self.number = -self.number  # "Less accumulated depreciation 5,470" is subtracted
        decimals = printed.rsplit(".", 1)[1] if "." in printed else ""
        self.places = sum(ch.isdigit() for ch in decimals)


def _close(a: Decimal, b: Decimal, terms: int, places: int) -> bool:
    """Equal within the rounding of ``terms`` printed figures (half a unit of the last printed place each)."""
    return abs(a - b) <= Decimal(terms) * Decimal(5) * Decimal(10) ** (-places - 1) + Decimal("1e-9")  # terms 0: exact


def total_checks(figures: list[_Figure]) -> list[tuple[int, bool]]:
    """For each total among ``figures`` (one column's, top to bottom): (its position, whether it holds)."""
    checks = []
    starts: dict[int, int] = {}  # a row that sums the rows above it → the first figure of the block it closes
    for position, figure in enumerate(figures):
        if figure.number is None:
            continue
        start = _block_start(figures, position, starts, figure.total)
        if start is not None:
            starts[position] = start
        if figure.total:
            checks.append((position, start is not None))
    return checks


def _block_start(figures: list[_Figure], position: int, starts: dict[int, int], total: bool) -> int | None:
    """Where the block of rows that sums to ``figures[position]`` starts (walking up; an earlier row that sums
    its own block stands for it), or None. A row not labelled a total is a subtotal only if two rows or more sum
    to it (a 'Net property and equipment' under its parts)."""
    figure = figures[position]
    terms, running, places = 0, Decimal(0), figure.places
    j = position - 1
    while j >= 0 and position - j <= WALK_ROWS:
        above = figures[j]
        if above.number is None or normalise_label(above.label).startswith(_PART_OF):
            j -= 1
            continue
        running += above.number
        terms += 1
        places = max(places, above.places)
        start = starts.get(j, j)  # an earlier total or subtotal stands for the block it closes
        # a total within rounding; a row not labelled one only when its parts sum to it exactly (so that 22 + 0
        # is not taken for the 21 below them)
        rounding = terms + 1 if total else 0
        if (total or terms >= 2) and figure.number is not None and _close(running, figure.number, rounding, places):
            return start
        j = start - 1
    return None


def _sum_holds(left: Decimal, right: Iterable[Decimal | None], terms: int) -> bool | None:
    values = list(right)
    if any(value is None for value in values):
        return None
    return _close(left, sum((v for v in values if v is not None), Decimal(0)), terms, 0)


def balance_holds(assets: str, liabilities_and_equity: str | None, parts: list[str]) -> bool | None:
    """Total assets = total liabilities and equity (or the sum of ``parts``: liabilities, equity); None when the
    statement prints neither."""
    total = parse_value(assets)
    if total is None:
        return None
    if liabilities_and_equity is not None and (other := parse_value(liabilities_and_equity)) is not None:
        return _close(total, other, 2, _places(assets, liabilities_and_equity))
    if len(parts) >= 2:
        return _sum_holds(total, (parse_value(p) for p in parts), len(parts) + 1)
    return None


def cash_holds(net_change: str, flows: list[str]) -> bool | None:
    """Net change in cash = the sum of the cash flows (operating, investing, financing, exchange-rate effect)."""
    total = parse_value(net_change)
    if total is None or len(flows) < 3:
        return None
    return _sum_holds(total, (parse_value(flow) for flow in flows), len(flows) + 1)


def difference_holds(result: str, first: str, second: str, others: list[str]) -> bool | None:
    """``result`` = ``first`` less ``second`` (whichever sign ``second`` is printed with: an expense printed as
    '1,234' or as '(1,234)') plus ``others`` as printed (the rows between: equity income, discontinued operations)."""
    values = [parse_value(text) for text in (result, first, second, *others)]
    if any(value is None for value in values):
        return None
    total, a, b, *rest = (value or Decimal(0) for value in values)
    places, terms = _places(result, first, second, *others), len(values)
    extra, costs = sum(rest, Decimal(0)), sum((abs(v) for v in rest), Decimal(0))
    candidates = (a - abs(b) + extra, a + abs(b) + extra, a - abs(b) - costs)  # printed signs, or all costs
    return any(_close(total, candidate, terms, places) for candidate in candidates)


def _position(row: FinancialRow) -> tuple[int, float]:
    return row.page, row.boxes[-1].top if row.boxes else 0.0


def _above(
    rows: list[FinancialRow], result: FinancialRow, first: str, second: str
) -> tuple[FinancialRow, FinancialRow, list[FinancialRow]] | None:
    """The nearest ``first`` row above ``result`` in its printed column, the ``second`` row between them, and the
    other rows between (None when the column does not print both above it)."""
    if not result.boxes:
        return None
    edge = result.boxes[-1].x1
    column = [
        r for r in rows if r.period == result.period and r.boxes and abs(r.boxes[-1].x1 - edge) <= ALIGNED
        and result.page - 1 <= r.page <= result.page and _position(r) < _position(result)
    ]  # fmt: skip
    column.sort(key=_position)
    starts = [i for i, r in enumerate(column) if r.concept == first]
    if not starts:
        return None
    between = column[starts[-1] + 1 :]
    subtracted = [r for r in between if r.concept == second]
    if len(subtracted) != 1 or len(between) > DIFFERENCE_ROWS or any(r.concept == result.concept for r in between):
        return None
    return column[starts[-1]], subtracted[0], [r for r in between if r is not subtracted[0]]


def _places(*printed: str) -> int:
    return max(decimal_places(p) for p in printed)


def page_identities(document: str, statement: str, tables: list[Table], rows: list[FinancialRow]) -> list[Identity]:
    """The totals of one statement's tables on one page, period by period, its amounts read top to bottom across
    the tables (a parser may split one statement into several); a total that does not add up is marked so."""
    by_cell = {row.boxes[-1]: row for row in rows if row.boxes and row.unit == "currency"}
    columns: dict[str, list[tuple[Box, _Figure, FinancialRow]]] = {}
    for table in tables:
        for table_row in table.rows:
            for cell in table_row.cells:
                if cell.boxes and (row := by_cell.get(cell.boxes[-1])) is not None:
                    closes = table_row.total or row.concept in SECTION_TOTALS  # 'Net cash provided by operating …'
                    figure = _Figure(table_row.label, closes, cell.text)
                    key = f"{row.period} {row.currency} {row.scale}"  # yen and a convenience translation
                    columns.setdefault(key, []).append((cell.boxes[-1], figure, row))
    results: dict[str, list[tuple[str, bool, FinancialRow]]] = {}  # a total's label → its checks, per period
    for column in (c for items in columns.values() for c in _aligned(items)):
        for position, holds in total_checks([figure for _, figure, _ in column]):
            _, _, row = column[position]
            results.setdefault(row.label, []).append((row.period, holds, row))
    found = []
    for label, checks in results.items():
        if not any(holds for _, holds, _ in checks):
            continue  # in no period do the rows above sum to it: a structure not read (subtractions), not checked
        for period, holds, row in checks:
            found.append(Identity(document=document, page=row.page, statement=statement, period=period,
                                  name=f"{label} = the rows above", holds=holds,
                                  detail=f"{row.value_printed} vs the rows above"))  # fmt: skip
            if not holds:
                _fails(row, "does not add up (the rows above sum to it in other periods, not in this one)")
    return found


def _aligned(items: list[tuple[Box, _Figure, FinancialRow]]) -> list[list[tuple[Box, _Figure, FinancialRow]]]:
    """Figures of one period split into printed columns (figures are right-aligned: a column's right edges lie
    within ALIGNED points), each top to bottom: a period printed twice (yen, and a convenience translation in
    dollars) is two columns."""
    columns: list[list[tuple[Box, _Figure, FinancialRow]]] = []
    for item in sorted(items, key=lambda item: item[0].x1):
        if columns and item[0].x1 - columns[-1][-1][0].x1 <= ALIGNED:
            columns[-1].append(item)
        else:
            columns.append([item])
    return [sorted(column, key=lambda item: (item[0].top, item[0].x0)) for column in columns]


def _fails(row: FinancialRow, why: str) -> None:
    if why not in row.missing:
        row.missing.append(why)
    row.verified = False


ASSETS_PAGES = 2  # pages after total assets on which the liabilities and equity may close
CASH_ROWS = 400  # figures of a cash flow statement read back from its net change in cash
_BALANCE = ("total_liabilities_and_equity", "total_liabilities", "total_equity")
_DIFFERENCES = (
    ("gross profit = revenue - cost of revenue", "gross_profit", "revenue", "cost_of_revenue"),
    ("net income = pretax income - income tax", "net_income", "pretax_income", "income_tax"),
)
SECTION_TOTALS = frozenset({"operating_cash_flow", "investing_cash_flow", "financing_cash_flow"})  # a section's sum
_CASH = ("operating_cash_flow", "investing_cash_flow", "financing_cash_flow", "fx_effect_on_cash")


def _last(rows: list[FinancialRow], concept: str, period: str) -> FinancialRow | None:
    return next((r for r in reversed(rows) if r.concept == concept and r.period == period), None)


def _first(rows: list[FinancialRow], concept: str, period: str, pages: range) -> FinancialRow | None:
    return next((r for r in rows if r.concept == concept and r.period == period and r.page in pages), None)


def statement_identities(document: str, rows: list[FinancialRow]) -> list[Identity]:
    """The balance sheet's and the cash flow statement's identities, per period, across the statement's pages. As
    for totals, one fails only where it holds in another period of the same statement."""
    checked: list[tuple[Identity, list[FinancialRow]]] = []
    balance = [r for r in rows if r.statement == "balance" and r.unit == "currency"]
    for assets in (r for r in balance if r.concept == "total_assets"):
        near = range(assets.page, assets.page + ASSETS_PAGES + 1)
        closing, liabilities, equity = (_first(balance, c, assets.period, near) for c in _BALANCE)
        parts = [r for r in (liabilities, equity) if r is not None] if closing is None else []
        holds = balance_holds(assets.value_printed, closing.value_printed if closing else None,
                              [p.value_printed for p in parts])  # fmt: skip
        if holds is not None:
            compared = [r for r in (closing, *parts) if r is not None]
            checked.append((_identity(document, assets, "total assets = liabilities + equity", holds, compared),
                            [assets, *compared]))  # fmt: skip
    cash = [r for r in rows if r.statement == "cash_flow" and r.unit == "currency"]
    for position, change in enumerate(cash):
        if change.concept != "net_change_in_cash":
            continue
        before = [r for r in cash[max(0, position - CASH_ROWS) : position] if r.period == change.period]
        flows = [f for c in _CASH[:3] if (f := _last(before, c, change.period)) is not None]
        if len(flows) == 3:  # and what is printed between the last of them and the net change (fx, held for sale)
            last = max(before.index(f) for f in flows)
            flows += [r for r in before[last + 1 :] if r.value is not None or r.value_printed.strip()]
        holds = cash_holds(change.value_printed, [f.value_printed for f in flows])
        if holds is not None:
            checked.append((_identity(document, change, "net change in cash = the cash flows", holds, flows),
                            [change, *flows]))  # fmt: skip
    income = [r for r in rows if r.statement == "income" and r.unit == "currency"]
    for name, result, first, second in _DIFFERENCES:
        for row in (r for r in income if r.concept == result):
            read = _above(income, row, first, second)
            if read is None:
                continue
            minuend, subtrahend, others = read
            holds = difference_holds(row.value_printed, minuend.value_printed, subtrahend.value_printed,
                                     [r.value_printed for r in others])  # fmt: skip
            if holds is not None:
                compared = [minuend, subtrahend, *others]
                checked.append((_identity(document, row, name, holds, compared), [row, *compared]))
    held = {(i.name, i.page) for i, _ in checked if i.holds}
    found = []
    for identity, involved in checked:
        if not identity.holds and (identity.name, identity.page) not in held:
            continue  # holds in no period: a structure not read, not a failure
        found.append(identity)
        if not identity.holds:
            for row in involved:
                _fails(row, f"does not add up ({identity.name} holds in other periods, not in this one)")
    return found


def _identity(document: str, row: FinancialRow, name: str, holds: bool, compared: list[FinancialRow]) -> Identity:
    detail = f"{row.value_printed} vs " + " + ".join(r.value_printed for r in compared)
    return Identity(document=document, page=row.page, statement=row.statement, period=row.period, name=name,
                    holds=holds, detail=detail)  # fmt: skip


_BARE_TOTAL = re.compile(r"(?:^|›\s*)(?:total|合计|总计)?\s*$", re.I)  # '', 'Total', 'Assets › ' (a label-less row)


def name_bare_totals(rows: list[FinancialRow]) -> None:
    """A balance sheet's totals printed without a label ('', or 'Total' alone, as banks print them) take the concept
    of the section each closes, by position and by the balance itself: of two such rows with the same figure for one
    period, the first closes the assets, the second the liabilities and equity; a single one that equals the labelled
    total liabilities and equity closes the assets. Nothing is named where the statement labels its totals."""
    balance = [r for r in rows if r.statement == "balance" and r.unit == "currency"]
    for period in dict.fromkeys(r.period for r in balance):
        column = sorted(
            (r for r in balance if r.period == period), key=lambda r: (r.page, r.boxes[-1].top if r.boxes else 0)
        )
        if any(r.concept == "total_assets" for r in column):
            continue
        bare = [r for r in column if r.concept is None and _BARE_TOTAL.search(r.label) and r.value is not None]
        closing = next((r for r in column if r.concept == "total_liabilities_and_equity"), None)
        pairs = [(a, b) for i, a in enumerate(bare) for b in bare[i + 1 :] if a.value == b.value]
        if pairs:
            assets, other = pairs[0]
            assets.concept = "total_assets"
            other.concept = other.concept or "total_liabilities_and_equity"
        elif closing is not None and (same := [r for r in bare if r.value == closing.value and r is not closing]):
            same[0].concept = "total_assets"
