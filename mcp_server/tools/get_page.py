"""get_page: a page's text and its tables as rows, or up to three pages in a row."""

from __future__ import annotations

import os

from pydantic import BaseModel, Field

from indexer.answers import (
    PageRange,
    PageResult,
)
from indexer.core.models import Box, Table
from indexer.requests import (
    PageRequest,
)
from mcp_server.file_text import name_text
from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared, ToolDocs


class TableBrief(BaseModel):
    title: str | None
    under: str | None = Field(
        default=None, description="the words every column header begins with, said once (columns hold the rest)"
    )
    columns: list[str] = Field(description="each value column's header as printed (a long one cut: detail=full)")
    rows: list[str] = Field(
        description="'label: value | value', one value per column as printed ('—': none), a "
        "label under a group line as 'group › label'"
    )


class PageBrief(BaseModel):
    document: str
    page: int
    page_count: int
    width: float
    height: float
    flags: list[str] = Field(description="scanned (no text layer), unreadable (text layer not the page's), ocr")
    text: str = Field(
        description="the page's text, line by line, running header and footer left out, each table's lines replaced "
        "by its mark [table N]"
    )
    tables: list[TableBrief] = Field(description="table N of the marks, as rows")
    cut: str | None = Field(default=None, description="what was left out of a page too large for one answer")


def table_brief(table: Table) -> TableBrief:
    rows = []
    for row in table.rows:
        values = [""] * len(table.columns)
        for cell in row.cells:
            if cell.column < len(values):
                values[cell.column] = cell.text
        label = f"{row.group} › {row.label}" if row.group else row.label
        rows.append(f"{label}: " + " | ".join(value or "—" for value in values))
    under, columns = shared_header(table.columns)
    return TableBrief(title=table.title, under=under, columns=columns, rows=rows)


HEADER_CHARS = 80  # a column header's characters in a compact answer (detail="full" keeps every one)
UNDER_CHARS = 160
SHARED_MIN_CHARS = 20  # words every header begins with, said once when at least this long


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _tail(text: str, limit: int) -> str:
    """A header's last words (where its period is: '… Three Months Ended July 29, 2023')."""
    return text if len(text) <= limit else "…" + text[len(text) - limit + 1 :].lstrip()


def shared_header(columns: list[str]) -> tuple[str | None, list[str]]:
    """The words every named column header begins with (a table's caption read into each header, 'Three Months
    Ended' over every column), said once, and each header's own rest; long headers cut."""
    named = [" ".join(column.split()) for column in columns if column.strip()]
    prefix = os.path.commonprefix(named) if len(named) >= 2 else ""  # noqa: RUF071 (words, not paths)
    if prefix and any(len(name) > len(prefix) and name[len(prefix)] != " " for name in named):
        prefix = prefix[: prefix.rfind(" ") + 1]  # whole words only
    if len(prefix.strip()) < SHARED_MIN_CHARS:
        return None, [_tail(column, HEADER_CHARS) for column in columns]
    rest = [" ".join(column.split())[len(prefix) :].strip() if column.strip() else "" for column in columns]
    return _cut(prefix.strip(), UNDER_CHARS), [_tail(column, HEADER_CHARS) for column in rest]


def page_brief(page: PageResult) -> PageBrief:
    flags = [
        flag for flag, on in (("scanned", not page.has_text), ("unreadable", page.unreadable), ("ocr", page.ocr)) if on
    ]
    return PageBrief(
        document=page.document,
        page=page.number,
        page_count=page.page_count,
        width=round(page.width, 1),
        height=round(page.height, 1),
        flags=flags,
        text=text_with_marks(page),
        tables=[table_brief(table) for table in page.tables],
        cut=page.cut,
    )


TABLE_MARK = "[table {}]"
_EDGE_PT = 1.0  # a line whose middle is this close outside a table's box is still the table's


def _in_box(line: Box, table: Box) -> bool:
    middle_x, middle_y = (line.x0 + line.x1) / 2, (line.top + line.bottom) / 2
    return (table.x0 - _EDGE_PT <= middle_x <= table.x1 + _EDGE_PT
            and table.top - _EDGE_PT <= middle_y <= table.bottom + _EDGE_PT)  # fmt: skip


def text_with_marks(page: PageResult) -> str:
    """The page's text without its running header and footer, each table's lines replaced, where the table begins,
    by its mark: the table is read once, in place, as rows (a table no line falls in is marked at the end)."""
    out: list[str] = []
    placed: set[int] = set()
    for line in page.lines:
        if line.furniture:
            continue  # a running header or footer, a page number: detail="full" keeps it
        number = next((n for n, t in enumerate(page.tables, start=1) if _in_box(line.box, t.box)), None)
        if number is None:
            out.append(line.text)
        elif number not in placed:
            placed.add(number)
            _drop_title(out, page.tables[number - 1].title)
            out.append(TABLE_MARK.format(number))
    out += [TABLE_MARK.format(n) for n in range(1, len(page.tables) + 1) if n not in placed]
    return "\n".join(out)


