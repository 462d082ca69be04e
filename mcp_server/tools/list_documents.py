"""list_documents: the filings the index holds."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import (
    CatalogueHead,
    CompanyLine,
    DocumentList,
)
from indexer.core.models import DocumentMeta
from indexer.evidence.periods import periods_summary
from indexer.requests import ListRequest
from mcp_server.file_text import name_text
from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared, ToolDocs


class DocumentBrief(BaseModel):
    document: str
    names: list[str] = Field(
        description="every name the company goes by here, once, the company as printed first: English name, stock "
        "code, tickers, pinyin (search and the company filter take any of them)"
    )
    form: str | None
    period: str | None
    reports: list[str] = Field(
        default_factory=list,
        description="the periods its statements report, each calendar end with its columns (3m, 6m, 12m; period: "
        "a duration its header does not measure; balance) and fiscal year; an 8-K's items (number and title)",
    )
    language: str | None
    pages: int
    semantic_ready: bool = Field(description="embedded: found by meaning as well as by words")
    notes: list[str] = Field(
        default_factory=list,
        description="a research note's broker and rating; pages without a usable text layer or read by OCR; "
        "company, form or period end read once, not confirmed by a second place",
    )


class DocumentsBrief(CatalogueHead):
    documents: list[DocumentBrief] = Field(description="each filing, while the listing is short (else empty)")
    total_documents: int = Field(description="filings in the index")
    matching: int = Field(description="filings the filters allow")
    companies: list[CompanyLine] | None = Field(
        default=None, description="a long listing, by company, one page: narrow to a company for its file names"
    )
    summary: str | None = Field(default=None, description="a long listing's whole: filings, companies, forms, years")
    next_cursor: str | None = Field(default=None, description="pass as cursor for the next page of companies")


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


def reports(meta: DocumentMeta) -> list[str]:
    """What the filing reports, compactly: each calendar end its statements' columns name, with what they cover and
    its fiscal year ('2023-07-29 3m/6m/balance FY2024'), or a fiscal year where no end is named; an 8-K's items."""
    read = ((p.end, p.months, p.fiscal_year, p.statement == "balance") for p in meta.periods)
    return periods_summary(read) + [f"Item {item.number} {item.title}".strip() for item in meta.items]


def document_brief(meta: DocumentMeta) -> DocumentBrief:
    unconfirmed = [
        field.replace("_", " ")
        for field, verified in (
            ("company", meta.company_verified),
            ("form", meta.form_verified),
            ("period_end", meta.period_end_verified),
        )
        if verified is False and getattr(meta, field)
    ]
    not_searchable = len(meta.pages_without_text) + len(meta.pages_unreadable)
    notes = [
        f"{meta.broker} {meta.rating or ''}".strip() if meta.broker else "",
        f"{not_searchable} not searchable" if not_searchable else "",
        f"{len(meta.pages_ocr)} read by OCR" if meta.pages_ocr else "",
        f"{', '.join(unconfirmed)} read once, not confirmed" if unconfirmed else "",
    ]
    return DocumentBrief(
        document=meta.document,
        names=company_names(meta),
        form=meta.form,
        period=meta.period or (str(meta.year) if meta.year else None),
        reports=reports(meta),
        language=meta.language,
        pages=meta.pages,
        semantic_ready=meta.semantic_ready,
        notes=[note for note in notes if note],
    )


def documents_brief(listing: DocumentList) -> DocumentsBrief:
    head = listing.model_dump(include=set(CatalogueHead.model_fields))
    if listing.grouped is not None:  # a long listing: its companies, not each filing's record
        return DocumentsBrief(
            **head, documents=[], total_documents=listing.total_documents, matching=listing.matching,
            companies=listing.grouped, summary=listing.summary, next_cursor=listing.next_cursor,
        )  # fmt: skip
    documents = [document_brief(meta) for meta in listing.documents]
    return DocumentsBrief(
        **head, documents=documents, total_documents=listing.total_documents, matching=listing.matching
    )


