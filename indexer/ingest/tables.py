"""Tables on a page → rows of labelled values under their column headers, with boxes (pure geometry).

A parser's layout blocks (LiteParse ``extract_blocks``) say where a table is and which printed lines make one row
(a wrapped label, a value centred in a tall cell). The cells come from the page's own spans, whose boxes are
exact: a row the parser merged ("Alaska Arizona") is split again by its printed lines, columns are the clusters
of the value spans' x-ranges, and a header is assigned to the columns it stands over (a "Three Months Ended"
above two date columns belongs to both). Runs of value lines the parser did not mark are tables too.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from decimal import Decimal

from indexer.core.figures import DASH, parse_value
from indexer.core.geometry import TABLE_LINE_PT
from indexer.core.models import Box, Cell, Line, Page, Span, Table, TableRegion, TableRow
from indexer.core.text import CJK_RANGE, FULLWIDTH_RANGE
from indexer.core.tokenize import normalize_text
from indexer.ingest.table_lines import LineSplit, split_line
from indexer.ingest.table_rows import Region, regions_of, rows_of
from indexer.ingest.table_sides import side_by_side

logger = logging.getLogger(__name__)

_TOTAL = re.compile(r"^\s*(?:total|合计|总计|小计)", re.I)
# A unit or currency note ("单位：元", "币种：人民币", "(in millions)") printed above a table is not a column header.
_UNIT_NOTE = re.compile(r"^\s*(?:单位|币种)\s*[:：]|^\(?\$?\s*in (?:millions|thousands|billions)\b", re.I)
# Header lines looked at above a table's first row, and how far above them a title may be.
HEADER_LINES = 4
TITLE_REACH = 40.0
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# One column's period in a header: "December 31, 2022", "31 March 2022", "2022" (a footnote mark may follow).
_HEADER_PERIOD = re.compile(
    rf"(?:{_MONTHS}\s+\d{{1,2}},?\s+|\d{{1,2}}\s+{_MONTHS},?\s+)?(?:19|20)\d\d(?:\s*\(\w\))?", re.I
)
# How far left of its column's figures a header may start ('RMB' centred over a narrower column of figures); a title
# or a group label that runs from the label column into the figures starts much further left.
HEADER_OVERHANG_PT = 12.0
# Two value spans share a column when they overlap by this share of the narrower one.
COLUMN_OVERLAP = 0.3


def _union(boxes: list[Box]) -> Box:
    box = boxes[0]
    for other in boxes[1:]:
        box = box.union(other)
    return box


def _line_boxes(spans: list[Span]) -> list[Box]:
    """One box per printed line of a group of spans."""
    by_line: dict[float, list[Box]] = {}
    for span in spans:
        key = next((top for top in by_line if abs(top - span.box.top) < TABLE_LINE_PT), span.box.top)
        by_line.setdefault(key, []).append(span.box)
    return [_union(boxes) for _, boxes in sorted(by_line.items())]


def _columns(splits: list[LineSplit]) -> list[tuple[float, float]]:
    """x-ranges of the value columns: value spans clustered where they overlap (right-aligned figures do); a
    cluster of nil dashes alone (printed a little right of the figures) joins the nearest column."""
    spans = sorted(
        ((_union([s.box for s in group]).x0, group[-1].box.x1, text) for s in splits for text, group in s.values)
    )
    clusters: list[list[float]] = []  # x0, x1, figures in it
    for x0, x1, text in spans:
        figure = 0.0 if DASH.match(normalize_text(text).strip()) else 1.0
        if clusters:
            c0, c1, count = clusters[-1]
            narrower = max(min(x1 - x0, c1 - c0), 0.5)
            if min(x1, c1) - max(x0, c0) >= COLUMN_OVERLAP * narrower:
                clusters[-1] = [min(c0, x0), max(c1, x1), count + figure]
                continue
        clusters.append([x0, x1, figure])
    figures = [c for c in clusters if c[2] > 0]
    if not figures:
        return [(c[0], c[1]) for c in clusters]
    for dashes in (c for c in clusters if c[2] == 0):
        nearest = min(figures, key=lambda c: min(abs(dashes[0] - c[1]), abs(c[0] - dashes[1])))
        nearest[0], nearest[1] = min(nearest[0], dashes[0]), max(nearest[1], dashes[1])
    return [(c[0], c[1]) for c in figures]


def _column_of(x0: float, x1: float, columns: list[tuple[float, float]]) -> int:
    overlaps = [min(x1, c1) - max(x0, c0) for c0, c1 in columns]
    best = max(range(len(columns)), key=lambda i: overlaps[i])
    if overlaps[best] > 0:
        return best
    centre = (x0 + x1) / 2
    return min(range(len(columns)), key=lambda i: abs((columns[i][0] + columns[i][1]) / 2 - centre))


def _header_texts(lines: list[Line], columns: list[tuple[float, float]]) -> list[str]:
    """Each column's header: spans assigned bottom-up, an upper span going to every column it stands over."""
    extents = [list(c) for c in columns]
    parts: list[list[tuple[float, float, str]]] = [[] for _ in columns]
    label_edge = columns[0][0] - 4.0
    for line in sorted(lines, key=lambda ln: -ln.box.top):
        for span in line.spans:
            if span.box.x1 <= label_edge or _UNIT_NOTE.match(span.text):
                continue
            over = [i for i, (c0, c1) in enumerate(extents) if min(span.box.x1, c1) - max(span.box.x0, c0) > 0]
            if not over:
                over = [_column_of(span.box.x0, span.box.x1, columns)]
            texts = _periods_apart(span.text, len(over)) or [span.text.strip()] * len(over)
            for i, text in zip(over, texts, strict=True):
                parts[i].append((span.box.top, span.box.x0, text))
                extents[i] = [min(extents[i][0], span.box.x0), max(extents[i][1], span.box.x1)]
    return [join_text([text for _, _, text in sorted(p)]) for p in parts]


