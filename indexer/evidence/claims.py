"""Checking a claim, not only a string: a figure in a given table row, under a given period's column.

``locate_quote`` proves a figure is printed on a page; "revenue was 46,298 in 2021" also needs 46,298 to sit in the
revenue row under the 2021 column. With a ``label`` and/or ``period``, the page's tables are searched for cells whose
value equals the quoted figure (as printed, or in the unit the page declares: "(in millions)", 单位：万元), in a row
whose label contains ``label`` and under a column whose header contains ``period``. Verified only there. A figure in
the claimed column but a row the label does not name is "label not matched", with the row it is in (a row printed
under another wording, or another figure that happens to be equal); elsewhere the note says where the figure really
is (which row, which column).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from indexer.core.errors import QueryError, shown
from indexer.core.models import Box, Cell, Page, Table, TableRow
from indexer.evidence.columns import cell_header, row_label, table_headers, with_heading
from indexer.evidence.context import row_context
from indexer.evidence.periods import ReportPeriod, column_period
from indexer.evidence.quotes import MAX_CANDIDATES, Located, figures
from indexer.evidence.units import page_multiplier

_SHOWN_PLACES = 3
TAIL_WORDS = 3  # words a row's label needs for a claimed label that ends with it to name the row
LABEL_NOT_MATCHED = "label not matched"  # how a note starts when the figure is in the claimed column, another row
UNKNOWN_REPORT = ReportPeriod(None, None)
HEADER_REACH = 60.0  # points above a table where its column headers may be printed
HEADER_STACK = 24.0  # points between the lines of one stacked column header


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w%]+", " ", text.lower()).split())


def in_declared_unit(value: Decimal, scale: Decimal) -> set[Decimal]:
    """``value`` in the unit the page declares, when it divides exactly (1,175,000,000 on an "(in millions)" page:
    1,175). Integer arithmetic, so a figure of any length is compared exactly (Decimal's ``%`` fails past 28
    digits)."""
    if scale == 1 or value != value.to_integral_value():
        return set()
    whole, rest = divmod(int(value), int(scale))
    return {Decimal(whole)} if rest == 0 else set()


StatementColumns = dict[int, tuple[str, ...]]  # a page's table (by position) → the columns its statement carries


@dataclass(frozen=True)
class _Place:
    table: Table
    row: TableRow
    cell: Cell
    header: str  # the period header the cell stands under, read as get_financials reads it

    @property
    def label(self) -> str:
        return f"{self.row.group} › {self.row.label}" if self.row.group else self.row.label

    @property
    def where(self) -> str:
        return f"row {shown(self.label)} under {shown(self.header or 'an unlabelled column')}"


def _headers(page: Page, report: ReportPeriod, previous: Page | None) -> list[tuple[str, ...]]:
    """Each table's column headers; a table under no period header (a statement continued from the page before)
    takes those of the previous page's last table of its width, as get_financials does."""
    carried: dict[int, tuple[str, ...]] = {}
    if previous is not None:
        for table in previous.tables:
            carried[len(table.columns)] = table_headers(previous, table, report)
    out = []
    for table in page.tables:
        columns = table_headers(page, table, report)
        if not any(column_period(header, report) for header in columns) and len(columns) in carried:
            columns = carried[len(columns)]
        carried[len(columns)] = columns
        out.append(columns)
    return out


def _places(
    page: Page, values: set[Decimal], report: ReportPeriod, previous: Page | None, known: StatementColumns
) -> list[_Place]:
    """Every cell of the page's tables whose value is one of ``values``, with the header it stands under (the
    statement's columns get_financials read, where it read this table)."""
    found = []
    headers = _headers(page, report, previous)
    for index, table in enumerate(page.tables):
        columns = known.get(index) or headers[index]
        for printed in table.rows:
            row = with_heading(page, printed)  # the group get_financials read it under
            for cell in row.cells:
                if any(abs(number) in values for number in figures(cell.text)):
                    found.append(_Place(table, row, cell, cell_header(cell, columns, report) or cell.header))
    return found


def _names(claimed: str, printed: str) -> bool:
    """Whether a claimed label names a row: it is part of the row's label, or the row's label, of a few words at
    least, ends it (a label printed over lines whose first lines the table did not keep with the row)."""
    return claimed in printed or (len(printed.split()) >= TAIL_WORDS and claimed.endswith(" " + printed))


def _fitting(places: list[_Place], signed_value: Decimal, row_words: str, column_words: str) -> list[_Place]:
    """The places whose row holds ``row_words`` and whose column header ``column_words`` (either may be empty):
    those whose row is named exactly, if any, and of those the ones printed with the claimed sign, if any."""

    def fits(place: _Place) -> bool:
        labels = (_words(place.label), _words(row_label(place.row, place.table)))
        return (not row_words or any(_names(row_words, words) for words in labels)) and (
            not column_words or column_words in _words(place.header)
        )

    exact = [place for place in places if fits(place)]
    named = [p for p in exact if row_words in {_words(p.label), _words(row_label(p.row, p.table)), _words(p.row.label)}]
    exact = named or exact  # the row the label names exactly, over rows that only contain it
    signed = [p for p in exact if any(number == signed_value for number in figures(p.cell.text))]
    return signed or exact  # '(68,153)' is the negative one of a label printed twice with either sign


