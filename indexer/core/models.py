"""Records shared by the indexer, the store and the retrieval code.

Coordinates are PDF points with the origin at the page's top-left corner (x right, y down);
pages are numbered from 1 everywhere.

Each shape is defined once and serves two readers: the index files (``model_dump_json()``: every field under its
own name, full precision) and the tools' results (:func:`wire`: fields under their published names such as
``bbox``, coordinates rounded, internal fields left out).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_serializer,
    model_serializer,
)
from pydantic.json_schema import JsonSchemaValue

SHA256_PATTERN = r"^[0-9a-f]{64}$"
MAX_NAME_CHARS = 1000


def relative_name(value: str) -> str:
    """A name that stays inside the folder it is relative to: no absolute path, no '..', no backslash. Used for
    document names and the file names a manifest lists (a tampered manifest must not reach outside the index); a
    file whose name holds a backslash is indexed under :func:`document_name`."""
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


def document_name(relative: str) -> str:
    """The document name of a file at ``relative`` (a POSIX path inside the folder): a backslash, legal in a Linux
    file name, is written as %5C so that every file can be a document (other characters are kept: a name is shown
    sanitised where it is printed, and called by as it is)."""
    return relative.replace("\\", "%5C")


_WIRE = {"wire": True}
WIRE_DECIMALS = 2  # coordinates to 1/100 pt on the wire: far below a character's width, a quarter less JSON


def _on_wire(info: SerializationInfo) -> bool:
    return bool(info.context and info.context.get("wire"))


def wire(model: BaseModel) -> dict[str, Any]:
    """``model`` as a tool result: published field names, rounded coordinates, internal fields left out."""
    return model.model_dump(mode="json", by_alias=True, context=_WIRE)


def wire_json(model: BaseModel) -> str:
    return model.model_dump_json(by_alias=True, context=_WIRE)


def _all_required(node: Any) -> Any:
    if isinstance(node, list):
        return [_all_required(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _all_required(value) for key, value in node.items()}
    if isinstance(out.get("properties"), dict):
        out["required"] = list(out["properties"])
    return out


def wire_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of what :func:`wire` writes: every property it lists is always written (with defaults)."""
    return _all_required(model.model_json_schema(mode="serialization", by_alias=True))  # type: ignore[no-any-return]


class Stored(BaseModel):
    """A record some of whose fields are kept in the index but not served (listed in ``internal``): they are
    dropped from :func:`wire` output and from its schema."""

    internal: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _serve(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo):  # type: ignore[no-untyped-def]  # no return type: pydantic keeps the fields' schema
        data = handler(self)
        if self.internal and _on_wire(info) and isinstance(data, dict):
            for name in self.internal:
                data.pop(name, None)
        return data

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler(schema)
        if cls.internal and handler.mode == "serialization":
            target = handler.resolve_ref_schema(json_schema)
            for name in cls.internal:
                target.get("properties", {}).pop(name, None)
                if name in target.get("required", []):
                    target["required"].remove(name)
        return json_schema


class Box(BaseModel):
    """A rectangle on a page in PDF points, origin top-left (scale by dpi/72 to draw on a rendered page)."""

    model_config = ConfigDict(frozen=True)

    page: int
    x0: float
    top: float
    x1: float
    bottom: float

    @field_serializer("x0", "top", "x1", "bottom")
    def _coordinate(self, value: float, info: SerializationInfo) -> float:
        return round(value, WIRE_DECIMALS) if _on_wire(info) else value

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


class Line(Stored):
    """A visual line: spans sharing a baseline, left to right (the spans stay in the index)."""

    model_config = ConfigDict(frozen=True)
    internal = frozenset({"spans"})

    text: str
    box: Box = Field(serialization_alias="bbox")
    spans: list[Span]
    furniture: bool = Field(default=False, description="running header/footer or page number")


