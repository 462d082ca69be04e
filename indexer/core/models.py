"""Records shared by the indexer, the store and the retrieval code.

Coordinates are PDF points with the origin at the page's top-left corner (x right, y down);
pages are numbered from 1 everywhere.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

SHA256_PATTERN = r"^[0-9a-f]{64}$"
MAX_NAME_CHARS = 1000


def relative_name(value: str) -> str:
    """A name that stays inside the folder it is relative to: no absolute path, no '..'. Used for document names and
    the file names a manifest lists (a tampered manifest must not reach outside the index)."""
    path = PurePosixPath(value)
    if (
        not value
        or len(value) > MAX_NAME_CHARS
        or "\\" in value
        or path.is_absolute()
        or ".." in path.parts
        or "\x00" in value
    ):
        raise ValueError("not a relative name inside the folder")
    return value


RelativeName = Annotated[str, AfterValidator(relative_name)]


class Box(BaseModel):
    """A rectangle on one page, in PDF points, top-left origin."""

    model_config = ConfigDict(frozen=True)

    page: int = Field(description="1-based page number")
    x0: float
    top: float
    x1: float
    bottom: float

    def union(self, other: Box) -> Box:
        return Box(
            page=self.page,
            x0=min(self.x0, other.x0),
            top=min(self.top, other.top),
            x1=max(self.x1, other.x1),
            bottom=max(self.bottom, other.bottom),
        )


class Span(BaseModel):
    """One text item as the parser returned it (a word run or a table cell) with its box."""

    model_config = ConfigDict(frozen=True)

    text: str
    box: Box


class Line(BaseModel):
    """A visual line: spans sharing a baseline, left to right."""

    model_config = ConfigDict(frozen=True)

    text: str
    box: Box
    spans: list[Span]
    furniture: bool = Field(default=False, description="running header/footer or page number")


class Cell(BaseModel):
    """One value of a table row, under its column's header (periods, units), with one box per printed line."""

    model_config = ConfigDict(frozen=True)

    column: int = Field(description="0-based value column, left to right (the row label is not a column)")
    header: str = Field(description="the column's header text as printed above it, '' if none")
    text: str
    boxes: list[Box]


class TableRow(BaseModel):
    """A row of a table: its label (with the group label above it, if any) and its values."""

    model_config = ConfigDict(frozen=True)

    label: str
    group: str | None = Field(default=None, description="a label-only line above the row, e.g. 'Current assets:'")
    cells: list[Cell]
    boxes: list[Box] = Field(description="the label's and the cells' boxes")
    total: bool = Field(default=False, description="a 'Total …' / 合计 row")


class Table(BaseModel):
    """A table found on a page: rows of labelled values with their column headers."""

    page: int
    box: Box
    title: str | None = Field(default=None, description="the line printed just above the table, if any")
    columns: list[str] = Field(description="header text of each value column")
    rows: list[TableRow]


class TableRegion(BaseModel):
    """Where a parser saw a table: its box and the vertical band of each of its rows (PDF points, top-left)."""

    model_config = ConfigDict(frozen=True)

    x0: float
    top: float
    x1: float
    bottom: float
    row_bands: tuple[tuple[float, float], ...] = ()


class Page(BaseModel):
    number: int
    width: float
    height: float
    lines: list[Line]
    has_text: bool = True
    unreadable: bool = Field(default=False, description="a text layer that is not the page's text (old OCR, garbled)")
    ocr: bool = Field(default=False, description="the text was read by OCR")
    tables: list[Table] = Field(default_factory=list)
    regions: list[TableRegion] = Field(default_factory=list, exclude=True, description="parser's table blocks")

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


class DocumentMeta(BaseModel):
    """What the indexer could tell about one file; unknown stays None."""

    document: RelativeName = Field(description="file name, unique within the index")
    sha256: str = Field(pattern=SHA256_PATTERN)
    pages: int = Field(ge=1)
    pages_without_text: list[Annotated[int, Field(ge=1)]] = Field(default_factory=list)
    pages_unreadable: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=list, description="pages whose text layer is not their text (e.g. an old OCR under a scan)"
    )
    pages_ocr: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=list, description="pages whose text was read by OCR"
    )
    title: str | None = None
    company: str | None = None
    form: str | None = Field(default=None, description="10-K, 10-Q, 8-K, earnings release, 年报, 研报, …")
    period: str | None = None
    year: int | None = None
    language: str | None = Field(default=None, description="en, zh or mixed")
    stock_code: str | None = None
    tickers: list[str] = Field(default_factory=list, description="trading symbols printed in the document")
    english_name: str | None = Field(default=None, description="the company's English name in a Chinese report")
    company_pinyin: str | None = Field(default=None, description="a Chinese company's short name in pinyin")
    broker: str | None = Field(default=None, description="the broker of a research note (研报)")
    analysts: list[str] = Field(default_factory=list, description="the note's analysts")
    rating: str | None = Field(default=None, description="the note's rating: 买入, 增持, 中性, …")
    rating_action: str | None = Field(default=None, description="首次 (initiated), 维持, 上调 or 下调")
    target_price: float | None = Field(default=None, description="target price on the note's cover")
    price: float | None = Field(default=None, description="share price on the note's cover")
    source_format: str = Field(default="pdf", description="pdf, or html (converted to the PDF that is indexed)")
    cik: str | None = Field(default=None, description="SEC Central Index Key (EDGAR downloads)")
    filing_date: str | None = Field(default=None, description="date filed with the SEC (EDGAR downloads)")
    accession: str | None = Field(default=None, description="SEC accession number (EDGAR downloads)")


class Chunk(BaseModel):
    """A run of consecutive lines on one page: the unit of retrieval."""

    chunk_id: str
    document: str
    page: int
    page_width: float
    page_height: float
    text: str
    boxes: list[Box]
    kind: str = Field(default="body", description="body, contents, boilerplate or table_row")
    section: str | None = Field(default=None, description="income_statement, balance_sheet, cash_flow, mdna, …")
    heading: str | None = Field(default=None, description="the heading of that section, as printed")
    content_hash: str
    parent: str | None = Field(default=None, description="for a table row: the body chunk that holds its line")
    table_ref: tuple[int, int] | None = Field(
        default=None, description="for a table row: (table, row) in its page's tables, where its cells are"
    )