def check_claim(
    page: Page,
    quote: str,
    label: str | None,
    period: str | None,
    report: ReportPeriod = UNKNOWN_REPORT,
    previous: Page | None = None,
    known: StatementColumns | None = None,
) -> Located:
    """Whether the figure in ``quote`` is printed in a row matching ``label`` under a column matching ``period``
    (the column's period header read as get_financials reads it: ``known`` holds the columns of the page's statement
    tables as get_financials carried them over the statement's pages; elsewhere ``previous``, the page before, gives
    the headers a continued table keeps)."""
    wanted = figures(quote)
    if len(wanted) != 1:
        raise QueryError(
            f"a claim checks one figure; {shown(quote)} has {len(wanted)}: quote just the figure, e.g. '46,298'"
        )
    value = abs(wanted[0])
    values = {value} | in_declared_unit(value, page_multiplier(page.text))
    places = _places(page, values, report, previous, known or {})
    exact = _fitting(places, wanted[0], _words(label or ""), _words(period or ""))
    if len({(_words(p.row.label), _words(p.header), p.cell.text) for p in exact}) == 1:
        # one place, or the same row printed twice (a line repeated under revenues and expenses): the claim holds
        place = exact[0]
        boxes = [*place.cell.boxes, *_label_boxes(place.row), *_header_boxes(page, place)]
        return Located(
            verified=True, match="table_cell", matched_text=place.cell.text, boxes=boxes, page=page.number,
            note=f"{place.cell.text} is in {place.where}", context=row_context(place.row),
        )  # fmt: skip
    claimed = " and ".join(
        p for p in (f"row {shown(label)}" if label else "", f"column {shown(period)}" if period else "") if p
    )
    if len(exact) > 1:
        boxes = [b for place in exact[:MAX_CANDIDATES] for b in place.cell.boxes]
        where = "; ".join(place.where for place in exact[:_SHOWN_PLACES])
        note = (
            f"ambiguous: {quote.strip()} fits {claimed} {len(exact)} times ({where}); name the row or period more fully"
        )
        return Located(verified=False, match="table_cell", matched_text=quote, boxes=boxes, page=page.number, note=note)
    in_column = _fitting(places, wanted[0], "", _words(period)) if label and period else []
    if label and period and in_column:
        # printed in the claimed column, in a row the label does not name: the row it is in, for the agent to judge
        where = "; ".join(place.where for place in in_column[:_SHOWN_PLACES])
        boxes = [b for place in in_column[:MAX_CANDIDATES] for b in place.cell.boxes]
        note = f"{LABEL_NOT_MATCHED}: {quote.strip()} is under {shown(period)} on page {page.number} in {where}, " + (
            f"not in a row named {shown(label)}; cite that row's label, or check the page with get_page"
        )
        return Located(verified=False, match="table_cell", matched_text=in_column[0].cell.text, boxes=boxes,
                       page=page.number, note=note, context=row_context(in_column[0].row))  # fmt: skip
    if places:
        where = "; ".join(place.where for place in places[:_SHOWN_PLACES])
        boxes = [b for place in places[:MAX_CANDIDATES] for b in place.cell.boxes]
        note = f"{quote.strip()} is not in {claimed} on page {page.number}: it is in {where}"
        return Located(verified=False, match="table_cell", matched_text=places[0].cell.text, boxes=boxes,
                       page=page.number, note=note, context=row_context(places[0].row))  # fmt: skip
    tables = "no table" if not page.tables else f"none of the {len(page.tables)} table(s)"
    note = (
        f"{quote.strip()} is in {tables} on page {page.number}; check the page with get_page, or quote it without "
        "label and period"
    )
    return Located(verified=False, match="none", matched_text="", boxes=[], page=page.number, note=note)


def _header_boxes(page: Page, place: _Place) -> list[Box]:
    """The boxes of the column header printed over the cell: the nearest spans above it, over its column, whose text
    is part of the cell's header, with the header lines stacked just above them ('Three Months Ended' over
    'July 29, 2023'; a second header row inside the table, such as 2019年末, before the first one's 2019年)."""
    header = _compact(place.header)
    if not header or not place.cell.boxes:
        return []
    top, x0, x1 = place.cell.boxes[0].top, place.cell.boxes[0].x0, place.cell.boxes[0].x1
    found = [
        span.box for line in page.lines if not line.furniture and line.box.bottom <= top + 1
        and line.box.top >= place.table.box.top - HEADER_REACH
        for span in line.spans
        if span.box.x0 <= x1 + 1 and x0 <= span.box.x1 + 1 and _compact(span.text) and _compact(span.text) in header
    ]  # fmt: skip
    nearest = max((box.top for box in found), default=0.0)
    return [box for box in found if box.top >= nearest - HEADER_STACK]


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _label_boxes(row: TableRow) -> list[Box]:
    """The label's boxes: the row's boxes that are not its cells'."""
    cells = {box for cell in row.cells for box in cell.boxes}
    return [box for box in row.boxes if box not in cells]