class Cell(BaseModel):
    """One value of a table row, under its column's header (periods, units), with one box per printed line."""

    model_config = ConfigDict(frozen=True)

    column: int = Field(description="0-based value column, left to right (the row label is not a column)")
    header: str = Field(description="the column's header as printed above it (periods, units); '' if none")
    text: str = Field(description="the figure as printed")
    boxes: list[Box] = Field(serialization_alias="bboxes")


class TableRow(BaseModel):
    """A row of a table: its label (with the group label above it, if any) and its values."""

    model_config = ConfigDict(frozen=True)

    label: str
    group: str | None = Field(
        default=None, description="the label-only line the row sits under, e.g. 'Current assets:'"
    )
    cells: list[Cell]
    boxes: list[Box] = Field(serialization_alias="bboxes", description="the label's and the cells' boxes")
    total: bool = Field(default=False, description="a 'Total …' / 合计 row")


class Table(BaseModel):
    """A table found on a page: rows of labelled values with their column headers."""

    page: int
    box: Box = Field(serialization_alias="bbox")
    title: str | None = Field(default=None, description="the line(s) printed just above the table, if any")
    columns: list[str] = Field(description="header of each value column as printed")
    rows: list[TableRow]


class TableRegion(BaseModel):
    """Where a parser saw a table: its box and the vertical band of each of its rows (PDF points, top-left)."""

    model_config = ConfigDict(frozen=True)

    box: Box
    row_bands: tuple[tuple[float, float], ...] = ()


class Page(BaseModel):
    number: int = Field(serialization_alias="page", description="1-based page number")
    width: float
    height: float
    lines: list[Line] = Field(description="each line of the page with its box")
    has_text: bool = Field(default=True, description="False for a scanned page without a text layer")
    unreadable: bool = Field(
        default=False, description="a text layer that is not the page's text (old OCR, garbled): not searchable"
    )
    ocr: bool = Field(default=False, description="the text was read by OCR (check figures)")
    tables: list[Table] = Field(default_factory=list, description="tables found on the page, row by row")
    regions: list[TableRegion] = Field(default_factory=list, exclude=True, description="parser's table blocks")

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


class Place(BaseModel):
    """Where a document's company, form or period end is printed."""

    where: str = Field(
        description="cover, header, footer, auditor_report, directors_report, statement_heading, signature, profile "
        "(a 年报's company profile) or text (a page's running text)"
    )
    page: int = Field(ge=1)
    text: str = Field(description="the line as printed")
    bbox: Box


class ReportedPeriod(BaseModel):
    """A period a filing's statements report: a column header as printed, and the calendar end it names."""

    model_config = ConfigDict(frozen=True)

    printed: str = Field(description="the column header as printed, e.g. 'Three Months Ended July 29, 2023'")
    end: str | None = Field(default=None, description="the date it ends (ISO), where the header or the report names it")
    months: int | None = Field(default=None, description="3, 6, 9 or 12 for a duration, where its header says")
    fiscal_year: int | None = Field(default=None, description="as the filer names it")
    statement: str = Field(default="income", description="income (a duration) or balance (a balance date)")


class ReportedItem(BaseModel):
    """An item an 8-K reports, as printed on it: '5.07' 'Submission of Matters to a Vote of Security Holders'."""

    model_config = ConfigDict(frozen=True)

    number: str
    title: str


