"""The tools' results, as :class:`~indexer.knowledge_base.KnowledgeBase` returns them: envelopes around the records
the stages define (each shape is defined once; :func:`indexer.core.models.wire` writes them under their published
names). The server renders each one (mcp_server/renderings.py); nothing here knows of MCP."""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

from indexer.core.models import Box, DocumentMeta, Page
from indexer.evidence.claim_checks import ClaimCheck
from indexer.evidence.financials import FinancialRow
from indexer.evidence.identities import Identity
from indexer.evidence.outline import Section
from indexer.evidence.quotes import Located
from indexer.search.retrieve import Hit


class Outline(BaseModel):
    """A document's sections, in reading order, from the headings printed in its body."""

    document: str
    sections: list[Section]


class CatalogueHead(BaseModel):
    chunk_count: int = Field(description="passages indexed")
    note: str | None = Field(default=None, description="what differs between the index's words and the server's")
    dense_search: bool = Field(description="whether semantic (embedding) search is available in this index")
    still_embedding: list[str] = Field(
        default_factory=list,
        description="documents not yet embedded (semantic_ready false): searched by their words until it is done",
    )


class CompanyLine(BaseModel):
    """One company of a grouped listing: its names once, then each filing as its form and period, newest first."""

    company: str
    names: list[str] = Field(description="the other names it goes by here: tickers, stock code, English name")
    filings: list[str] = Field(
        description="each filing as form and period, newest first; on a page of one company, with its file name"
    )


class DocumentList(CatalogueHead):
    documents: list[DocumentMeta] = Field(description="the filings listed (those of this page's companies)")
    total_documents: int = Field(default=0, description="filings in the index")
    matching: int = Field(default=0, description="filings the filters allow")
    filters: str = Field(default="", description="the filters given, as the listing says them")
    grouped: list[CompanyLine] | None = Field(
        default=None, description="a long listing, by company: this page's companies (null: each filing named)"
    )
    summary: str | None = Field(default=None, description="a long listing's whole: filings, companies, forms, years")
    next_cursor: str | None = Field(default=None, description="pass as cursor for the next page of companies")


class SearchHead(BaseModel):
    """What a search result says besides its hits (the same in every form of it)."""

    query: str
    searched_documents: int = Field(
        description="how many documents were searched: those the filters allow, narrowed to a company the query names"
    )
    dense_search: bool
    still_embedding: int = Field(
        default=0, description="how many of the searched documents are not yet embedded (found by their words only)"
    )
    note: str | None = Field(
        default=None,
        description="when the index may not hold the answer: terms, years or forms of the question it does not have, "
        "or hits that share none of the question's key terms (marked weak)",
    )


class SearchResult(SearchHead):
    hits: list[Hit]


class PageResult(Page):
    """One page of a document: its text, its lines with their boxes, its tables."""

    document: str
    page_count: int
    cut: str | None = Field(
        default=None, description="what was left out of a page too large for one answer, and how to find it"
    )

    @computed_field(description="the page's text, line by line")  # type: ignore[prop-decorator]
    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


class PageRange(BaseModel):
    """A short run of pages of one document (get_page's ``pages``), in order, each as get_page gives it alone (cut,
    if ever, to one page's budget)."""

    pages: list[PageResult]


class QuoteLocation(Located):
    """A quote checked against a page: the match and the boxes of the matched text."""

    document: str
    requested_page: int
    page_width: float
    page_height: float


class PagePixels(BaseModel):
    document: str
    page: int
    width_px: int
    height_px: int
    scale: float = Field(description="pixels per PDF point; a box maps to pixels by multiplying by this")


class RenderedPage(PagePixels):
    highlighted: list[Box]
    quote: QuoteLocation | None = None


class PageImage(PagePixels):
    """A page's image for the evidence viewer (page_image), with what its caption names."""

    page_width: float = Field(description="PDF points")
    page_height: float = Field(description="PDF points")
    page_count: int
    printed_page: int | None = Field(default=None, description="the number printed on the page, where it differs")
    section: str | None = Field(default=None, description="the innermost section of the outline holding the page")


class FinancialsHead(BaseModel):
    documents: list[str] = Field(description="the documents whose statements were read")
    companies: dict[str, str] = Field(
        default_factory=dict, description="each document's company, as its record names it"
    )
    total_rows: int = Field(description="rows that matched before the limit")
    note: str | None = Field(default=None, description="rows left out by the limit, unverified rows, what to do next")


class Financials(FinancialsHead):
    """Statement figures as data, each with its page and boxes, and the identities their statements print."""

    rows: list[FinancialRow]
    identities: list[Identity] = Field(default_factory=list, description="totals, balance and cash roll-forward")


class ClaimChecks(BaseModel):
    """A verdict per claim, in the order given."""

    checks: list[ClaimCheck]
