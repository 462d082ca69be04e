"""What one answer may hold of a page: a page built to be huge (80,000 table cells, one line of a megabyte) is cut to
a budget that no real filing page comes near, and the answer says what was left out and how to reach it.

The largest of the dev set's 3,164 pages (every third page measured) holds 8,872 characters, 442 spans and 360 table
cells; the budgets are several times that, so a real page is never cut.
"""

from __future__ import annotations

from indexer.core.models import Line, Page, Table

PAGE_TEXT_CHARS = 40_000  # characters of the page's lines in one answer
PAGE_SPANS = 2_000  # spans (each with its box) of those lines
PAGE_CELLS = 1_500  # table cells (each with its boxes)
PAGE_TABLE_CHARS = 40_000  # characters of the tables' labels and cells


def _lines(lines: list[Line]) -> list[Line]:
    kept: list[Line] = []
    chars = spans = 0
    for line in lines:
        chars += len(line.text) + 1
        spans += len(line.spans)
        if chars > PAGE_TEXT_CHARS or spans > PAGE_SPANS:
            if not kept:  # one line over the budget on its own: its start
                room = max(PAGE_TEXT_CHARS - 1, 0)
                kept.append(line.model_copy(update={"text": line.text[:room], "spans": line.spans[:PAGE_SPANS]}))
            break
        kept.append(line)
    return kept


def _tables(tables: list[Table]) -> list[Table]:
    kept: list[Table] = []
    cells = chars = 0
    for table in tables:
        rows = []
        for row in table.rows:
            cells += len(row.cells) + 1
            chars += len(row.label) + sum(len(cell.text) + 3 for cell in row.cells)
            if cells > PAGE_CELLS or chars > PAGE_TABLE_CHARS:
                break
            rows.append(row)
        if rows:
            kept.append(table if len(rows) == len(table.rows) else table.model_copy(update={"rows": rows}))
        if len(rows) < len(table.rows):
            break
    return kept


def bounded(page: Page) -> tuple[Page, str | None]:
    """The page as one answer may hold it, and what was cut (None when nothing was)."""
    lines, tables = _lines(page.lines), _tables(page.tables)
    total_rows = sum(len(t.rows) for t in page.tables)
    kept_rows = sum(len(t.rows) for t in tables)
    whole_lines = len(lines) == len(page.lines) and (not lines or lines[-1] is page.lines[-1])
    if whole_lines and kept_rows == total_rows:
        return page, None
    shown_chars = sum(len(line.text) + 1 for line in lines)
    all_chars = sum(len(line.text) + 1 for line in page.lines)
    cut = (
        f"this page is too large for one answer: shown {len(lines):,} of {len(page.lines):,} lines ({shown_chars:,} of "
        f"{all_chars:,} characters) and {kept_rows:,} of {total_rows:,} table rows. Find a figure or passage on it "
        "with locate_quote or search_reports (documents=this file); nothing else on this page is shown"
    )
    return page.model_copy(update={"lines": lines, "tables": tables}), cut
