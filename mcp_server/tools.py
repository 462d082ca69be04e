"""The tools as plain functions over a loaded index (no MCP import): tests call them directly."""

from __future__ import annotations

import json
import unicodedata
from collections import Counter

from indexer.core.errors import NotFoundError
from indexer.core.models import Box, Cell
from indexer.evidence.quotes import locate
from indexer.evidence.render import render_png
from indexer.index.reader import LoadedIndex, document_meta, get_page, pdf_path
from indexer.index.store import Manifest
from indexer.search.request import SearchRequest
from indexer.search.retrieve import run_search
from mcp_server.types import (
    BoundingBox,
    DocumentInfo,
    DocumentList,
    HighlightBox,
    PageLine,
    PageResult,
    PageTable,
    PageTableRow,
    QuoteLocation,
    RenderedPage,
    SearchHit,
    SearchResult,
    Source,
    TableCell,
    TableRowEvidence,
)

_LISTED_DOCUMENTS = 25


def _bbox(box: Box) -> BoundingBox:
    """Coordinates to 1/100 pt (far below a character's width; a search result's JSON is a quarter smaller)."""
    return BoundingBox(
        page=box.page, x0=round(box.x0, 2), top=round(box.top, 2), x1=round(box.x1, 2), bottom=round(box.bottom, 2)
    )


def _cells(cells: list[Cell]) -> list[TableCell]:
    return [TableCell(column=c.column, header=c.header, text=c.text, bboxes=[_bbox(b) for b in c.boxes]) for c in cells]


def list_documents_tool(index: LoadedIndex) -> DocumentList:
    docs = [
        DocumentInfo(**meta.model_dump(exclude={"sha256"}))
        for meta in sorted(index.manifest.documents, key=lambda m: m.document)
    ]
    return DocumentList(documents=docs, chunk_count=len(index.chunks), dense_search=index.storage.dense_search)


def search_reports_tool(index: LoadedIndex, request: SearchRequest) -> SearchResult:
    outcome = run_search(index, request)
    hits = outcome.hits
    out = []
    for hit in hits:
        meta = index.documents[hit.document]
        out.append(
            SearchHit(
                content=hit.content,
                source=Source(document=hit.document, page=hit.page, title=meta.title, company=meta.company),
                bboxes=[_bbox(b) for b in hit.boxes],
                highlights=[HighlightBox(text=h.text, bbox=_bbox(h.box)) for h in hit.highlights],
                page_width=hit.page_width,
                page_height=hit.page_height,
                score=hit.score,
                chunk_id=hit.chunk_id,
                kind=hit.kind,
                section=hit.section,
                table_row=None
                if hit.table_row is None
                else TableRowEvidence(
                    text=hit.table_row.text,
                    label=hit.table_row.label,
                    cells=_cells(hit.table_row.cells),
                    bboxes=[_bbox(b) for b in hit.table_row.boxes],
                ),
            )
        )
    return SearchResult(
        query=request.query,
        hits=out,
        searched_documents=len(outcome.scope) if outcome.scope is not None else len(index.documents),
        dense_search=index.storage.dense_search,
    )


def get_page_tool(index: LoadedIndex, document: str, page: int) -> PageResult:
    meta = document_meta(index, document)
    record = get_page(index, document, page)
    return PageResult(
        document=document,
        page=page,
        page_count=meta.pages,
        width=record.width,
        height=record.height,
        has_text=record.has_text,
        unreadable=record.unreadable,
        ocr=record.ocr,
        text=record.text,
        lines=[PageLine(text=line.text, bbox=_bbox(line.box), furniture=line.furniture) for line in record.lines],
        tables=[
            PageTable(
                title=table.title,
                columns=table.columns,
                bbox=_bbox(table.box),
                rows=[
                    PageTableRow(label=row.label, group=row.group, total=row.total, cells=_cells(row.cells))
                    for row in table.rows
                ],
            )
            for table in record.tables
        ],
    )


_SHOWN_CHARS = 120


