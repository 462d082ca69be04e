"""A document's financial statements as rows, read once per version: what `get_financials` answers from and what
`locate_quote` checks a labelled figure against (the columns the statement's headers give a table)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from indexer.answers import Financials
from indexer.core.models import DocumentMeta, Page, Table
from indexer.evidence.cross_checks import CROSS, cross_checks
from indexer.evidence.currency import DocumentCurrency
from indexer.evidence.financials import (
    STATEMENT_OF_KEY,
    FinancialRow,
    key_data_pages,
    key_data_tables,
    statement_tables,
    table_rows,
)
from indexer.evidence.identities import Identity, name_bare_totals, page_identities, statement_identities
from indexer.evidence.outline import Section
from indexer.evidence.periods import ReportPeriod, ending_at_newest
from indexer.evidence.statement_content import likely_pages
from indexer.evidence.text_figures import scale_checks
from indexer.evidence.xbrl import FactReader, attach
from indexer.index.store import source_file

LIKELY_PAGES_READ = 1_000  # pages scanned, only when a statement was not found, for where it most likely is
DOCUMENTS_CACHED = 64  # documents whose rows are kept
SHOWN_MISSING = 3  # items not found that a note spells out (the rest are counted)


class StatementReader:
    """The statements of the documents of one index version, through its pages and outlines (``page_of``,
    ``tables_of``, ``outline_of`` and ``meta_of`` are the knowledge base's own readers)."""

    def __init__(
        self,
        folder: Path,
        facts: FactReader,
        meta_of: Callable[[str], DocumentMeta],
        page_of: Callable[[str, int], Page],
        tables_of: Callable[[str, int], list[Table]],
        outline_of: Callable[[str], list[Section]],
    ) -> None:
        self._folder, self._facts = folder, facts
        self._meta_of, self._page_of, self._tables_of, self._outline_of = meta_of, page_of, tables_of, outline_of
        self._rows: dict[str, list[FinancialRow]] = {}
        self._identities: dict[str, list[Identity]] = {}
        self._lock = threading.Lock()

    def _pages(self, document: str, first: dict[int, Page] | None = None) -> Callable[[int], Page]:
        """A reader of the document's pages that builds each page once (``first``: pages already built)."""
        pages = dict(first or {})

        def page_of(number: int) -> Page:
            if number not in pages:
                pages[number] = self._page_of(document, number)
            return pages[number]

        return page_of

    def rows(self, document: str) -> list[FinancialRow]:
        """Every figure of the document's primary statements and key-data tables (computed once per version)."""
        meta = self._meta_of(document)
        with self._lock:
            cached = self._rows.get(document)
        if cached is not None:
            return cached
        sections = self._outline_of(document)
        report = ReportPeriod(meta.period_end, meta.year)
        page_of = self._pages(document)
        found = list(statement_tables(page_of, sections, report))
        key_pages = key_data_pages(sections, lambda n: self._tables_of(document, n), meta.pages)
        found += key_data_tables((page_of(n) for n in key_pages), report)
        report = ending_at_newest(report, (header for table in found for header in table.columns))
        money = DocumentCurrency(meta.form, meta.pages, page_of)
        rows: list[FinancialRow] = []
        on_page: dict[tuple[int, str], tuple[list[Table], list[FinancialRow]]] = {}
        for table in found:
            read = table_rows(document, table, report, money)
            if table.statement == "key_data" and not any(row.concept for row in read):
                continue  # a table in the key-data section that reports none of its figures (an address, a code)
            tables, page_rows = on_page.setdefault((table.page.number, table.statement), ([], []))
            tables.append(table.table)
            page_rows += read
            rows += read
        name_bare_totals(rows)
        identities = [
            identity for (_, statement), (tables, page_rows) in on_page.items() if statement != "key_data"
            for identity in page_identities(document, statement, tables, page_rows)
        ]  # fmt: skip
        identities += statement_identities(document, rows)
        identities += cross_checks(document, rows)
        identities += scale_checks(document, rows, page_of, meta.pages)
        original = source_file(self._folder, meta)
        if rows and meta.source_format == "html" and original.is_file():
            rows = attach(rows, self._facts.facts(original, meta.sha256))
        with self._lock:
            if len(self._rows) >= DOCUMENTS_CACHED:
                self._identities.pop(next(iter(self._rows)), None)
                self._rows.pop(next(iter(self._rows)))
            self._rows[document], self._identities[document] = rows, identities
        return rows

    def identities(self, document: str) -> list[Identity]:
        """The identities the document's statements print, checked (computed with its rows)."""
        self.rows(document)
        with self._lock:
            return self._identities.get(document, [])

    def columns(self, document: str, shown: Page, report: ReportPeriod) -> dict[int, tuple[str, ...]]:
        """The columns get_financials reads for the tables of ``shown`` that belong to a primary statement (headers
        carried over a statement's pages), by the table's position on the page."""
        sections = self._outline_of(document)
        holding = [
            s for s in sections if s.kind == "statement" and s.page_start <= shown.number <= s.page_end
        ]  # fmt: skip
        if not holding:
            return {}
        position = {id(table): index for index, table in enumerate(shown.tables)}
        found = statement_tables(self._pages(document, {shown.number: shown}), sections, report, only=holding)
        return {position[id(t.table)]: t.columns for t in found if t.page is shown and id(t.table) in position}

    def likely_pages(self, document: str, statement: str | None) -> str:
        """Where a statement nothing recognised most likely is: the pages printing the most of its rows (all three
        statements' when none is named), for the agent to read with get_page; '' when no page prints two."""
        kinds = [kind for kind, name in STATEMENT_OF_KEY.items() if statement in (None, name)]
        if not kinds:
            return ""
        meta = self._meta_of(document)
        pages = (
            (number, [line for line in self._page_of(document, number).lines if not line.furniture])
            for number in range(1, min(meta.pages, LIKELY_PAGES_READ) + 1)
        )
        likely = likely_pages(pages, kinds)
        if not likely:
            return ""
        what = f"{statement} rows" if statement else "statement rows"
        return f"; the pages of {document} printing the most {what}: {', '.join(f'p.{n}' for n in likely)}"


def financials_answer(
    rows: list[FinancialRow],
    documents: list[str],
    skipped: int,
    missing: list[str],
    limit: int,
    identities: list[Identity] | None = None,
) -> Financials:
    """get_financials' result: at most ``limit`` rows, with a note on what was left out, not found or unverified,
    and the identities checked on the statement pages shown."""
    notes = missing[:SHOWN_MISSING] + (
        [f"{len(missing) - SHOWN_MISSING} more item(s) not found"] if len(missing) > SHOWN_MISSING else []
    )
    if skipped:
        notes.append(f"read the {len(documents)} most recent filings; {skipped} more: pass year or document")
    if len(rows) > limit:
        notes.append(f"showing {limit} of {len(rows)} rows: narrow with statement, items or year, or raise limit")
    reasons = Counter(reason for row in rows[:limit] for reason in row.missing)
    if reasons:
        unverified = sum(not row.verified for row in rows[:limit])
        why = ", ".join(f"{reason}: {count}" for reason, count in reasons.most_common())
        notes.append(
            f"{unverified} figure(s) not verified ({why}); do not quote them as facts without reading the page"
        )
    differs = sum(row.xbrl_agrees is False for row in rows[:limit])
    if differs:
        notes.append(f"{differs} printed figure(s) differ from the value the filer tagged in XBRL (xbrl_value)")
    shown = {(row.document, row.page, row.statement) for row in rows[:limit]}
    pages = {(document, page) for document, page, _ in shown}
    checked = [
        i for i in identities or []
        if (i.document, i.page, i.statement) in shown or (i.statement == CROSS and (i.document, i.page) in pages)
    ]  # fmt: skip
    return Financials(
        rows=rows[:limit], documents=documents, total_rows=len(rows), note="; ".join(notes) or None, identities=checked
    )
