"""One reader of a statement table's column headers, for every tool: which period each column (and each cell) is.

A table's own headers are what the table parser saw above its columns. Where one names no period, the header may
be printed above the table, stacked over several lines ("December 31," over "2022"; "Years ended" over "September
25," over "2021"), perhaps above another table of the page; then it is the nearest period-like spans above the
column's figures. A cell may have a header of its own (a table whose lower rows have theirs: 2019年 above, 2019年末
below), which wins where it names a period. Columns that are not periods (% change, 增减, Note, 附注) never become
periods, even where a period is printed above them (:func:`~indexer.evidence.periods.not_a_period`).
``get_financials``, ``locate_quote(label, period)`` and the table rows shown with a search hit all read columns here.
"""

from __future__ import annotations

import functools
import re

from indexer.core.models import Cell, Page, Span, Table, TableRow
from indexer.core.tokenize import normalize_text
from indexer.data.vocabulary import vocabulary
from indexer.evidence.concepts import normalise_label
from indexer.evidence.periods import ReportPeriod, column_period, not_a_period

HEADER_CHARS = 40  # a column header span is at most this long
HEADER_STACK = 30.0  # points between the lines of one stacked column header
HEADER_SLACK = 12.0  # points a header may stand beside its column's figures
HEADER_ROWS = 3  # a table's first rows that may be column headers read as figures
_YEAR_CELL = re.compile(r"^((?:19|20)\d\d)(?:\d|[*†‡¹²³]|\(\d\))?$")
_UNIT_CELL = re.compile(r"^(?:[$€£¥]|US\$|HK\$|A\$|C\$|RMB|USD|EUR|GBP|HKD|CNY|JPY)?\s*(?:['’]000|m|bn)?$", re.I)
# A label that names only a point of the period: the parent says of what ('Cash and cash equivalents › End of year').
_POINT_ONLY = re.compile(
    r"^(?:balance )?(?:at )?(?:the )?(?:beginning|end|start|close) of (?:the )?(?:fiscal |financial )?"
    r"(?:year|period|quarter)$"
)
_BASIC_OR_DILUTED = {"basic", "diluted", "basic and diluted", "基本", "稀释"}
_SHARE_WORD = re.compile(r"\bshares?\b|股数|股本", re.I)
# What a unit statement excepts ("(In millions, except number of shares which are reflected in thousands and per
# share amounts)"): never a parent's or a label's unit.
EXCEPT_PER_SHARE = re.compile(r"\bexcept\b[^)›]{0,120}", re.I)
PER_SHARE = re.compile(r"per (?:common |ordinary )?share|每股|\beps\b|元\s*/\s*股", re.I)
_AMBIGUOUS = {"total", "basic", "diluted", "net", "other", "合计", "总计", "小计", "基本", "稀释", "其他", "净额"}
_HEADER_LIKE = re.compile(
    r"\b(?:three|six|nine|twelve|thirteen|\d{1,2})\s+(?:months|weeks)\b|\byears?\s+ended\b|"
    r"(?<!\d)(?:19|20)\d\d(?!\d)|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|本期|上期|期末|期初|本年|上年",
    re.I,
)


def _column_ranges(table: Table) -> dict[int, tuple[float, float]]:
    ranges: dict[int, tuple[float, float]] = {}
    for row in table.rows:
        for cell in row.cells:
            for box in cell.boxes[:1]:
                x0, x1 = ranges.get(cell.column, (box.x0, box.x1))
                ranges[cell.column] = (min(x0, box.x0), max(x1, box.x1))
    return ranges


def _centre(span: Span) -> float:
    return (span.box.x0 + span.box.x1) / 2


_PERIOD_TEXT = re.compile(r"(?:[A-Z][a-z]{2,8}\.?\s+\d{1,2},?\s+|\d{1,2}\s+[A-Z][a-z]{2,8}\s+)?(?:19|20)\d\d(?!\d)")
SPLIT_CHARS = 200  # a span longer than this is not split into headers