class DocumentMeta(BaseModel):
    """What the indexer could tell about one file; unknown stays None."""

    document: RelativeName = Field(
        description="file name, unique within the index; pass it to get_page and as a `documents` filter"
    )
    sha256: str = Field(pattern=SHA256_PATTERN, description="SHA-256 of the file as indexed")
    pages: int = Field(ge=1)
    pages_without_text: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=list, description="pages with no text layer (scanned/images): not searchable"
    )
    pages_unreadable: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=list,
        description="pages whose text layer is not their text (old OCR under a scan): not searchable",
    )
    pages_ocr: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=list, description="pages whose text was read by OCR (check figures)"
    )
    title: str | None = None
    company: str | None = None
    form: str | None = Field(default=None, description="10-K, 10-Q, 8-K, earnings release, 年报, 研报, …")
    period: str | None = Field(default=None, description="the period as printed: FY2023, quarter ended 2023-07-29, …")
    period_end: str | None = Field(default=None, description="the date the reported period ends (ISO)")
    year: int | None = Field(
        default=None,
        description="the fiscal year as the filer names it (Best Buy's quarter ended 2023-07-29 is fiscal 2024; a year "
        "ending in the first days of January is named after the year before); the `year` filter uses it",
    )
    company_verified: bool | None = Field(
        default=None,
        description="two independent places print the company (cover, running headers, auditor's report, statement "
        "headings, signatures); false: the best candidate, not established; null: not checked (an older index)",
    )
    printed_names: list[str] = Field(
        default_factory=list,
        description="when company is not established: the other names the filing prints for itself in a naming place "
        "(cover, headers, auditor's addressee, directors' report); search finds the filing by each",
    )
    form_verified: bool | None = Field(default=None, description="a page past the cover names the form too")
    period_end_verified: bool | None = Field(default=None, description="a page past the cover prints the date too")
    established: dict[str, list[Place]] = Field(
        default_factory=dict, description="company, form, period_end: the places that print each"
    )
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
    source_format: str = Field(default="pdf", description="pdf, or html (served as the PDF it was converted to)")
    folios: list[tuple[int, int, int]] = Field(
        default_factory=list,
        description="the page numbers it prints, as runs (first PDF page, last PDF page, PDF page minus the number "
        "printed on it): a hit names both when they differ",
    )
    periods: list[ReportedPeriod] = Field(
        default_factory=list, description="the periods its income statement and balance sheet report, newest first"
    )
    items: list[ReportedItem] = Field(default_factory=list, description="an 8-K's items, as printed on it")
    cik: str | None = Field(default=None, description="SEC Central Index Key (EDGAR downloads)")
    filing_date: str | None = Field(default=None, description="date filed with the SEC (EDGAR downloads)")
    accession: str | None = Field(default=None, description="SEC accession number (EDGAR downloads)")
    semantic_ready: bool = Field(
        default=True,
        description="whether semantic search covers the document; false while the build is still embedding it "
        "(it is found by its words meanwhile) and in an index built without an embedder",
    )


# The kinds of chunk, each named once: a passage of body text, a contents page's, boilerplate (certifications,
# exhibit indexes, legal notices), and a table row indexed apart.
BODY, CONTENTS, BOILERPLATE, TABLE_ROW = "body", "contents", "boilerplate", "table_row"
GLOSSARY = "glossary"  # a page that defines terms: ranked below the pages that report or explain, unless asked


class StoredChunk(BaseModel):
    """A chunk as a loaded index holds it: everything but its line boxes, which the index keeps in one array."""

    chunk_id: str
    document: str
    page: int
    page_width: float
    page_height: float
    text: str
    kind: str = Field(default=BODY, description="body, contents, boilerplate or table_row")
    section: str | None = Field(default=None, description="income_statement, balance_sheet, cash_flow, mdna, …")
    heading: str | None = Field(default=None, description="the heading of that section, as printed")
    content_hash: str
    parent: str | None = Field(default=None, description="for a table row: the body chunk that holds its line")
    table_ref: tuple[int, int] | None = Field(
        default=None, description="for a table row: (table, row) in its page's tables, where its cells are"
    )


def lexical_text(chunk: StoredChunk) -> str:
    """What BM25 indexes: the chunk, preceded by its section heading (statements continue without one)."""
    return f"{chunk.heading}\n{chunk.text}" if chunk.heading else chunk.text


class Chunk(StoredChunk):
    """A run of consecutive lines on one page: the unit of retrieval, as the indexer makes and stores it."""

    boxes: list[Box] = Field(description="one box per line of the chunk")
