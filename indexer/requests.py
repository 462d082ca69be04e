"""The requests of the tools beyond search (search's own is indexer/search/request.py): one model per tool, which
validates the arguments, documents them (its JSON schema is the tool's input schema) and travels to the
KnowledgeBase method that answers it — the CLI builds the same model."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from indexer.core.models import Box
from indexer.evidence.claim_checks import MAX_CLAIMS, Claim
from indexer.search.request import MAX_DOCUMENT_CHARS, MAX_FILTER_CHARS, MAX_GLOB_CHARS, MAX_INPUT_CHARS

Statement = Literal["income", "balance", "cash_flow", "key_data"]


class FinancialsRequest(BaseModel):
    """Statement rows (the arguments of `get_financials`): one document's, or a company's filings'."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str | None = Field(default=None, max_length=MAX_DOCUMENT_CHARS, description="a name from list_documents")
    company: str | None = Field(
        default=None, max_length=100, description="instead of document: this company's filings (no listing needed)"
    )
    statement: Statement | None = Field(default=None, description="all when omitted")
    items: list[Annotated[str, Field(min_length=1, max_length=100)]] | None = Field(
        default=None,
        max_length=30,
        description="concepts (revenue, capex) or printed labels (营业收入, 'net sales')",
    )
    year: int | None = Field(default=None, ge=1900, le=2100, description="fiscal year of the figures")
    limit: int = Field(default=200, ge=1, le=2000, description="rows returned at most")


MAX_BOXES = 200  # boxes render_page draws (a search hit has one per line)
_DOCUMENT = "a name from list_documents"


