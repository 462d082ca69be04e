"""The compact form of each tool's result, as data: what the text content says, typed.

Some clients hand the model the text content, others (Claude Code) only ``structuredContent``. Both carry the same
compact answer by default: per passage its document, page, section, score, the text shown and one box; per page its
text and its tables as rows; per statement its periods once and each row's printed figures, without per-cell boxes.
``detail="full"`` adds the whole typed result under ``full`` (every line box, highlight and cell). The text renderings
(``renderings.py``) are written from these briefs, so the two never say different things.

A brief is built from a full model by the functions here, not restated: its fields are taken from that
model's, and the renderings' tests compare what the two say.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from indexer.answers import (
    ClaimChecks,
    PageResult,
    QuoteLocation,
    SearchHead,
    SearchResult,
)
from indexer.core.models import BODY, WIRE_DECIMALS, Box, Table, wire_json
from indexer.evidence.claim_checks import ClaimVerdict
from indexer.search.retrieve import Hit
from mcp_server.file_text import name_text
from mcp_server.snippets import matched_passage

SEARCH_TEXT_BUDGET = 6_600  # characters of passages and rows shown for a top-5 search (more hits: MIN_PER_HIT each)
MIN_PER_HIT = 400
ROW_CHARS = 200  # the matched table row as text (headers included), cut beyond this
HEADER_CHARS = 60  # a column header shown with its cell, at most
PASSAGE_CHARS = 320  # a hit's matched sentences or rows and its row hint (search is most of what agents read)
MIN_PASSAGE_CHARS = 160  # … of which the passage keeps at least this
SURVEY_CHARS = 1_500  # a survey (detail="pages") of 10 hits, in either rendering
SURVEY_SLACK = 40  # … less this for the escapes a client's JSON may add
MIN_SURVEY_LINE_CHARS = 24
SURVEY_LINE_CHARS = 120  # a survey hit's best sentence, at most
QUOTE_BOXES = 20  # boxes of a quote shown (an ambiguous figure may have many candidates)
CUT = "…"


def enclosing(boxes: Iterable[Box]) -> Box | None:
    """One box around all of ``boxes`` that are on the first one's page."""
    boxes = list(boxes)
    if not boxes:
        return None
    page = boxes[0].page
    out = boxes[0]
    for box in boxes[1:]:
        if box.page == page:
            out = out.union(box)
    return out