def _period_parts(span: Span) -> list[Span]:
    """A span that prints several column headers run together ("December 31, 2022 December 31, 2021"), as one span
    per header, each with its share of the span's width; any other span as it is."""
    text = span.text.strip()
    if len(text) > SPLIT_CHARS:
        return [span]
    found = list(_PERIOD_TEXT.finditer(text))
    if len(found) < 2 or _PERIOD_TEXT.sub("", text).strip(" ,"):
        return [span]
    width = (span.box.x1 - span.box.x0) / max(len(text), 1)
    return [
        Span(text=m.group(0), box=span.box.model_copy(
            update={"x0": span.box.x0 + m.start() * width, "x1": span.box.x0 + m.end() * width}))
        for m in found
    ]  # fmt: skip


def stacked_headers(page: Page, table: Table, width: int) -> tuple[str, ...]:
    """Column headers printed above the table, perhaps over several lines and above other tables of the page: per
    column, the nearest period-like spans above its figures, top to bottom; a column whose nearest header says it is
    no period ('Note', '% change') is that, whatever title spans the page above it."""
    ranges = _column_ranges(table)
    # above its first row: a table whose header lines the parser took into its title starts above them
    first = min((box.top for box in table.rows[0].boxes), default=table.box.top) if table.rows else table.box.top
    spans = [
        part for line in page.lines
        if not line.furniture and (line.box.bottom <= table.box.top + 1 or (line.box.top + line.box.bottom) / 2 < first)
        for span in line.spans for part in _period_parts(span)
        if len(part.text) <= HEADER_CHARS and (_HEADER_LIKE.search(part.text) or not_a_period(part.text))
    ]  # fmt: skip
    headers = []
    for column in range(width):
        x0, x1 = ranges.get(column, (0.0, 0.0))
        centre = (x0 + x1) / 2
        above = [s for s in spans if x1 > x0 and s.box.x0 - HEADER_SLACK <= x1 and x0 <= s.box.x1 + HEADER_SLACK]
        by_line: dict[float, Span] = {}  # on each printed line, the header nearest the column's centre
        for span in above:
            top = round(span.box.top)
            best = by_line.get(top)
            if best is None or abs(_centre(span) - centre) < abs(_centre(best) - centre):
                by_line[top] = span
        nearest = max(by_line, default=0.0)
        if by_line and not_a_period(by_line[nearest].text):
            headers.append(by_line[nearest].text.strip())  # 'Note' right over the column: no period, whatever is above
            continue
        stacked = [by_line[top] for top in sorted(by_line) if top >= nearest - HEADER_STACK]
        headers.append(" ".join(s.text.strip() for s in stacked if not not_a_period(s.text)))
    return tuple(headers)


@functools.cache
def _entity_headers() -> tuple[re.Pattern[str], re.Pattern[str]]:
    titles = vocabulary().statement_titles
    return re.compile(titles.group_column, re.I), re.compile(titles.parent_column, re.I)


ENTITY_SIDE_COLUMNS = 2  # columns each side holds at least (a year and its comparative)


def _entity(text: str, group: re.Pattern[str], parent: re.Pattern[str]) -> str:
    header = " ".join(text.split())
    return "group" if group.match(header) else "parent" if parent.match(header) else ""


def parent_columns(page: Page, table: Table) -> frozenset[int]:
    """The columns in which a statement prints the parent company's own figures beside the group's ("Consolidated"
    over two columns, "Parent" over two more): under the nearest line above the table that heads columns as the
    group's and others as the parent's, those whose figures stand nearest a parent header. None where no such line
    heads both sides of the table."""
    group, parent = _entity_headers()
    first = min((box.top for box in table.rows[0].boxes), default=table.box.top) if table.rows else table.box.top
    above = sorted((line for line in page.lines if not line.furniture and line.box.bottom <= first + 1),
                   key=lambda line: -line.box.top)  # fmt: skip
    for line in above:
        heads = [(_centre(span), kind) for span in line.spans if (kind := _entity(span.text, group, parent))]
        if {kind for _, kind in heads} != {"group", "parent"}:
            continue
        sides: dict[str, set[int]] = {"group": set(), "parent": set()}
        for column, (x0, x1) in _column_ranges(table).items():
            centre = (x0 + x1) / 2
            sides[min(heads, key=lambda head: abs(head[0] - centre))[1]].add(column)
        if all(len(columns) >= ENTITY_SIDE_COLUMNS for columns in sides.values()):
            return frozenset(sides["parent"])
        return frozenset()
    return frozenset()


