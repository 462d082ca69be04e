"""locate_quote: a quoted figure or sentence found on its page, with the boxes of the text matched."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import (
    QuoteLocation,
)
from indexer.core.models import Box
from indexer.requests import (
    QuoteRequest,
)
from mcp_server.briefs import box_text
from mcp_server.evidence_app import SHOWS_EVIDENCE
from mcp_server.file_text import name_text
from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared, ToolDocs

QUOTE_BOXES = 20  # boxes of a quote shown (an ambiguous figure may have many candidates)


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


def quote_text(found: QuoteBrief) -> str:
    verdict = "VERIFIED" if found.verified else "NOT VERIFIED"
    where = f"{name_text(found.document)} p.{found.page}"
    lines = [f"{verdict} ({found.match}) on {where}: {found.matched_text!r}" if found.matched_text else
             f"{verdict} on {name_text(found.document)} p.{found.requested_page}"]  # fmt: skip
    if found.note:
        lines.append(f"note: {found.note}")
    if found.context:
        lines.append(f"in: {found.context}")
    if found.bboxes:
        lines.append("boxes: " + "; ".join(box_text(box) for box in found.bboxes))
        if found.boxes_total > len(found.bboxes):
            lines.append(f"… and {found.boxes_total - len(found.bboxes)} more boxes (detail='full' lists them)")
    return "\n".join(lines)


DOCS = ToolDocs(
    does=(
        "verifies a quoted sentence or figure on a page (whitespace, notation and units reconciled, never a "
        "different number) and returns the boxes of the exact text; with `label`/`period`, a figure only in "
        "that table row and column"
    ),
    arguments=(
        "`document`, `page`, `quote` (≤ 2,000 characters); optional `label` and `period` (a figure checked as "
        "a claim: in that table row, under that column)"
    ),
    returns=(
        "compact: the fields below with the first 20 boxes and `boxes_total`; `full`: `verified`, `match` "
        "(`exact`, `table_cell`, `whitespace`, `numeric`, `alphanumeric`, `token`, `none`), `matched_text`, "
        "`bboxes` (one per line), `page` (where found), `page_width`, `page_height`, `note`"
    ),
)


TOOL = Declared(
    "locate_quote",
    "Verify a quoted figure or sentence on a page (or its neighbours) and get its boxes. Tolerates whitespace, "
    "signs, separators, (1,234) for -1,234 and units (52.00B = 52,000 million; 1.2亿 = 12,000万), never a "
    "different number (printed twice: ambiguous). With `label`/`period`, verified only in "
    "that row and column. For many figures: verify_claims.",
    QuoteBrief,
    request=QuoteRequest,
    full=QuoteLocation,
    ui=SHOWS_EVIDENCE,
    forms={QuoteLocation: Form(lambda r, detail: quote_brief(r), lambda r, b: quote_text(b))},
    docs=DOCS,
)
