"""The tools as plain functions over a loaded index (no MCP import): tests call them directly."""

from __future__ import annotations

import json
import unicodedata
from collections import Counter

from indexer.core.errors import QueryError
from indexer.core.models import Box
from indexer.evidence.claim_checks import Claim
from indexer.evidence.render import render_png
from indexer.evidence.section_text import SectionText
from indexer.index.store import Manifest
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import FinancialsRequest
from indexer.search.request import SearchRequest
from mcp_server.types import (
    ClaimChecks,
    DocumentList,
    Financials,
    Outline,
    PageResult,
    QuoteLocation,
    RenderedPage,
    SearchResult,
)

_LISTED_DOCUMENTS = 25


def list_documents_tool(kb: KnowledgeBase) -> DocumentList:
    documents = kb.documents()
    return DocumentList(
        documents=documents,
        chunk_count=kb.chunk_count,
        dense_search=kb.dense_search,
        still_embedding=[d.document for d in documents if kb.dense_search and not d.semantic_ready],
    )


def search_reports_tool(kb: KnowledgeBase, request: SearchRequest) -> SearchResult:
    outcome = kb.search(request)
    return SearchResult(
        query=request.query,
        hits=outcome.hits,
        searched_documents=kb.searched_count(outcome),
        dense_search=kb.dense_search,
        still_embedding=kb.still_embedding(outcome) if kb.dense_search else 0,
        note=outcome.note,
    )


def get_outline_tool(kb: KnowledgeBase, document: str) -> Outline:
    return Outline(document=document, sections=kb.outline(document))


def read_section_tool(kb: KnowledgeBase, document: str, section: str, cursor: str | None = None) -> SectionText:
    return kb.section(document, section, cursor)


SHOWN_MISSING = 3  # items not found that the note spells out (the rest are counted)


def get_financials_tool(kb: KnowledgeBase, request: FinancialsRequest) -> Financials:
    if not (request.document or "").strip() and not (request.company or "").strip():
        raise QueryError("pass document (a file name from list_documents) or company (a name, ticker or stock code)")
    rows, documents, skipped, missing = kb.financials(request)
    limit = request.limit
    notes = missing[:SHOWN_MISSING] + (
        [f"{len(missing) - SHOWN_MISSING} more item(s) not found"] if len(missing) > SHOWN_MISSING else []
    )
    if skipped:
        notes.append(f"read the {len(documents)} most recent filings; {skipped} more: pass year or document")
    if len(rows) > limit:
        notes.append(f"showing {limit} of {len(rows)} rows: narrow with statement, items or year, or raise limit")
    unscaled = sum(row.scale is None for row in rows[:limit])
    if unscaled:
        notes.append(f"{unscaled} row(s) with no scale printed for them: value null, read the page for the unit")
    unverified = sum(not row.verified for row in rows[:limit])
    if unverified:
        notes.append(f"{unverified} row(s) not verified at their boxes: check them with get_page before quoting")
    differs = sum(row.xbrl_agrees is False for row in rows[:limit])
    if differs:
        notes.append(f"{differs} printed figure(s) differ from the value the filer tagged in XBRL (xbrl_value)")
    return Financials(rows=rows[:limit], documents=documents, total_rows=len(rows), note="; ".join(notes) or None)


def get_page_tool(kb: KnowledgeBase, document: str, page: int) -> PageResult:
    record = kb.page(document, page)
    return PageResult.model_construct(**dict(record), document=document, page_count=kb.document(document).pages)


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
    if manifest.embedder is not None and (waiting := sum(not d.semantic_ready for d in docs)):
        lines.append(
            f"{waiting} of these documents are still being embedded: search finds them by their words until "
            "semantic search covers them (list_documents: semantic_ready)."
        )
    lines.append(
        "It does not cover other companies or periods, market prices, news, or anything not printed in these "
        "documents: say so rather than guess."
    )
    return "\n".join(lines)


def coverage_line(manifest: Manifest) -> str:
    """What the index covers in one line, for tool descriptions (the catalogue itself is in the server's
    instructions and list_documents, once)."""
    docs = manifest.documents
    if not docs:
        return "The knowledge base is empty."
    languages = Counter(d.language or "unknown" for d in docs)
    years = sorted({d.year for d in docs if d.year})
    span = f"{years[0]}–{years[-1]}" if len(years) > 1 else (str(years[0]) if years else "unknown years")
    kinds = ", ".join(f"{n} {inline(lang, 10, quoted=False)}" for lang, n in languages.most_common())
    return (
        f"Covers {len(docs)} filings/reports ({kinds}; {span}), named in the server instructions and by "
        "list_documents; nothing else: say so rather than guess."
    )


def locate_quote_tool(
    kb: KnowledgeBase, document: str, page: int, quote: str, label: str | None = None, period: str | None = None
) -> QuoteLocation:
    found = kb.locate(document, page, quote, label, period)
    where = kb.page(document, found.page)
    return QuoteLocation(
        **dict(found), document=document, requested_page=page, page_width=where.width, page_height=where.height
    )


def verify_claims_tool(kb: KnowledgeBase, claims: list[Claim]) -> ClaimChecks:
    return ClaimChecks(checks=kb.check_claims(claims))


def render_page_tool(
    kb: KnowledgeBase,
    document: str,
    page: int,
    quote: str | None = None,
    bboxes: list[Box] | None = None,
    dpi: int = 110,
) -> tuple[bytes, RenderedPage]:
    """PNG bytes of the page with the quote (located first) or the given boxes highlighted, and what was drawn."""
    kb.page(document, page)  # validates the name and the page number
    located = locate_quote_tool(kb, document, page, quote) if quote else None
    if located is not None and located.page != page:
        page = located.page
    boxes = [*(bboxes or []), *(located.boxes if located else [])]
    rendered = render_png(kb.pdf(document), page, boxes, dpi)
    return rendered.png, RenderedPage(
        document=document,
        page=page,
        width_px=rendered.width,
        height_px=rendered.height,
        scale=round(rendered.scale, 6),
        highlighted=[b for b in boxes if b.page == page],
        quote=located,
    )