def header_spans(page: Page, header: str, cell: Cell) -> list[Span]:
    """The spans printed above ``cell``'s figure, over its column, that are part of its header ``header`` (a header
    stacked over lines: 'Year ended', '30 September', '2022', '£'); none for a header carried from another page."""
    wanted = _compact(header)
    box = cell.boxes[0] if cell.boxes else None
    if box is None or not wanted:
        return []
    return [
        span for line in page.lines if not line.furniture and line.box.bottom <= box.top + 1
        for span in line.spans
        if span.box.x0 - HEADER_SLACK <= box.x1 and box.x0 <= span.box.x1 + HEADER_SLACK
        and (len(text := _compact(span.text)) > 1 or text in _SIGNS) and text in wanted
    ]  # fmt: skip


_SIGNS = frozenset("$€£¥")  # a header's one-character spans that are part of it


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", normalize_text(text))


def header_rows(table: Table) -> int:
    """How many of the table's first rows are column headers the parser took for figures: rows whose every cell is
    a year (perhaps with a footnote mark: '20211' is 2021 with note 1) or a unit over the column ('$', "$'000",
    'RMB'), at least one of them with years ('May 31,' over a row '2021 | 2020')."""
    count, years = 0, False
    for row in table.rows[:HEADER_ROWS]:
        texts = [cell.text.strip() for cell in row.cells]
        if not texts or not all(_YEAR_CELL.match(t) or _UNIT_CELL.match(t) for t in texts):
            break
        years = years or any(_YEAR_CELL.match(t) for t in texts)
        count += 1
    return count if years else 0


_TRAILING_YEARS = re.compile(r"(?:\s(?:19|20)\d\d)+$")
_YEARS = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def is_year_row(row: TableRow) -> bool:
    """A row of years alone under a label such as 'Notes' ('Notes 2021 2022 2022'): a header row printed inside the
    table (a continuation page repeats it), never figures."""
    texts = [cell.text.strip() for cell in row.cells]
    return len(texts) >= 2 and all(_YEAR_CELL.match(text) for text in texts)


def _header_row_text(table: Table, rows: int, column: int) -> str:
    """The years a column's header rows print over it. A header row whose label swallowed the first years ("Years
    ended December 31, 2022" read as the label of a row '2021 | 2020') gives them to its columns without a cell, in
    order."""
    parts = []
    for row in table.rows[:rows]:
        for cell in row.cells:
            if cell.column == column:
                year = _YEAR_CELL.match(cell.text.strip())
                parts.append(year.group(1) if year else cell.text.strip())
        have = {cell.column for cell in row.cells}
        without = [c for c in range(min(have, default=0)) if c not in have]
        trailing = _TRAILING_YEARS.search(row.label)
        if column in without and trailing and len(trailing.group(0).split()) == len(without):
            parts.append(trailing.group(0).split()[without.index(column)])
    return " ".join(parts)


def _with_row_years(header: str, years: str) -> str:
    """A header over a header row's year: joined ('May 31,' over '2021'); a title naming several years above it
    ('For the Years Ended May 31, 2021, 2020 and 2019') says nothing of one column: the year alone."""
    if len(set(_YEARS.findall(header))) > 1 and years:
        return years
    return f"{header} {years}".strip()


def table_headers(page: Page, table: Table, report: ReportPeriod) -> tuple[str, ...]:
    """The table's column headers; a column whose header names no period takes the years of the table's own header
    rows under it ('May 31,' over '2021'), else the header stacked above its figures, where that one does."""
    columns = tuple(table.columns)
    if all(column_period(header, report) for header in columns):
        return columns
    if rows := header_rows(table):
        joined = tuple(
            header if column_period(header, report) or not_a_period(header)
            else _with_row_years(header, _header_row_text(table, rows, i))
            for i, header in enumerate(columns)
        )  # fmt: skip
        if any(column_period(header, report) for header in joined):
            return joined
    stacked = stacked_headers(page, table, len(columns))
    return tuple(
        header if column_period(header, report) or not_a_period(header) or not column_period(above, report)
        else above
        for header, above in zip(columns, stacked, strict=True)
    )  # fmt: skip


