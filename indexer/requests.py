"""The requests of the tools beyond search (search's own is indexer/search/request.py): one model per tool, which
validates the arguments, documents them (its JSON schema is the tool's input schema) and travels to the
KnowledgeBase method that answers it — the CLI builds the same model."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from indexer.evidence.financials import STATEMENTS
from indexer.search.request import MAX_DOCUMENT_CHARS

Statement = Literal["income", "balance", "cash_flow", "key_data"]


class FinancialsRequest(BaseModel):
    """Statement rows (the arguments of `get_financials`): one document's, or a company's filings'."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str | None = Field(
        default=None, max_length=MAX_DOCUMENT_CHARS, description="a file name from list_documents"
    )
    company: str | None = Field(
        default=None, max_length=100, description="instead of document: every filing of this company"
    )
    statement: Statement | None = Field(default=None, description=f"one of {', '.join(STATEMENTS)}; all when omitted")
    items: list[Annotated[str, Field(min_length=1, max_length=100)]] | None = Field(
        default=None,
        max_length=30,
        description="concepts (revenue, capex) or label words in either language (营业收入, 'net sales')",
    )
    year: int | None = Field(default=None, ge=1900, le=2100, description="fiscal year of the figures")
    limit: int = Field(default=200, ge=1, le=2000, description="rows returned at most")
