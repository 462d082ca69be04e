"""The one object a caller talks to: a loaded index version and everything that can be asked of it.

The server's tools, the CLI and the benchmarks go through :class:`KnowledgeBase`; beneath it the stages stay plain
functions over a :class:`~indexer.index.reader.LoadedIndex` (storage, pages, chunks), so a second storage engine
plugs in under ``LoadedIndex.storage`` without changing a caller.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import NamedTuple

from indexer.core.errors import NotFoundError
from indexer.core.models import DocumentMeta, Page, Table
from indexer.evidence.claim_checks import Claim, ClaimCheck, check_claims
from indexer.evidence.claims import check_claim
from indexer.evidence.financials import (
    STATEMENT_OF_KEY,
    FinancialRow,
    key_data_pages,
    key_data_tables,
    select_rows,
    statement_tables,
    table_rows,
)
from indexer.evidence.outline import Section, outline
from indexer.evidence.periods import ReportPeriod
from indexer.evidence.quotes import Located, check_quote, locate
from indexer.evidence.section_text import SectionText, find_section, section_lines, section_piece
from indexer.evidence.statement_content import likely_pages
from indexer.evidence.xbrl import FactReader, attach
from indexer.index.reader import (
    LoadedIndex,
    document_meta,
    get_page,
    get_page_tables,
    load_index,
    pdf_path,
)
from indexer.index.store import Manifest, source_file
from indexer.requests import FinancialsRequest
from indexer.search.filters import filter_documents
from indexer.search.request import Filters, SearchRequest
from indexer.search.retrieve import DEFAULT_OPTIONS, SearchOptions, SearchOutcome, run_search

FINANCIAL_DOCUMENTS = 12  # documents one get_financials call reads at most (each: its statement pages)


class FinancialsOutcome(NamedTuple):
    rows: list[FinancialRow]
    documents: list[str]  # the documents read
    skipped: int  # documents of the company left unread (over FINANCIAL_DOCUMENTS)
    missing: list[str]  # what to say of the items that named no row (the others were found)


LIKELY_PAGES_READ = 1_000  # pages scanned, only when a statement was not found, for where it most likely is
OUTLINES_CACHED = 64  # documents whose outline is kept (computing one reads every page: ~0.2 s per 100 pages)


class KnowledgeBase:
    """One published version of an index, loaded: its documents, their pages and tables, search and quote checks.

    Every method validates its document name and page number and raises a :class:`~indexer.core.errors.FilingsError`
    that says what to do instead."""

    def __init__(self, index: LoadedIndex, cache_dir: Path | None = None) -> None:
        self.index = index
        self.cache_dir = cache_dir  # where derived data (an HTML filing's XBRL facts) is kept between runs
        self._facts = FactReader(cache_dir)
        self._outlines: dict[str, list[Section]] = {}
        self._financials: dict[str, list[FinancialRow]] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(
        cls, folder: Path, cache_dir: Path, *, with_embedder: bool = True, previous: KnowledgeBase | None = None
    ) -> KnowledgeBase:
        """Load the version published at ``folder`` (taking the tokenizer and embedder of ``previous``, an earlier
        version of the same index, when they are the same)."""
        earlier = previous.index if previous is not None else None
        return cls(load_index(folder, cache_dir, with_embedder=with_embedder, previous=earlier), cache_dir)

    @property
    def folder(self) -> Path:
        return self.index.folder

    @property
    def manifest(self) -> Manifest:
        return self.index.manifest

    @property
    def chunk_count(self) -> int:
        return len(self.index.chunks)

    @property
    def dense_search(self) -> bool:
        """Whether semantic (embedding) search is available in this version."""
        return self.index.storage.dense_search

    @property
    def stamp(self) -> tuple[int, int] | None:
        """What identifies this version (see :func:`~indexer.index.reader.manifest_stamp`)."""
        return self.index.stamp

    def documents(self) -> list[DocumentMeta]:
        """Every document of this version, by name."""
        return sorted(self.index.manifest.documents, key=lambda meta: meta.document)

    def document(self, name: str) -> DocumentMeta:
        return document_meta(self.index, name)

    def search(self, request: SearchRequest, options: SearchOptions = DEFAULT_OPTIONS) -> SearchOutcome:
        """The best passages for ``request``, the documents actually searched and the route the question took."""
        return run_search(self.index, request, options)

    def searched_count(self, outcome: SearchOutcome) -> int:
        """How many documents ``outcome`` searched (all of them when nothing narrowed the search)."""
        return len(outcome.scope) if outcome.scope is not None else len(self.index.documents)

    def still_embedding(self, outcome: SearchOutcome) -> int:
        """How many of the documents ``outcome`` searched are not embedded yet (found by their words only)."""
        names = outcome.scope if outcome.scope is not None else list(self.index.documents)
        return sum(not self.index.documents[name].semantic_ready for name in names)

    def page(self, document: str, number: int) -> Page:
        """One page with its lines, boxes and tables."""
        return get_page(self.index, document, number)

    def tables(self, document: str, number: int) -> list[Table]:
        """The tables of one page (cheaper than the page: its lines are not built)."""
        return get_page_tables(self.index, document, number)

    def locate(
        self, document: str, page: int, quote: str, label: str | None = None, period: str | None = None
    ) -> Located:
        """Where ``quote`` is printed on ``page`` (or a neighbouring page, which the note names); with ``label``
        and/or ``period``, verified only in a table row and column that match them."""
        meta = self.document(document)
        if not 1 <= page <= meta.pages:
            raise NotFoundError(f"page {page} is out of range: {document} has pages 1 to {meta.pages}")
        if label or period:
            previous = self.page(document, page - 1) if page > 1 else None
            report = ReportPeriod(meta.period_end, meta.year)
            shown = self.page(document, page)
            known = self._statement_columns(document, shown, report)
            return check_claim(shown, check_quote(quote), label, period, report, previous, known)
        return locate(lambda number: self.page(document, number), meta.pages, page, quote)

    def check_claims(self, claims: list[Claim]) -> list[ClaimCheck]:
        """One verdict per claim, in order (each located as :meth:`locate` would; one bad claim costs only itself)."""
        return check_claims(self.locate, claims)

    def _statement_columns(self, document: str, shown: Page, report: ReportPeriod) -> dict[int, tuple[str, ...]]:
        """The columns get_financials reads for the tables of ``shown`` that belong to a primary statement (headers
        carried over a statement's pages), by the table's position on the page."""
        sections = self.outline(document)
        holding = [
            s for s in sections if s.kind == "statement" and s.page_start <= shown.number <= s.page_end
        ]  # fmt: skip
        if not holding:
            return {}
        pages: dict[int, Page] = {shown.number: shown}

        def page_of(number: int) -> Page:
            if number not in pages:
                pages[number] = self.page(document, number)
            return pages[number]

        position = {id(table): index for index, table in enumerate(shown.tables)}
        found = statement_tables(page_of, sections, self.document(document).language, report, only=holding)
        return {position[id(t.table)]: t.columns for t in found if t.page is shown and id(t.table) in position}

    def outline(self, document: str) -> list[Section]:
        """The document's sections from the headings in its body (computed once per document and version)."""
        meta = self.document(document)
        with self._lock:
            cached = self._outlines.get(document)
        if cached is None:
            cached = outline([self.page(document, n).lines for n in range(1, meta.pages + 1)])
            with self._lock:
                if len(self._outlines) >= OUTLINES_CACHED:
                    self._outlines.pop(next(iter(self._outlines)))
                self._outlines[document] = cached
        return cached

    def financial_rows(self, document: str) -> list[FinancialRow]:
        """Every figure of the document's primary statements and key-data tables (computed once per version)."""
        meta = self.document(document)
        with self._lock:
            cached = self._financials.get(document)
        if cached is not None:
            return cached
        sections = self.outline(document)
        report = ReportPeriod(meta.period_end, meta.year)
        pages: dict[int, Page] = {}

        def page_of(number: int) -> Page:
            if number not in pages:
                pages[number] = self.page(document, number)
            return pages[number]

        found = list(statement_tables(page_of, sections, meta.language, report))
        key_pages = key_data_pages(sections, lambda n: self.tables(document, n), meta.pages)
        found += key_data_tables((page_of(n) for n in key_pages), meta.language, report)
        rows = [row for table in found for row in table_rows(document, table, report)]
        original = source_file(self.folder, meta)
        if rows and meta.source_format == "html" and original.is_file():
            rows = attach(rows, self._facts.facts(original, meta.sha256))
        with self._lock:
            if len(self._financials) >= OUTLINES_CACHED:
                self._financials.pop(next(iter(self._financials)))
            self._financials[document] = rows
        return rows

    def financials(self, request: FinancialsRequest) -> FinancialsOutcome:
        """Statement rows of one document, or of the documents of a company (those that can print the fiscal
        year asked, the most recent first, at most FINANCIAL_DOCUMENTS; every document when neither is named),
        narrowed to a statement, items (concepts or label words) and a fiscal year; with the documents read and how
        many more there were (``request.limit`` is the tool's to apply)."""
        document, company, statement, items, year = (
            request.document, request.company, request.statement, request.items, request.year
        )  # fmt: skip
        if document is not None:
            names = [self.document(document).document]
        else:
            names = filter_documents(self.index, Filters(company=company)) or list(self.index.documents)
            metas = [self.index.documents[name] for name in names]
            if year is not None:  # a filing prints its own year and up to two before it
                metas = [m for m in metas if m.year is None or year <= m.year <= year + 2] or metas
            metas.sort(key=lambda m: (m.year or 0, m.period_end or ""), reverse=True)
            names = [m.document for m in metas]
        read, skipped = names[:FINANCIAL_DOCUMENTS], len(names) - min(len(names), FINANCIAL_DOCUMENTS)
        rows = [row for name in read for row in self.financial_rows(name)]
        if not rows:
            raise NotFoundError(
                f"no primary statements or key-data tables found in {', '.join(read[:5])}"
                + (f" and {len(read) - 5} more" if len(read) > 5 else "")
                + "; statements are read from their headings and rows"
                + self._likely_statement_pages(read[0], statement)
                + " — search_reports and get_page read the others"
            )
        if statement is not None and statement != "key_data" and not any(r.statement == statement for r in rows):
            found = ", ".join(dict.fromkeys(r.statement for r in rows))
            raise NotFoundError(
                f"no {statement} figures found; statements found: {found}"
                + self._likely_statement_pages(read[0], statement)
            )
        chosen, missing = select_rows(rows, statement, items, year)
        return FinancialsOutcome(chosen, read, skipped, missing)

    def _likely_statement_pages(self, document: str, statement: str | None) -> str:
        """Where a statement nothing recognised most likely is: the pages printing the most of its rows (all three
        statements' when none is named), for the agent to read with get_page; '' when no page prints two."""
        kinds = [kind for kind, name in STATEMENT_OF_KEY.items() if statement in (None, name)]
        if not kinds:
            return ""
        meta = self.document(document)
        pages = (
            (number, [line for line in self.page(document, number).lines if not line.furniture])
            for number in range(1, min(meta.pages, LIKELY_PAGES_READ) + 1)
        )
        likely = likely_pages(pages, kinds)
        if not likely:
            return ""
        what = f"{statement} rows" if statement else "statement rows"
        return f"; the pages of {document} printing the most {what}: {', '.join(f'p.{n}' for n in likely)}"

    def section(self, document: str, wanted: str, cursor: str | None = None) -> SectionText:
        """A piece of one section's text (by key such as '7' or '第十节', or words of its title)."""
        sections = self.outline(document)
        if not sections:
            raise NotFoundError(
                f"no sections found in {document} (no Part/Item, 节 or statement headings); read it with get_page"
            )
        position = find_section(sections, wanted)
        found = sections[position]
        last = max(found.page_end, sections[position + 1].page_start if position + 1 < len(sections) else 0)
        pages = [self.page(document, n).lines if found.page_start <= n <= last else [] for n in range(1, last + 1)]
        return section_piece(document, found, section_lines(pages, sections, position), cursor)

    def pdf(self, document: str) -> Path:
        """The PDF as indexed (an HTML filing's converted PDF), kept inside the index folder."""
        return pdf_path(self.index, document)