TITLE_JOIN = " — "  # how a table's title joins the lines it was read from (ingest/tables.py)


def _drop_title(lines: list[str], title: str | None) -> None:
    """The lines just above a table that are its title, taken off: the table says them once, as its title."""
    parts = [" ".join(part.split()) for part in (title or "").split(TITLE_JOIN) if part.strip()]
    if parts and [" ".join(line.split()) for line in lines[-len(parts) :]] == parts:
        del lines[-len(parts) :]


class PagesBrief(BaseModel):
    pages: list[PageBrief] = Field(description="each page asked for, in order, as get_page gives it alone")


def pages_brief(result: PageRange) -> PagesBrief:
    return PagesBrief(pages=[page_brief(page) for page in result.pages])


def table_text(number: int, table: TableBrief) -> str:
    """A table as plain rows: its title, the column headers once, then ``label: value | value``."""
    lines = [f"[table {number}] {name_text(table.title) if table.title else '(untitled)'}"]
    if any(table.columns) or table.under:
        under = f" (each under {name_text(table.under)})" if table.under else ""
        lines.append(f"columns{under}: " + " | ".join(column or "—" for column in table.columns))
    lines.extend(table.rows)
    return "\n".join(lines)


def page_text(page: PageResult, brief: PageBrief, head: str | None = None) -> str:
    """The page's head (``head``, or its document, number and size), then its text with each table in place, as
    rows."""
    flags = [
        flag
        for flag, on in (
            ("no text layer (scanned): not searchable", not page.has_text),
            ("text layer is not the page's text: not searchable", page.unreadable),
            ("text read by OCR: check figures", page.ocr),
        )
        if on
    ]
    head = head or f"{name_text(page.document)} p.{page.number} of {page.page_count}"
    marks = {TABLE_MARK.format(n): table_text(n, table) for n, table in enumerate(brief.tables, start=1)}
    body = "\n".join(marks.get(line, line) for line in brief.text.split("\n"))
    parts = [head + (f" · {'; '.join(flags)}" if flags else ""), body]
    if page.cut:
        parts.insert(1, f"CUT: {page.cut}")
    return "\n\n".join(parts)


def pages_text(result: PageRange, brief: PagesBrief) -> str:
    """A range of pages: one line naming them, then each page as :func:`page_text` writes it, headed [p.N]."""
    first, last = result.pages[0], result.pages[-1]
    span = f"p.{first.number}" + (f"–{last.number}" if last.number > first.number else "")
    head = f"{name_text(first.document)} {span} of {first.page_count}, each page headed [p.N]"
    return "\n\n".join(
        [head]
        + [page_text(page, shown, f"[p.{page.number}]") for page, shown in zip(result.pages, brief.pages, strict=True)]
    )


DOCS = ToolDocs(
    does=(
        "one page's text, lines with boxes, and tables as rows of cells with boxes; or up to 3 pages in a row "
        '(`pages: "33-35"`), each headed `[p.N]`'
    ),
    arguments=(
        "`document` (a name from `list_documents`), and `page` (1-based) or `pages` (a range of at most 3 "
        'pages, low to high: `"33-35"`; `"33"` too), not both'
    ),
    returns=(
        "compact: `{document, page, page_count, width, height, flags, text, tables [{title, under, columns, "
        "rows}], cut}`, the page read once: `text` without its running header and footer, each table's lines "
        "replaced by its mark `[table N]` where it stands, and table N in `tables` with its rows as `label: value "
        "| value` (the text content prints each table in its place); `full`: the page's `text`, `width`, "
        "`height`, `has_text`, `lines "
        "[{text, bbox, furniture}]` and `tables [{page, title, columns, bbox, rows [{label, group, total, "
        "cells, bboxes}]}]`. With `pages`: `{pages: [...]}`, each page as `page` alone gives it (and under "
        "`full`, `{pages: [...]}` of full pages), each within one page's budget"
    ),
)


TOOL = Declared(
    "get_page",
    "Read a whole page, or up to 3 in a row (pages): its text, tables in place as rows.",
    PageBrief,
    request=PageRequest,
    full=PageResult,
    or_else=(PagesBrief, PageRange),
    forms={
        PageResult: Form(lambda r, detail: page_brief(r), lambda r, b: page_text(r, b)),
        PageRange: Form(lambda r, detail: pages_brief(r), pages_text),
    },
    docs=DOCS,
)