def _periods_apart(text: str, columns: int) -> list[str] | None:
    """A header printed as one text piece over several columns that is one period per column ("December 31, 2022
    December 31, 2021" over two): the periods, left to right; None when it is not (a "Three Months Ended" over two
    date columns belongs to both)."""
    if columns < 2:
        return None
    periods = [found.group(0) for found in _HEADER_PERIOD.finditer(text)]
    if len(periods) != columns or _HEADER_PERIOD.sub("", text).strip(" ,"):
        return None
    return periods


def _over_columns(line: Line, columns: list[tuple[float, float]]) -> bool:
    """Whether the line is a header line: some span stands over a value column and none runs from the label
    column across into them (a title or a group label does)."""
    if not columns:
        return False
    edge = columns[0][0] - 4.0
    crosses = any(span.box.x0 < edge - HEADER_OVERHANG_PT and span.box.x1 > edge for span in line.spans)
    return not crosses and any(span.box.x1 > edge for span in line.spans)


_CJK_END = re.compile(f"[{CJK_RANGE}{FULLWIDTH_RANGE}]$")
_CJK_START = re.compile(f"^[{CJK_RANGE}{FULLWIDTH_RANGE}]")


def join_text(parts: list[str]) -> str:
    """Join printed pieces with spaces, except between Chinese characters (a label wrapped inside a cell)."""
    out = ""
    for part in (" ".join(p.split()) for p in parts):
        if not part:
            continue
        out += part if not out or (_CJK_END.search(out) and _CJK_START.search(part)) else " " + part
    return out


def _above(page: Page, first: Line, limit: int) -> list[Line]:
    """Up to ``limit`` lines directly above ``first``, nearest first, while they stay close together."""
    body = [line for line in page.lines if not line.furniture and line.box.bottom <= first.box.top + 0.5]
    found: list[Line] = []
    previous = first
    for line in reversed(body):
        height = max(previous.box.bottom - previous.box.top, 1.0)
        if previous.box.top - line.box.bottom > 2.5 * height or len(found) == limit:
            break
        found.append(line)
        previous = line
    return found