def shortened(text: str, limit: int, around: str | None = None) -> str:
    """``text`` cut to about ``limit`` characters, keeping the part around ``around`` (a matched figure or term)
    when there is one; cuts are marked with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    start = 0
    if around:
        at = text.find(around)
        if at > limit // 3:
            start = min(at - limit // 3, len(text) - limit)
    piece = text[start : start + limit]
    return (CUT if start > 0 else "") + piece.strip() + (CUT if start + limit < len(text) else "")


# --- search ------------------------------------------------------------------------------------------------------


class PassageBrief(BaseModel):
    """A hit as shown: where to cite it, the passage text (cut to share the answer's budget) and one box."""

    document: str
    page: int = Field(description="1-based page to cite")
    printed: int | None = Field(description="the page number printed on that page, where it differs")
    section: str | None = Field(description="income_statement, balance_sheet, mdna, notes, … if known")
    parent_only: bool = Field(description="from a statement or note of the parent company alone, not the group's")
    kind: str | None = Field(description="null for body text; contents, boilerplate (ranked last) or table_row")
    score: float
    weak: bool = Field(description="shares none of the question's key terms: a near miss, not the answer")
    bbox: Box | None = Field(description="one box around the passage's lines (PDF points, top-left origin)")
    row: str | None = Field(description="the table row on the page that best matches the query, with its headers")
    text: str = Field(
        description="the sentences or rows of the passage that match the query, as printed (… marks what is left out)"
    )


class PagePointer(BaseModel):
    """A hit in survey mode (``detail="pages"``): where it is, and its best sentence."""

    document: str
    page: int
    section: str | None
    line: str = Field(description="the sentence or row of the passage that matches best, cut")


class SearchBrief(SearchHead):
    hits: list[PassageBrief] | list[PagePointer]


def _row_text(hit: Hit) -> str | None:
    row = hit.table_row
    if row is None:
        return None
    cells = " | ".join(
        f"{cell.header}: {cell.text}" if cell.header and len(cell.header) <= HEADER_CHARS else cell.text
        for cell in row.cells
    )  # a "header" longer than a heading is prose read above the table
    return shortened(f"{row.label} | {cells}" if cells else row.text, ROW_CHARS)


def page_citation(page: int, printed: int | None) -> str:
    """'p.160', or 'p.160, printed 158' where the page prints another number (cite the PDF page)."""
    return f"p.{page}" + (f", printed {printed}" if printed is not None else "")


def passage_head(rank: int, brief: PassageBrief) -> str:
    """A hit's first line in the text: rank, citation, section and kind, score."""
    section = name_text(brief.section) if brief.section else None
    parent = "parent company" if brief.parent_only else None
    labels = [
        label for label in (section, parent, brief.kind, "WEAK: shares no key term" if brief.weak else None) if label
    ]
    return (
        f"[{rank}] {name_text(brief.document)} {page_citation(brief.page, brief.printed)}"
        + "".join(f" · {label}" for label in labels)
        + (f" · score {brief.score:.4f}")
    )


def box_text(box: Box) -> str:
    """A box as a citation: ``p.19 [x0 36, top 120, x1 576, bottom 210]`` (PDF points, top-left origin), rounded
    from the coordinates structuredContent carries, so both renderings give the same box (322.5049 is 322.5 there,
    and 322 here, not 323)."""
    x0, top, x1, bottom = (round(v, WIRE_DECIMALS) for v in (box.x0, box.top, box.x1, box.bottom))
    return f"p.{box.page} [x0 {x0:.0f}, top {top:.0f}, x1 {x1:.0f}, bottom {bottom:.0f}]"


def _passage(rank: int, hit: Hit, budget: int) -> PassageBrief:
    brief = PassageBrief(
        document=hit.document,
        page=hit.page,
        printed=hit.source.printed_page,
        section=hit.section,
        parent_only=hit.parent_only,
        kind=hit.kind if hit.kind != BODY else None,
        score=round(hit.score, 4),
        weak=hit.weak,
        bbox=enclosing(hit.boxes),
        row=_row_text(hit),
        text="",
    )
    room = min(budget, PASSAGE_CHARS) - (len(brief.row) if brief.row else 0)
    brief.text = matched_passage(hit.content, _terms(hit), max(room, MIN_PASSAGE_CHARS))
    return brief


def _terms(hit: Hit) -> list[str]:
    """The query's terms and figures as the passage prints them (its highlights)."""
    return list(dict.fromkeys(h.text for h in hit.highlights))


def _pointer(hit: Hit, limit: int) -> PagePointer:
    line = matched_passage(hit.content, _terms(hit), limit).replace("\n", " ")
    return PagePointer(document=hit.document, page=hit.page, section=hit.section, line=line)


def _survey_line_chars(result: SearchResult) -> int:
    """What each survey line's sentence may hold so that the survey fits SURVEY_CHARS in either rendering (its
    structuredContent, the larger, counted without the sentences), at most SURVEY_LINE_CHARS."""
    hits = result.hits
    bare = [PagePointer(document=h.document, page=h.page, section=h.section, line="") for h in hits]
    head = SearchBrief(**result.model_dump(include=set(SearchHead.model_fields)), hits=bare)
    room = SURVEY_CHARS - SURVEY_SLACK - len(wire_json(head))
    return max(min(SURVEY_LINE_CHARS, room // max(len(hits), 1)), MIN_SURVEY_LINE_CHARS)


def search_brief(result: SearchResult, survey: bool = False) -> SearchBrief:
    hits = result.hits
    per_hit = max(SEARCH_TEXT_BUDGET // max(len(hits), 1), MIN_PER_HIT)
    shown: list[PassageBrief] | list[PagePointer]
    if survey:
        line_chars = _survey_line_chars(result)  # once: it measures the whole survey
        shown = [_pointer(hit, line_chars) for hit in hits]
    else:
        shown = [_passage(rank, hit, per_hit) for rank, hit in enumerate(hits, start=1)]
    return SearchBrief(**result.model_dump(include=set(SearchHead.model_fields)), hits=shown)


# --- pages -------------------------------------------------------------------------------------------------------


class RowBrief(BaseModel):
    label: str = Field(description="the row label ('group › label' under a group line)")
    values: list[str] = Field(description="the figures as printed, one per column ('' where the row has none)")


class TableBrief(BaseModel):
    title: str | None
    bbox: Box
    columns: list[str] = Field(description="each value column's header as printed")
    rows: list[RowBrief]


class PageBrief(BaseModel):
    document: str
    page: int
    page_count: int
    width: float
    height: float
    flags: list[str] = Field(description="scanned (no text layer), unreadable (text layer not the page's), ocr")
    text: str = Field(description="the page's text, line by line")
    tables: list[TableBrief]
    cut: str | None = Field(default=None, description="what was left out of a page too large for one answer")


def table_brief(table: Table) -> TableBrief:
    rows = []
    for row in table.rows:
        values = [""] * len(table.columns)
        for cell in row.cells:
            if cell.column < len(values):
                values[cell.column] = cell.text
        rows.append(RowBrief(label=f"{row.group} › {row.label}" if row.group else row.label, values=values))
    return TableBrief(title=table.title, bbox=table.box, columns=table.columns, rows=rows)


def page_brief(page: PageResult) -> PageBrief:
    flags = [
        flag for flag, on in (("scanned", not page.has_text), ("unreadable", page.unreadable), ("ocr", page.ocr)) if on
    ]
    return PageBrief(
        document=page.document,
        page=page.number,
        page_count=page.page_count,
        width=round(page.width, 1),
        height=round(page.height, 1),
        flags=flags,
        text=page.text,
        tables=[table_brief(table) for table in page.tables],
        cut=page.cut,
    )


# --- quotes ------------------------------------------------------------------------------------------------------


class QuoteBrief(BaseModel):
    document: str
    requested_page: int
    page: int = Field(description="the page the match is on (a neighbouring page when the note says so)")
    verified: bool
    match: str = Field(description="exact, whitespace, numeric, alphanumeric, token (partial, unverified) or none")
    matched_text: str
    note: str
    context: str = Field(description="the table row (label: cells) or sentence the match is in, ≤ 200 characters")
    bboxes: list[Box] = Field(description=f"one box per line of the match (the first {QUOTE_BOXES} candidates)")
    boxes_total: int = Field(description="boxes in all (detail='full' lists them)")


def quote_brief(found: QuoteLocation) -> QuoteBrief:
    return QuoteBrief(
        document=found.document,
        requested_page=found.requested_page,
        page=found.page,
        verified=found.verified,
        match=found.match,
        matched_text=found.matched_text,
        note=found.note,
        context=found.context,
        bboxes=found.boxes[:QUOTE_BOXES],
        boxes_total=len(found.boxes),
    )


# --- claims ------------------------------------------------------------------------------------------------------


class ClaimBrief(ClaimVerdict):
    bbox: Box | None = Field(
        description="one box around the matched text (a table cell's own box) or its first candidate"
    )
    candidates: int = Field(description="boxes found in all (detail='full' lists them)")


class ClaimsBrief(BaseModel):
    counts: dict[str, int] = Field(description="claims per status")
    checks: list[ClaimBrief]


def claims_brief(result: ClaimChecks) -> ClaimsBrief:
    counts: dict[str, int] = {}
    checks = []
    for check in result.checks:
        counts[check.status] = counts.get(check.status, 0) + 1
        checks.append(
            ClaimBrief(
                **check.model_dump(include=set(ClaimVerdict.model_fields)),
                bbox=enclosing(
                    check.boxes[:1] if check.status != "verified" or check.match == "table_cell" else check.boxes
                ),
                candidates=len(check.boxes),
            )
        )
    return ClaimsBrief(counts=counts, checks=checks)