def cell_header(cell: Cell, columns: tuple[str, ...], report: ReportPeriod) -> str:
    """The header a cell's figure stands under: its own where that names a period, else its column's."""
    column = columns[cell.column] if cell.column < len(columns) else ""
    if not_a_period(column) or not_a_period(cell.header):
        return column if not_a_period(column) else cell.header  # a change column stays one
    return cell.header if column_period(cell.header, report) else column


def basic_or_diluted(label: str) -> bool:
    """A label an EPS and a share count both print: 'Basic', 'Diluted', 'Basic and diluted'."""
    return normalise_label(label) in _BASIC_OR_DILUTED


def _names_itself(label: str) -> bool:
    words = normalise_label(label)
    return words not in _AMBIGUOUS and len(words) > 2 and not _POINT_ONLY.match(words)


def parent_of(row: TableRow, table: Table) -> str:
    """The heading a row sits under: its group's line, else the last line of its table's title."""
    return row.group or (table.title or "").split(" — ")[-1]


def per_share_by_parent(row: TableRow, table: Table) -> bool:
    """Whether a row that names itself takes its unit from its parent: a label printed without 'per share' under a
    parent that says it ('Earnings per common share — basic' over 'Net income attributable to … shareholders', a
    table titled 'Earnings per share (cents per share)' over 'Basic for loss from continuing operations')."""
    parent = EXCEPT_PER_SHARE.sub(" ", parent_of(row, table))  # "(In thousands, except per share data)" is no parent
    return (
        bool(parent) and _names_itself(row.label)
        and bool(PER_SHARE.search(parent)) and not PER_SHARE.search(row.label)
    )  # fmt: skip


# A parent that counts shares ('Weighted average number of shares (in thousands) used in computing:' over 'Basic
# earnings per share'): its rows are share counts, whatever their labels name.
_SHARE_COUNT = re.compile(
    r"\bnumber\s+of\s+(?:ordinary\s+|common\s+)?shares\b|\bweighted[-\s]average\b.{0,40}?\bshares\b|股数", re.I
)


def shares_by_parent(row: TableRow, table: Table) -> bool:
    """Whether a row sits under a parent that counts shares, so its figures are share counts even where its label
    names the earnings per share they are used in computing."""
    parent = EXCEPT_PER_SHARE.sub(" ", parent_of(row, table))
    return bool(_SHARE_COUNT.search(parent)) and not PER_SHARE.search(parent)


def unit_unnamed(row: TableRow, label: str) -> bool:
    """A row labelled only 'Basic' or 'Diluted' whose parent says neither per share nor shares: an EPS and a share
    count print the same label, and nothing on the page says which this is."""
    return normalise_label(row.label) in _BASIC_OR_DILUTED and not (
        PER_SHARE.search(label) or _SHARE_WORD.search(label)
    )


_FIGURE = re.compile(r"\d[\d,.]*")
HEADING_LINES = 4  # lines above an ambiguous row searched for the label-only line it sits under


def with_heading(page: Page, row: TableRow) -> TableRow:
    """A row labelled only 'Basic' or 'Diluted' that the table gives no group: the label-only line printed above it
    and its siblings ("Earnings per share:" over "Basic $3.15" and "Diluted $3.07") as its group."""
    if row.group or not row.boxes or not basic_or_diluted(row.label):
        return row
    top = row.boxes[0].top
    above = [line for line in page.lines if not line.furniture and line.box.bottom <= top + 1]
    above.sort(key=lambda line: line.box.top)
    for line in reversed(above[-HEADING_LINES:]):
        text = " ".join(line.text.split())
        if _FIGURE.search(text):
            if basic_or_diluted(_FIGURE.split(text)[0].strip(" $€£¥()")):
                continue  # a sibling: "Basic $3.15" above "Diluted $3.07"
            return row
        return row.model_copy(update={"group": text}) if text else row
    return row


def row_label(row: TableRow, table: Table) -> str:
    """The label as printed, with the parent joined where the label alone is ambiguous ('Diluted', 'Total', 'End of
    year' under 'Cash and cash equivalents') or where the parent gives the row its unit and the label does not (a
    label printed once among the amounts and again under 'Earnings per share — basic')."""
    if _names_itself(row.label) and not per_share_by_parent(row, table) and not shares_by_parent(row, table):
        return row.label
    parent = parent_of(row, table)
    return f"{parent.rstrip(':： ')} › {row.label}" if parent else row.label