def _cells(valued: list[LineSplit], columns: list[tuple[float, float]], headers: list[str]) -> list[Cell]:
    """The row's figures by column; two pieces of one line in one column are one figure ('98' '452')."""
    merged: dict[int, tuple[str, list[Span]]] = {}
    for split in valued:
        for text, spans in split.values:
            column = _column_of(spans[0].box.x0, spans[-1].box.x1, columns)
            if column in merged:
                before, before_spans = merged[column]
                same_line = abs(before_spans[-1].box.top - spans[0].box.top) < TABLE_LINE_PT
                text = before + ("" if same_line else " ") + text
                spans = before_spans + spans
            merged[column] = (text, spans)
    return [
        Cell(column=column, header=headers[column], text=text, boxes=_line_boxes(spans))
        for column, (text, spans) in sorted(merged.items())
    ]


def _figure_lines(region: Region, splits: dict[int, LineSplit]) -> list[LineSplit]:
    return [s for s in (splits[id(line)] for line in region.lines) if s.values and not s.header_like]


def _can_be_table(region: Region, splits: dict[int, LineSplit]) -> bool:
    return len(_figure_lines(region, splits)) >= 2


def _make_table(page: Page, region: Region, used: set[int], splits: dict[int, LineSplit]) -> Table | None:
    value_splits = _figure_lines(region, splits)
    if len(value_splits) < 2:
        return None
    columns = _columns(value_splits)
    row_groups = rows_of(region, splits)
    valued_lines = {id(s.line) for s in value_splits}
    first_value = next(i for i, g in enumerate(row_groups) if any(id(ln) in valued_lines for ln in g))
    while first_value > 0 and _group_label(row_groups[first_value - 1], columns, splits):
        first_value -= 1  # a group label between the header rows and the first figures ('Preferred stock')
    header_lines = [ln for g in row_groups[:first_value] for ln in g]
    above = [ln for ln in _above(page, row_groups[0][0], HEADER_LINES) if id(ln) not in used]
    for line in above:  # nearest first: header lines stand over the columns, the title above them does not
        if not _over_columns(line, columns) or (splits[id(line)].values and not splits[id(line)].header_like):
            break
        header_lines.append(line)
    top_line = min(header_lines + row_groups[0], key=lambda ln: ln.box.top)
    title_candidates = [
        ln
        for ln in _above(page, top_line, 2)
        if top_line.box.top - ln.box.bottom <= TITLE_REACH and not splits[id(ln)].values
    ]
    title = " — ".join(" ".join(ln.text.split()) for ln in reversed(title_candidates)) or None
    rows = _table_rows(row_groups[first_value:], splits, columns, _header_texts(header_lines, columns))
    if len(rows) < 2:
        return None
    used.update(id(ln) for ln in header_lines)
    box = _union([b for r in rows for b in r.boxes] + [ln.box for ln in header_lines])
    return Table(page=page.number, box=box, title=title, columns=_header_texts(header_lines, columns), rows=rows)


def _group_label(lines: list[Line], columns: list[tuple[float, float]], splits: dict[int, LineSplit]) -> bool:
    """Whether a row of label-only lines labels the rows below it: not over the columns, not a unit note."""
    return not any(splits[id(ln)].values or _over_columns(ln, columns) or _UNIT_NOTE.match(ln.text) for ln in lines)


def _table_rows(
    row_groups: list[list[Line]], splits: dict[int, LineSplit], columns: list[tuple[float, float]], headers: list[str]
) -> list[TableRow]:
    """The rows from the first with figures on: a line without figures over the columns is a header row for what
    follows, one elsewhere labels a group (until a total, or a row back at the group label's margin)."""
    rows: list[TableRow] = []
    group: str | None = None
    group_x0 = 0.0
    group_indented: bool | None = None  # whether the rows under the group label are indented beneath it
    pending_header: list[Line] = []
    for lines in row_groups:
        row_splits = [splits[id(ln)] for ln in lines]
        valued = [s for s in row_splits if s.values and not s.header_like]
        if not valued:
            if any(
                _over_columns(ln, columns) or split.header_like for ln, split in zip(lines, row_splits, strict=True)
            ):
                pending_header.extend(lines)  # a header row inside the table: new headers for what follows
                continue
            group = join_text([ln.text for ln in lines])
            group_x0, group_indented = lines[0].box.x0, None
            continue
        if pending_header:
            headers = _header_texts(pending_header, columns)
            pending_header = []
        label_spans = [span for s in row_splits for span in s.label]
        label = join_text([span.text for span in label_spans])
        if group is not None and label_spans:
            indented = label_spans[0].box.x0 > group_x0 + 1.0
            if group_indented is None:
                group_indented = indented
            elif group_indented and not indented:
                group = None  # back at the group label's margin: the group has ended
        cells = _cells(valued, columns, headers)
        total = bool(_TOTAL.match(label))
        boxes = _line_boxes(label_spans) + [b for c in cells for b in c.boxes]
        rows.append(TableRow(label=label, group=group, cells=cells, boxes=boxes, total=total))
        if total:
            group = None
    return rows