def _document_line(doc: DocumentBrief) -> str:
    company = doc.names[0] + (f" ({' / '.join(doc.names[1:])})" if len(doc.names) > 1 else "") if doc.names else None
    facts = [company, doc.form, doc.period, doc.language]
    line = f"- {name_text(doc.document)}: " + " · ".join(name_text(f) for f in facts if f) + f" · {doc.pages} pages"
    if doc.notes:
        line += " (" + "; ".join(name_text(note) for note in doc.notes) + ")"
    if doc.reports:
        line += " · reports " + "; ".join(name_text(r) for r in doc.reports)
    return line


def _company_line(line: CompanyLine) -> str:
    names = f" ({' / '.join(name_text(n) for n in line.names)})" if line.names else ""
    return f"- {name_text(line.company)}{names}: " + " · ".join(name_text(f) for f in line.filings)


def _grouped_text(listing: DocumentsBrief, head: str) -> str:
    assert listing.companies is not None
    lines = [head, f"{listing.summary}; by company:", *(_company_line(line) for line in listing.companies)]
    if listing.next_cursor:
        lines.append(f"[more companies: list_documents with cursor={listing.next_cursor!r}]")
    if len(listing.companies) > 1 or listing.next_cursor:
        lines.append("Narrow with company=, year=, form= or documents= (a glob) to see each filing's file name.")
    return "\n".join([*([f"NOTE: {listing.note}"] if listing.note else []), *lines])


def documents_text(listing: DocumentsBrief) -> str:
    semantic = "keyword + semantic search" if listing.dense_search else "keyword search only"
    if listing.still_embedding:
        semantic += f"; {len(listing.still_embedding)} still being embedded (marked *), found by their words meanwhile"
    of = f" of {listing.total_documents}" if listing.matching != listing.total_documents else ""
    head = f"{listing.matching}{of} documents, {listing.chunk_count} passages indexed ({semantic}):"
    if listing.companies is not None:
        return _grouped_text(listing, head)
    waiting = set(listing.still_embedding)
    lines = (_document_line(meta) + (" *" if meta.document in waiting else "") for meta in listing.documents)
    return "\n".join([*([f"NOTE: {listing.note}"] if listing.note else []), head, *lines])


DOCS = ToolDocs(
    does=(
        "the documents: company and all its names (English, stock code, ticker, pinyin), form, period, year, "
        "language, pages, pages not searchable, EDGAR and research-note fields; past a dozen filings, by company "
        "one page at a time, within 3,000 characters at any size"
    ),
    arguments=(
        "`company` (name, ticker or stock code), `year`, `form`, `documents` (file-name glob), `cursor` "
        "(`next_cursor` of the previous page); all optional"
    ),
    returns=(
        "`total_documents`, `matching` (the filings the filters allow); past 12 of them (a long listing): "
        "`companies [{company, names, filings}]` (each filing as form and period, newest first) for one page of "
        "companies within the listing's budget, `summary` (filings, companies, forms with counts, fiscal years), "
        "`next_cursor`, and `documents` empty (narrow with a filter for each filing's record; a cursor from "
        "another listing or an older index is refused, and a filter that matches nothing names the closest "
        "companies or the years held). Otherwise (8 filings at most), compact: per document its name, `names` "
        "(every name the company goes by here, once, the company as printed first: English name, the other names "
        "it prints for itself when none is established, stock code, tickers, pinyin; search and `company=` take "
        "any of them), form, period, `reports` (each calendar end its statements' columns name, with 3m/6m/12m, "
        "period or balance and the fiscal year; an 8-K's items), language, pages, `semantic_ready`, `notes` "
        "(broker and rating, pages not searchable or read by OCR, company, form or period end read in one place "
        "only: see [Covers by agreement](#covers-by-agreement)); `full`: each "
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
    "List the filings: each while few, past a dozen grouped by company with a summary and a cursor; narrow with "
    "the filters.",
    DocumentsBrief,
    request=ListRequest,
    full=DocumentList,
    with_coverage=True,
    forms={DocumentList: Form(lambda r, detail: documents_brief(r), lambda r, b: documents_text(b))},
    docs=DOCS,
)
