"""verify_claims: many figures checked in one call, a verdict for each in order."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import (
    ClaimChecks,
)
from indexer.core.models import Box
from indexer.evidence.claim_checks import MAX_CLAIMS, ClaimVerdict
from indexer.requests import (
    ClaimsRequest,
)
from mcp_server.briefs import box_text, enclosing
from mcp_server.evidence_app import SHOWS_EVIDENCE
from mcp_server.file_text import name_text
from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared, ToolDocs


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


def claims_text(result: ClaimsBrief) -> str:
    """One line per claim, in order: the verdict, the citation and what to do about it."""
    counts = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in result.counts.items())
    lines = [f"{len(result.checks)} claim(s): {counts}."]
    for check in result.checks:
        where = f"{name_text(check.document)} p.{check.page or check.requested_page}"
        line = f"[{check.claim}] {check.status.upper().replace('_', ' ')} {where} {check.quote!r}"
        if check.status == "verified" and check.bbox is not None:
            line += f" · box {box_text(check.bbox)}"
        if check.note and (check.status != "verified" or check.page != check.requested_page):
            line += f" · {check.note}"
        if check.context:
            line += f" · in: {check.context}"
        lines.append(line)
    return "\n".join(lines)


DOCS = ToolDocs(
    does=(
        "up to 50 figures checked in one call, one verdict per claim in order: verified, ambiguous, label not "
        "matched (in the claimed column, another row), elsewhere (where the figure really is), not found"
    ),
    arguments="`claims`: 1–50 of `{document, page, quote, label?, period?}`",
    returns=(
        "one verdict per claim, in order: `checks [{claim, document, requested_page, quote, status, page, "
        "match, matched_text, note, bbox, candidates}]` — `status` `verified`, `ambiguous` (the note names "
        "the candidates), `label_not_matched` (under the claimed period, in a row the label does not name: the note "
        "names it), `elsewhere` (the note says where the figure really is), `not_found`, `error` (an "
        "unknown document, a page out of range: the message) or `not_checked` (the call's 20 s ran out); "
        "`counts` per status; `full`: every candidate's boxes"
    ),
)


TOOL = Declared(
    "verify_claims",
    f"Verify up to {MAX_CLAIMS} figures or sentences at once, each as locate_quote (label, period optional): a "
    "verdict per claim, in order — verified, ambiguous, label_not_matched, elsewhere (where: the note), "
    "not_found, error. Use it on figures read off pages or hits; report unverified ones as such.",
    ClaimsBrief,
    request=ClaimsRequest,
    full=ClaimChecks,
    ui=SHOWS_EVIDENCE,
    forms={ClaimChecks: Form(lambda r, detail: claims_brief(r), lambda r, b: claims_text(b))},
    docs=DOCS,
)
