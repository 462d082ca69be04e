"""The unit of one statement table, and where each part of it was read: its scale and currency from the lines above
it and its header rows (a title, "(In millions)", a bare "$" over each column), over the statement's so far; else the
scale the page states elsewhere, else figures printed in full; a currency sign in its cells. Nothing is read from
silence: what no line states stays unstated (indexer/evidence/units.py reads each line)."""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from indexer.core.models import Box, Cell, Line, Page, Table
from indexer.evidence.columns import HEADER_ROWS, header_spans
from indexer.evidence.units import DOLLAR, Source, Unit, currency, lines_unit, signs_only, source

_TO_THE_CENT = re.compile(r"\d,\d{3}\.\d\d\)?$")  # 1,175,301,034.32: a figure printed in full, to the cent
_ROUNDED = re.compile(r"\d,\d{3},000\)?$")  # 5,091,000: a figure in units, rounded to the thousand
IN_FULL = 3  # cells printed in full that show a table's figures are in units …
FULL_SHARE = 0.8  # … when they are this share of its amounts of FULL_DIGITS digits or more
FULL_DIGITS = 4
UNIT_LINES = 8  # lines above a table read for its unit
HEADER_BAND = 30.0  # points below a table's top where header rows (and a unit note beside them) may stand
COLUMN_LABEL_CHARS = 16  # a currency printed over one column ('RMB', 'US$Note 2 (f)'), not a sentence
SIGNED_ROWS = 8  # a table's first rows, whose cells may print its currency sign ($ 9,583)


def lines_above(page: Page, table: Table) -> list[Line]:
    """The lines printed above the table and beside its header rows ('单位：元' often stands right of them)."""
    return [line for line in page.lines if line.box.bottom <= table.box.top + HEADER_BAND][-UNIT_LINES:]


def _header_lines(page: Page, table: Table) -> list[tuple[str, Box | None]]:
    """The lines above the table, its first rows (its header rows: 'Note  $  $') and the headers the parser gave its
    cells ('$' over each column), as text and box."""
    lines = [(line.text, line.box) for line in lines_above(page, table)]
    rows = [(" ".join([row.label, *(c.text for c in row.cells)]), next(iter(row.boxes), None))
            for row in table.rows[:HEADER_ROWS]]  # fmt: skip
    headers = [
        (" ".join(c.header for c in row.cells), _headers_box(page, row.cells)) for row in table.rows[:HEADER_ROWS]
    ]
    return lines + rows + headers


def _headers_box(page: Page, cells: list[Cell]) -> Box | None:
    """Where the headers the parser gave ``cells`` are printed: around every span of them above the figures."""
    spans = [span for cell in cells for span in header_spans(page, cell.header, cell)]
    if not spans:
        return None
    return functools.reduce(Box.union, (span.box for span in spans))


def _in_full(page: Page, table: Table) -> Source | None:
    """A cell showing the table's figures printed in full (so in units), when most of its amounts are: to the cent
    (1,175,301,034.32), or each rounded to a thousand and printed with its zeros ($5,091,000)."""
    amounts = [c for row in table.rows for c in row.cells if len(re.sub(r"\D", "", c.text)) >= FULL_DIGITS]
    for pattern, why in ((_TO_THE_CENT, "to the cent"), (_ROUNDED, "in full, to the thousand")):
        cells = [cell for cell in amounts if pattern.search(cell.text.strip())]
        if len(cells) >= IN_FULL and len(cells) >= FULL_SHARE * len(amounts):
            return source(f"{cells[0].text} (figures printed {why})", page.number, next(iter(cells[0].boxes), None))
    return None


def table_unit(page: Page, table: Table, carried: Unit | None) -> Unit:
    """The unit a table declares above it (its title, its column-header row), over the statement's so far (a scale
    stated once on the statement's first page); else the scale the page states elsewhere (a footnote), else figures
    printed to the cent (units). A currency the lines do not name is taken from a sign in the cells (a bare $)."""
    unit = lines_unit(lines_above(page, table), page.number, carried)
    if not unit.stated:
        stated = lines_unit(page.lines, page.number)
        if stated.stated:
            unit = replace(unit, power=stated.power, name=stated.name, share_power=stated.share_power,
                           scale_source=stated.scale_source)  # fmt: skip
        elif in_units := signs_only(_header_lines(page, table), page.number) or _in_full(page, table):
            unit = replace(unit, power=0, name="", scale_source=in_units)
    if unit.currency in (None, DOLLAR):
        signs = (
            (cell, code) for row in table.rows[:SIGNED_ROWS] for cell in row.cells if (code := currency(cell.text))
        )
        signed = next(signs, None)
        if signed is not None and (unit.currency is None or signed[1] != DOLLAR):
            cell, code = signed
            unit = replace(
                unit, currency=code, currency_source=source(cell.text, page.number, next(iter(cell.boxes), None))
            )
    return unit


def column_currency(page: Page, table: Table, cell: Cell) -> tuple[str, str] | None:
    """The currency printed over this cell's column in the lines above its table, as a code and as printed ('US$'
    over a convenience translation beside 'RMB' columns), from the nearest such line; None where none is."""
    if not cell.boxes:
        return None
    x0, x1 = cell.boxes[0].x0, cell.boxes[-1].x1
    for line in reversed(lines_above(page, table)):
        for span in line.spans:
            short = len(span.text.strip()) <= COLUMN_LABEL_CHARS  # a label over a column, not a sentence across
            code = currency(span.text) if short and span.box.x0 <= x1 and x0 <= span.box.x1 else None
            if code is not None and code != DOLLAR:  # a bare $ names no currency of its own (the statement settles it)
                return code, span.text.strip()
    return None
