"""A search request: what the `search_reports` tool takes, what `filings-index search` and `eval` build — one
model that validates, documents (its JSON schema is the tool's input schema) and travels to the search code."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

# Bounds on what a caller may send (a client may send anything): past them a request is refused before any work.
# The search's own limits (a query or regex of 2,000 characters once whitespace is collapsed) apply after.
MAX_INPUT_CHARS = 10_000
MAX_GLOB_CHARS = 200
MAX_FILTER_CHARS = 200
MAX_DOCUMENT_CHARS = 1_000  # a document name is a path relative to the folder that was indexed
MAX_TOP_K = 20


@dataclass(frozen=True)
class Filters:
    """Explicit restrictions from the caller: a file-name glob, a company, a year, a form, a broker."""

    documents: str | None = None
    company: str | None = None
    year: int | None = None
    form: str | None = None
    broker: str | None = None

    @property
    def empty(self) -> bool:
        return not self.documents and not self.company and self.year is None and not self.form and not self.broker


class SearchRequest(BaseModel):
    """A search of the filings (the arguments of `search_reports`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query: str = Field(
        max_length=MAX_INPUT_CHARS,
        description="question or key terms, English or Chinese, e.g. 'capex 2022', '营业收入'",
    )
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K, description="passages to return")
    documents: str | None = Field(
        default=None,
        max_length=MAX_GLOB_CHARS,
        description="file-name glob, e.g. '*2022*'",
    )
    company: str | None = Field(
        default=None,
        max_length=MAX_FILTER_CHARS,
        description="name, ticker or stock code",
    )
    year: int | None = Field(
        default=None,
        ge=1900,
        le=2100,
        description="fiscal year as the filer names it",
    )
    form: str | None = Field(
        default=None,
        max_length=MAX_FILTER_CHARS,
        description="10-K, 10-Q, 8-K, earnings release, 年报, 研报",
    )
    use_regex: bool = Field(
        default=False,
        description=r"query is a regex (any case), e.g. '\$[\d,]+ million'",
    )
    broker: str | None = Field(
        default=None,
        max_length=MAX_FILTER_CHARS,
        description="研报 of this broker",
    )

    @property
    def filters(self) -> Filters:
        return Filters(self.documents, self.company, self.year, self.form, self.broker)