class ListRequest(BaseModel):
    """Which filings to list (the arguments of `list_documents`): all of them, or those of a company, year, form or
    file-name glob; ``cursor`` goes on from a page of a long listing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    company: str | None = Field(default=None, max_length=MAX_FILTER_CHARS, description="name, ticker or stock code")
    year: int | None = Field(default=None, ge=1900, le=2100, description="fiscal year as the filer names it")
    form: str | None = Field(default=None, max_length=MAX_FILTER_CHARS, description="10-K, 10-Q, 8-K, 年报, 研报 …")
    documents: str | None = Field(default=None, max_length=MAX_GLOB_CHARS, description="file names, e.g. '*2022*'")
    cursor: str | None = Field(default=None, max_length=40, description="next_cursor of the previous page")

    def filters_text(self) -> str:
        """The filters as the listing says them (and a cursor is made for)."""
        given = {"company": self.company, "year": self.year, "form": self.form, "documents": self.documents}
        return ", ".join(f"{name}={value!r}" for name, value in given.items() if value is not None)


MAX_PAGES = 3  # pages one get_page call reads (a table or note that runs onto the next page or two)
_RANGE = re.compile(r"(?<!\s)\s*+(\d{1,9})\s*+(?:[-\u2013]\s*+(\d{1,9})\s*+)?")
_RANGE_HELP = f'a page or a range of at most {MAX_PAGES} pages, low to high, such as "33" or "33-35"'


class PageRequest(BaseModel):
    """One page of a document, or a short range of pages (the arguments of `get_page`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str = Field(max_length=MAX_DOCUMENT_CHARS, description=_DOCUMENT)
    page: int | None = Field(default=None, description="1-based page number")
    pages: str | None = Field(default=None, max_length=40, description="'33-35' instead of page")

    @field_validator("pages")
    @classmethod
    def _a_short_range(cls, pages: str | None) -> str | None:
        if pages is not None:
            _page_span(pages)
        return pages

    @model_validator(mode="after")
    def _page_or_pages(self) -> PageRequest:
        if self.page is not None and self.pages is not None:
            raise ValueError(f"give page or pages, not both: page for one page (e.g. 33), pages for {_RANGE_HELP}")
        if self.page is None and self.pages is None:
            raise ValueError(f"give page (one page, e.g. 33) or pages ({_RANGE_HELP})")
        return self

    def span(self) -> tuple[int, int]:
        """The first and last page asked for (``page`` twice for one page)."""
        return (self.page, self.page) if self.page is not None else _page_span(self.pages or "")


def _page_span(pages: str) -> tuple[int, int]:
    """The first and last page of a range such as "33-35" (or "33"); a ValueError that names the valid form when it is
    malformed, reversed, starts at 0 or holds more than MAX_PAGES pages."""
    found = _RANGE.fullmatch(pages)
    if found is None:
        raise ValueError(f"write {_RANGE_HELP}")
    first = int(found[1])
    last = int(found[2]) if found[2] else first
    if min(first, last) < 1:
        raise ValueError(f"pages are numbered from 1: ask for {_RANGE_HELP}")
    if last < first:
        example = f"{last}-{min(first, last + MAX_PAGES - 1)}"
        raise ValueError(
            f'the range ends before it starts: write it low to high, at most {MAX_PAGES} pages: "{example}"'
        )
    if last - first + 1 > MAX_PAGES:
        example = f"{first}-{first + MAX_PAGES - 1}"
        raise ValueError(f'that is {last - first + 1} pages: ask for at most {MAX_PAGES} at a time, e.g. "{example}"')
    return first, last


class OutlineRequest(BaseModel):
    """A document's outline (the arguments of `get_outline`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str = Field(max_length=MAX_DOCUMENT_CHARS, description=_DOCUMENT)


class SectionRequest(BaseModel):
    """A piece of one section's text (the arguments of `read_section`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str = Field(max_length=MAX_DOCUMENT_CHARS, description=_DOCUMENT)
    section: str = Field(
        min_length=1,
        max_length=200,
        description="a get_outline key ('7', '1A', '第十节', 'balance_sheet') or title words",
    )
    cursor: str | None = Field(default=None, max_length=20, description="next_cursor from the previous call")


class QuoteRequest(Claim):
    """A quote to verify on a page (the arguments of `locate_quote`): one claim, as verify_claims checks many,
    with the tool's own limits and descriptions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str = Field(max_length=MAX_DOCUMENT_CHARS, description=_DOCUMENT)
    page: int = Field(description="1-based page cited")
    quote: str = Field(max_length=MAX_INPUT_CHARS, description="figure or text as printed, e.g. '394,328'")
    label: str | None = Field(default=None, max_length=200, description="its table row, e.g. 'Revenue', '营业收入'")
    period: str | None = Field(default=None, max_length=100, description="its column, e.g. '2022', '2019年'")


class ClaimsRequest(BaseModel):
    """Claims to verify in one call (the arguments of `verify_claims`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claims: list[Claim] = Field(min_length=1, max_length=MAX_CLAIMS, description="figures or sentences")


class RenderRequest(BaseModel):
    """A page to render with highlights (the arguments of `render_page`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str = Field(max_length=MAX_DOCUMENT_CHARS, description=_DOCUMENT)
    page: int = Field(description="1-based page number")
    quote: str | None = Field(default=None, max_length=MAX_INPUT_CHARS, description="text to highlight")
    bboxes: list[Box] | None = Field(default=None, max_length=MAX_BOXES, description="boxes to highlight, e.g. a hit's")
    dpi: int = Field(default=110, ge=36, le=300)


PAGE_IMAGE_DPI = 144  # a letter page at 1224 × 1584 px, the long side capped at 1600 (render.MAX_SIDE_PX)


class PageImageRequest(BaseModel):
    """A page to show in the evidence viewer (the arguments of `page_image`); the viewer draws the boxes itself.
    Its fields carry no descriptions: the tool is the app's, and the model would only pay for them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str = Field(max_length=MAX_DOCUMENT_CHARS)
    page: int
    dpi: int = Field(default=PAGE_IMAGE_DPI, ge=36, le=300)
