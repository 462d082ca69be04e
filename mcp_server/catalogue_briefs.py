"""The catalogue as the model reads it (`list_documents`): each document's facts in a line, and the company's names
once (as printed, English, stock code, tickers, pinyin), without the per-page lists and places the metadata keeps."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import CatalogueHead, DocumentList
from indexer.core.models import DocumentMeta


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
