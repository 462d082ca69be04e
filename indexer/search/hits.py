"""A search's hits: the passage, where it is printed (document, page, the page number printed on it), the boxes to
show it, the query's terms highlighted, and the table row that best answers it."""

from __future__ import annotations

import regex
from pydantic import BaseModel, Field

from indexer.core.budget import Budget
from indexer.core.folios import other_printed_page
from indexer.core.models import Box
from indexer.core.sections import parent_only
from indexer.index.reader import LoadedIndex, get_page_lines
from indexer.search.highlights import Highlight, find_highlights
from indexer.search.table_evidence import RowEvidence


class Source(BaseModel):
    """Where a hit is printed."""

    document: str
    page: int = Field(description="1-based page number in the PDF")
    printed_page: int | None = Field(default=None, description="the page number printed on it, where it differs")
    title: str | None
    company: str | None


class Hit(BaseModel):
    """One passage found by a search, with where it is printed and the boxes to show it."""

    content: str = Field(description="the passage text as it appears on the page")
    source: Source
    boxes: list[Box] = Field(serialization_alias="bboxes", description="one box per source line of the passage")
    highlights: list[Highlight] = Field(
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
    parent_only: bool = Field(
        default=False, description="from a statement or note of the parent company alone (母公司), not the group's"
    )
    table_row: RowEvidence | None = Field(
        default=None, description="the table row on this page that best matches the query, with its column headers"
    )
    weak: bool = Field(
        default=False,
        description="the passage shares none of the question's key terms, or the note says the index may not hold "
        "the answer: read it as a near miss, not as the answer",
    )
    bm25_rank: int | None = Field(default=None, exclude=True, description="best rank in a BM25 list, 1-based")
    dense_rank: int | None = Field(default=None, exclude=True, description="best rank in a dense list, 1-based")

    @property
    def document(self) -> str:
        return self.source.document

    @property
    def page(self) -> int:
        return self.source.page


def with_highlights(
    index: LoadedIndex, hits: list[Hit], patterns: list[regex.Pattern[str]], budget: Budget, limit: int
) -> list[Hit]:
    out = []
    for hit in hits:
        page = get_page_lines(index, hit.document, hit.page)
        out.append(hit.model_copy(update={"highlights": find_highlights(page, hit.boxes, patterns, budget, limit)}))
    return out


def make_hit(
    index: LoadedIndex,
    row: int,
    score: float,
    bm25_rank: int | None = None,
    dense_rank: int | None = None,
    evidence: RowEvidence | None = None,
) -> Hit:
    chunk = index.chunks[row]
    meta = index.documents[chunk.document]
    return Hit(
        chunk_id=chunk.chunk_id,
        source=Source(
            document=chunk.document,
            page=chunk.page,
            title=meta.title,
            company=meta.company,
            printed_page=other_printed_page(meta.folios, chunk.page),
        ),
        page_width=chunk.page_width,
        page_height=chunk.page_height,
        content=chunk.text,
        boxes=index.chunks.boxes(row),
        score=round(score, 6),
        kind=chunk.kind,
        section=chunk.section,
        parent_only=parent_only(chunk.heading),
        bm25_rank=bm25_rank,
        dense_rank=dense_rank,
        table_row=evidence,
    )
