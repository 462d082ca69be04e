"""list_documents: the filings the index holds."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import (
    CatalogueHead,
    DocumentList,
)
from indexer.core.models import DocumentMeta
from mcp_server.file_text import name_text
from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared, ToolDocs


class DocumentBrief(BaseModel):
    document: str
    company: str | None
    names: list[str] = Field(
        description="every name the company goes by here, once: as printed, English name, stock code, tickers, "
        "pinyin (search and the company filter take any of them)"
    )
    form: str | None
    period: str | None
    language: str | None
    pages: int
    broker: str | None = Field(description="a research note's broker and rating")
    not_searchable: int = Field(description="pages without a usable text layer")
    ocr_pages: int
    semantic_ready: bool = Field(description="embedded: found by meaning as well as by words")
    unconfirmed: list[str] = Field(
        default_factory=list, description="company, form or period_end: read once, not confirmed by a second place"
    )


class DocumentsBrief(CatalogueHead):
    documents: list[DocumentBrief]


def company_names(meta: DocumentMeta) -> list[str]:
    """The company's names in this document, each once (case aside), the printed name first."""
    found: dict[str, str] = {}
    for name in (
        meta.company,
        meta.english_name,
        *meta.printed_names,
        meta.stock_code,
        *meta.tickers,
        meta.company_pinyin,
    ):
        if name and name.strip():
            found.setdefault(name.strip().casefold(), name.strip())
    return list(found.values())


def document_brief(meta: DocumentMeta) -> DocumentBrief:
    return DocumentBrief(
        document=meta.document,
        company=meta.company,
        names=company_names(meta),
        form=meta.form,
        period=meta.period or (str(meta.year) if meta.year else None),
        language=meta.language,
        pages=meta.pages,
        broker=f"{meta.broker} {meta.rating or ''}".strip() if meta.broker else None,
        not_searchable=len(meta.pages_without_text) + len(meta.pages_unreadable),
        ocr_pages=len(meta.pages_ocr),
        semantic_ready=meta.semantic_ready,
        unconfirmed=[
            field
            for field, verified in (
                ("company", meta.company_verified),
                ("form", meta.form_verified),
                ("period_end", meta.period_end_verified),
            )
            if verified is False and getattr(meta, field)
        ],
    )


def documents_brief(listing: DocumentList) -> DocumentsBrief:
    documents = [document_brief(meta) for meta in listing.documents]
    return DocumentsBrief(**listing.model_dump(include=set(CatalogueHead.model_fields)), documents=documents)


def _document_line(doc: DocumentBrief) -> str:
    company = doc.names[0] + (f" ({' / '.join(doc.names[1:])})" if len(doc.names) > 1 else "") if doc.names else None
    facts = [company, doc.form, doc.period, doc.language, doc.broker]
    line = f"- {name_text(doc.document)}: " + " · ".join(name_text(f) for f in facts if f) + f" · {doc.pages} pages"
    if doc.not_searchable:
        line += f" ({doc.not_searchable} not searchable)"
    if doc.ocr_pages:
        line += f" ({doc.ocr_pages} read by OCR)"
    if doc.unconfirmed:
        line += f" ({', '.join(doc.unconfirmed).replace('_', ' ')} read once, not confirmed)"
    return line


def documents_text(listing: DocumentsBrief) -> str:
    semantic = "keyword + semantic search" if listing.dense_search else "keyword search only"
    if listing.still_embedding:
        semantic += f"; {len(listing.still_embedding)} still being embedded (marked *), found by their words meanwhile"
    head = f"{len(listing.documents)} documents, {listing.chunk_count} passages indexed ({semantic}):"
    waiting = set(listing.still_embedding)
    lines = (_document_line(meta) + (" *" if meta.document in waiting else "") for meta in listing.documents)
    return "\n".join([*([f"NOTE: {listing.note}"] if listing.note else []), head, *lines])


DOCS = ToolDocs(
    does=(
        "the documents: company and all its names (English, stock code, ticker, pinyin), form, period, year, "
        "language, pages, pages not searchable, EDGAR and research-note fields"
    ),
    arguments="—",
    returns=(
        "compact: per document its name, company, `names` (every name the company goes by here, once: as "
        "printed, English name, the other names it prints for itself when none is established, stock code, "
        "tickers, pinyin; search and `company=` take any of them), form, period, language, pages, broker and "
        "rating, pages not searchable, pages read by OCR, `semantic_ready`, `unconfirmed` (company, form or "
        "period end read in one place only: see [Covers by agreement](#covers-by-agreement)); `full`: each "
        "document's file name, `sha256`, title, company, `company_verified`, `printed_names` (when no two "
        "places agree: the other names it prints for itself, which search and `company=` take too), form, "
        "`form_verified`, `period_end_verified`, `established {company, form, period_end: [{where, page, "
        "text, bbox}]}`, `period` (as printed), `period_end` (ISO), `year` (the fiscal year as the filer "
        "names it; see [periods](indexing.md#periods-and-fiscal-years)), language, stock code, tickers, "
        "`english_name`/`company_pinyin` (Chinese companies), `folios` (the page numbers it prints, as runs: "
        "first PDF page, last PDF page, PDF page minus the printed number), pages, pages not searchable "
        "(`pages_without_text`, `pages_unreadable`) and read by OCR (`pages_ocr`); for EDGAR downloads `cik`, "
        "`filing_date`, `accession`; for research notes (研报) `broker`, `analysts`, `rating`, `rating_action` "
        "(首次/维持/上调/下调), `target_price`, `price`; `semantic_ready` (false while a build is still embedding it: "
        "found by its words meanwhile, see [indexing](indexing.md#searchable-first-semantic-after)); and per "
        "result `still_embedding` (those documents)"
    ),
)


TOOL = Declared(
    "list_documents",
    "List the documents in the knowledge base: company, form, period, language, pages.",
    DocumentsBrief,
    full=DocumentList,
    with_coverage=True,
    forms={DocumentList: Form(lambda r, detail: documents_brief(r), lambda r, b: documents_text(b))},
    docs=DOCS,
)