def inline(text: str | None, limit: int = _SHOWN_CHARS, quoted: bool = True) -> str:
    """Text from a document (a file name, a title) made safe to place in the server's instructions and tool
    descriptions, which the model reads as guidance: line breaks and control characters become spaces, format
    characters (bidi overrides) are dropped, whitespace is collapsed, the text cut at ``limit`` and quoted as a JSON
    string, so that it reads as data, never as a line of instructions."""
    kept = (" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text or "")
    cleaned = " ".join("".join(c for c in kept if unicodedata.category(c) != "Cf").split())
    if len(cleaned) > limit:
        cleaned = cleaned[:limit] + "…"
    return json.dumps(cleaned, ensure_ascii=False) if quoted else cleaned


def coverage(manifest: Manifest) -> str:
    """What the loaded index covers, in words for the calling model's tool descriptions (names and titles quoted
    and cleaned: they come from the files and are not instructions)."""
    docs = manifest.documents
    if not docs:
        return "The knowledge base is empty."
    languages = Counter(d.language or "unknown" for d in docs)
    companies = sorted({d.company for d in docs if d.company})
    years = sorted({d.year for d in docs if d.year})
    lines = [
        f"The knowledge base holds {len(docs)} filings/reports "
        f"({', '.join(f'{n} {inline(lang, 10, quoted=False)}' for lang, n in languages.most_common())}); "
        f"companies: {', '.join(inline(c, 60) for c in companies[:_LISTED_DOCUMENTS]) or 'unknown'}; "
        f"years: {', '.join(map(str, years)) or 'unknown'}.",
        "Documents (name: title):",
    ]
    for doc in sorted(docs, key=lambda d: d.document)[:_LISTED_DOCUMENTS]:
        language = inline(doc.language or "?", 10, quoted=False)
        lines.append(f"- {inline(doc.document)}: {inline(doc.title)} ({doc.pages} pages, {language})")
    if len(docs) > _LISTED_DOCUMENTS:
        lines.append(f"- … and {len(docs) - _LISTED_DOCUMENTS} more (call list_documents)")
    lines.append(
        "It does not cover other companies or periods, market prices, news, or anything not printed in these "
        "documents: say so rather than guess."
    )
    return "\n".join(lines)


def locate_quote_tool(index: LoadedIndex, document: str, page: int, quote: str) -> QuoteLocation:
    meta = document_meta(index, document)
    if not 1 <= page <= meta.pages:
        raise NotFoundError(f"page {page} is out of range: {document} has pages 1 to {meta.pages}")
    found = locate(lambda n: get_page(index, document, n), meta.pages, page, quote)
    where = get_page(index, document, found.page)
    return QuoteLocation(
        verified=found.verified,
        match=found.match,
        matched_text=found.matched_text,
        document=document,
        requested_page=page,
        page=found.page,
        bboxes=[_bbox(b) for b in found.boxes],
        page_width=where.width,
        page_height=where.height,
        note=found.note,
    )


def render_page_tool(
    index: LoadedIndex,
    document: str,
    page: int,
    quote: str | None = None,
    bboxes: list[BoundingBox] | None = None,
    dpi: int = 110,
) -> tuple[bytes, RenderedPage]:
    """PNG bytes of the page with the quote (located first) or the given boxes highlighted, and what was drawn."""
    get_page(index, document, page)  # validates the name and the page number
    located = locate_quote_tool(index, document, page, quote) if quote else None
    if located is not None and located.page != page:
        page = located.page
    boxes = [Box(**b.model_dump()) for b in (bboxes or [])] + (
        [Box(**b.model_dump()) for b in located.bboxes] if located else []
    )
    rendered = render_png(pdf_path(index, document), page, boxes, dpi)
    return rendered.png, RenderedPage(
        document=document,
        page=page,
        width_px=rendered.width,
        height_px=rendered.height,
        scale=round(rendered.scale, 6),
        highlighted=[_bbox(b) for b in boxes if b.page == page],
        quote=located,
    )
