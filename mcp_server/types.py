"""Pydantic models of the tools' inputs and outputs (clients get their JSON schemas)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class BoundingBox(BaseModel):
    """A rectangle on a page in PDF points, origin top-left (scale by dpi/72 to draw on a rendered page)."""

    page: int = Field(description="1-based page number")
    x0: float
    top: float
    x1: float
    bottom: float


class DocumentInfo(BaseModel):
    document: str = Field(description="file name; pass it to get_page and as a `documents` filter")
    title: str | None
    company: str | None
    form: str | None = Field(description="10-K, 10-Q, 8-K, earnings release, 年报, 研报, … (None if unknown)")
    period: str | None
    year: int | None
    language: str | None = Field(description="en, zh or mixed")
    stock_code: str | None
    pages: int
    pages_without_text: list[int] = Field(description="pages with no text layer (scanned/images): not searchable")
    pages_unreadable: list[int] = Field(
        default_factory=list,
        description="pages whose text layer is not their text (old OCR under a scan): not searchable",
    )
    pages_ocr: list[int] = Field(default_factory=list, description="pages whose text was read by OCR (check figures)")
    tickers: list[str] = Field(default_factory=list)
    broker: str | None = Field(default=None, description="research note (研报): the broker")
    analysts: list[str] = Field(default_factory=list, description="research note: analysts on the cover")
    rating: str | None = Field(default=None, description="research note: rating (买入, 增持, 中性, …)")
    rating_action: str | None = Field(default=None, description="research note: 首次, 维持, 上调 or 下调")
    target_price: float | None = Field(default=None, description="research note: target price on the cover")
    price: float | None = Field(default=None, description="research note: share price on the cover")
    source_format: str = Field(default="pdf", description="pdf, or html (served as the PDF it was converted to)")
    cik: str | None = Field(default=None, description="SEC CIK, for filings fetched from EDGAR")
    filing_date: str | None = Field(default=None, description="date filed with the SEC")
    accession: str | None = Field(default=None, description="SEC accession number")


class DocumentList(BaseModel):
    documents: list[DocumentInfo]
    chunk_count: int
    dense_search: bool = Field(description="whether semantic (embedding) search is available in this index")


class Source(BaseModel):
    document: str
    page: int = Field(description="1-based page number in the PDF")
    title: str | None
    company: str | None


class HighlightBox(BaseModel):
    text: str = Field(description="a query term or figure as printed in the passage")
    bbox: BoundingBox


class TableCell(BaseModel):
    column: int = Field(description="0-based value column, left to right")
    header: str = Field(description="the column's header as printed (periods, units); '' if none")
    text: str = Field(description="the figure as printed")
    bboxes: list[BoundingBox]


class TableRowEvidence(BaseModel):
    text: str = Field(description="title | label | header: figure | … — the row with its headers, quotable")
    label: str
    cells: list[TableCell]
    bboxes: list[BoundingBox] = Field(description="the row's label and cells")


class SearchHit(BaseModel):
    content: str = Field(description="the passage text as it appears on the page")
    source: Source
    bboxes: list[BoundingBox] = Field(description="one box per source line of the passage")
    highlights: list[HighlightBox] = Field(
        default_factory=list, description="boxes of the query's terms and figures (or regex matches) in the passage"
    )
    page_width: float
    page_height: float
    score: float = Field(description="fused reciprocal-rank score; higher is better, comparable within one result")
    chunk_id: str
    kind: str = Field(description="body; boilerplate/contents (ranked last); table_row (a row outside any passage)")
    section: str | None = Field(
        default=None, description="income_statement, balance_sheet, cash_flow, key_figures, mdna, notes, … if known"
    )
    table_row: TableRowEvidence | None = Field(
        default=None, description="the table row on this page that best matches the query, with its column headers"
    )


class SearchResult(BaseModel):
    query: str
    hits: list[SearchHit]
    searched_documents: int = Field(
        description="how many documents were searched: those the filters allow, narrowed to a company the query names"
    )
    dense_search: bool


class PageLine(BaseModel):
    text: str
    bbox: BoundingBox
    furniture: bool = Field(description="running header/footer or page number")


class PageTableRow(BaseModel):
    label: str
    group: str | None = Field(description="the label-only line the row sits under, e.g. 'Current assets:'")
    total: bool = Field(description="a 'Total …' / 合计 row")
    cells: list[TableCell]


class PageTable(BaseModel):
    title: str | None = Field(description="the line(s) printed just above the table")
    columns: list[str] = Field(description="header of each value column as printed")
    bbox: BoundingBox
    rows: list[PageTableRow]


class PageResult(BaseModel):
    document: str
    page: int
    page_count: int
    width: float
    height: float
    has_text: bool = Field(description="False for a scanned page without a text layer")
    unreadable: bool = Field(default=False, description="text layer present but not the page's text; not searchable")
    ocr: bool = Field(default=False, description="the text was read by OCR")
    text: str
    lines: list[PageLine]
    tables: list[PageTable] = Field(default_factory=list, description="tables found on the page, row by row")


class QuoteLocation(BaseModel):
    verified: bool = Field(description="True only when the quote was found on the page (or a neighbouring one)")
    match: str = Field(description="exact, whitespace, numeric, alphanumeric, token (partial, unverified) or none")
    matched_text: str = Field(description="the text on the page that matched, as printed")
    document: str
    requested_page: int
    page: int = Field(description="the page the boxes are on (a neighbouring page when the note says so)")
    bboxes: list[BoundingBox] = Field(description="one box per line of the matched text (all candidates if ambiguous)")
    page_width: float
    page_height: float
    note: str = Field(description="why a quote is unverified or ambiguous, or where else it was found")


class RenderedPage(BaseModel):
    document: str
    page: int
    width_px: int
    height_px: int
    scale: float = Field(description="pixels per PDF point; a box maps to pixels by multiplying by this")
    highlighted: list[BoundingBox]
    quote: QuoteLocation | None = None