def find_tables(page: Page, parsed: list[TableRegion] | None = None) -> list[Table]:
    """The page's tables, top to bottom: the parser's regions (default: the page's own) and other runs of
    value lines. Furniture lines (running headers, page numbers) are never part of a table."""
    parsed = page.regions if parsed is None else parsed
    splits = {id(line): split_line(line) for line in page.lines}  # each line cut once, used everywhere below
    regions = [side for region in regions_of(page, parsed, splits) for side in side_by_side(region, splits)]
    # lines of a region that can be a table are not another table's headers; a block of header lines alone (years
    # over currencies, which the parser boxed apart) is free to head the table below it
    used = {id(line) for region in regions if _can_be_table(region, splits) for line in region.lines}
    tables = []
    for region in regions:
        table = _make_table(page, region, used, splits)
        if table is not None:
            tables.append(table)
    return tables


@dataclass(frozen=True)
class TotalsCheck:
    checked: int  # (total row, column) pairs with a figure
    matching: int  # of those, how many equal the sum of the rows they total


def check_totals(table: Table) -> TotalsCheck:
    """Whether each 'Total' row's figures equal the sum of the rows above it: those since the previous total in
    its group, or every row since the table's start (a grand total), or the previous totals plus the rows after."""
    checked = matching = 0
    for i, row in enumerate(table.rows):
        if not row.total:
            continue
        previous_total = max((j for j in range(i) if table.rows[j].total), default=-1)
        spans = {
            "since_total": [r for r in table.rows[previous_total + 1 : i] if r.group == row.group],
            "all": [r for r in table.rows[:i] if not r.total],
            "subtotals": [r for r in table.rows[:i] if r.total] + list(table.rows[previous_total + 1 : i]),
        }
        for cell in row.cells:
            expected = parse_value(cell.text)
            if expected is None:
                continue
            checked += 1
            for addends in spans.values():
                values = [parse_value(c.text) for r in addends for c in r.cells if c.column == cell.column]
                numbers = [v for v in values if v is not None]
                if (len(numbers) >= 2 or (not numbers and expected == 0)) and sum(numbers, Decimal(0)) == expected:
                    matching += 1
                    break
    return TotalsCheck(checked, matching)


def with_tables(pages: list[Page]) -> list[Page]:
    """The pages with their tables found (after furniture is marked, so no running header joins a table)."""
    return [
        page.model_copy(update={"tables": _tables_of(page)}) if page.has_text and not page.unreadable else page
        for page in pages
    ]


def _tables_of(page: Page) -> list[Table]:
    """A page's tables; a layout the table reader fails on costs that page its tables (its text stays searchable),
    logged, never the document or the build."""
    try:
        return find_tables(page)
    except (ValueError, IndexError, KeyError, ZeroDivisionError) as error:
        logger.warning("page %d: tables not read (%s: %s)", page.number, type(error).__name__, error)
        return []


def row_text(table: Table, row: TableRow) -> str:
    """A row as one self-contained passage: table title, label, then each figure under its column header."""
    label = f"{row.group} {row.label}" if row.group else row.label
    parts = [p for p in (table.title, label) if p]
    parts += [f"{cell.header}: {cell.text}" if cell.header else cell.text for cell in row.cells]
    return " | ".join(parts)
