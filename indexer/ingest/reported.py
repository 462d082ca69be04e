"""What a filing reports, read from it at build time: the periods of its statements' columns, and an 8-K's items.

The periods are the column headers of its income statement and balance sheet, on each statement's first page, read
as get_financials reads them (printed, the calendar end, months covered, the fiscal year as the filer names it). An
8-K's items are its 'Item 5.07 Submission of Matters to a Vote of Security Holders' headings, in its own pages before
the exhibits: the number and the title as printed.
"""

from __future__ import annotations

import re

from indexer.core.models import Page, ReportedItem, ReportedPeriod
from indexer.core.statement_names import BALANCE, INCOME
from indexer.evidence.columns import table_headers
from indexer.evidence.outline import Section
from indexer.evidence.periods import ColumnPeriods, ReportPeriod, ending_at_newest

ITEM_PAGES = 6  # an 8-K's own pages come first, its exhibits after: items are read from these
MAX_PERIODS = 8
MAX_ITEMS = 12
TITLE_CHARS = 90
# 'Item 5.07. Submission of Matters to a Vote of Security Holders.' at a line's start (8-K items run 1.01 to 9.01)
_ITEM = re.compile(r"^\s*item\s+([1-9]\.0[1-9])\s*[.:\-–—]?\s*(\S.{2,200})?$", re.I)


def reported_periods(pages: list[Page], statements: list[Section], report: ReportPeriod) -> list[ReportedPeriod]:
    """The distinct periods the income statement's and the balance sheet's columns name, newest first."""
    found: dict[tuple[str | None, int | None, str], ReportedPeriod] = {}
    tables = [
        (section, table, table_headers(page, table, report))
        for section in statements
        if section.key in (INCOME, BALANCE) and 1 <= section.page_start <= len(pages)
        for page in [pages[section.page_start - 1]]
        for table in page.tables
    ]
    report = ending_at_newest(report, (header for _, _, headers in tables for header in headers))
    for section, table, headers in tables:
        periods = ColumnPeriods(headers, table.title, report)
        for header in headers:
            period = periods(header)
            if period is None or (period.end is None and period.fiscal_year is None):
                continue
            printed, statement = " ".join(header.split()), "balance" if section.key == BALANCE else "income"
            found.setdefault((period.end, period.months, statement), ReportedPeriod(
                printed=printed, end=period.end, months=period.months, fiscal_year=period.fiscal_year,
                statement=statement,
            ))  # fmt: skip
    ordered = sorted(
        found.values(),
        key=lambda p: (p.end or str(p.fiscal_year or ""), p.statement == "income", p.months or 0),
        reverse=True,
    )
    return ordered[:MAX_PERIODS]


def eight_k_items(pages: list[Page]) -> list[ReportedItem]:
    """The items an 8-K's own pages print as headings, each once, in the order printed."""
    items: dict[str, ReportedItem] = {}
    for page in pages[:ITEM_PAGES]:
        for line in page.lines:
            if line.furniture or not (found := _ITEM.match(line.text)) or found.group(1) in items:
                continue
            title = " ".join((found.group(2) or "").split()).rstrip(".")
            items[found.group(1)] = ReportedItem(number=found.group(1), title=title[:TITLE_CHARS])
    return list(items.values())[:MAX_ITEMS]
