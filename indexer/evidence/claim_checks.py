"""Many figures checked in one call: each claim ``{document, page, quote, label?, period?}`` located as one
``locate_quote`` call would (its own time budget), one verdict per claim in the order given.

A verdict says what an agent does next: ``verified`` (cite it), ``ambiguous`` (the figure fits several places: the
note names them; quote more of it or name the row/period), ``label_not_matched`` (in the claimed column, in a row
the label does not name: the note names the row), ``elsewhere`` (printed, but not where the claim puts it:
the note says where), ``not_found``, ``error`` (an unknown document, a page out of range: the message says what to
pass instead) or ``not_checked`` (the call's time ran out before this claim: ask again for the rest). One bad claim
never costs the others.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from indexer.core.errors import FilingsError
from indexer.core.models import Box
from indexer.evidence.claims import LABEL_NOT_MATCHED
from indexer.evidence.quotes import Located

logger = logging.getLogger(__name__)

MAX_CLAIMS = 50
CLAIMS_BUDGET_S = 20.0  # the whole call; each claim also has the single quote's own budget
QUOTE_ECHO_CHARS = 80

Status = Literal["verified", "ambiguous", "label_not_matched", "elsewhere", "not_found", "error", "not_checked"]


class Claim(BaseModel):
    """One figure or sentence as the agent states it, with where it cites it."""

    document: str = Field(max_length=1000, description="a name from list_documents")
    page: int = Field(ge=1, le=1_000_000, description="1-based page cited")
    quote: str = Field(min_length=1, max_length=2000, description="figure or text as printed, e.g. '394,328'")
    label: str | None = Field(default=None, max_length=200, description="its table row, e.g. 'Revenue'")
    period: str | None = Field(default=None, max_length=100, description="its column, e.g. '2022'")

    @field_validator("label", "period")
    @classmethod
    def _words_or_nothing(cls, value: str | None, info: ValidationInfo) -> str | None:
        """A blank label or period is none; one with no letter or digit ('()', '--') would match every row or
        column, so it is refused rather than ignored."""
        if value is None or not value.strip():
            return None
        if not any(char.isalnum() for char in value):
            raise ValueError(
                f"the {info.field_name} has no letter or digit, so it would match any "
                f"{'row' if info.field_name == 'label' else 'column'}; pass it as printed (e.g. "
                f"{'Revenue' if info.field_name == 'label' else '2022'}) or leave it out"
            )
        return value


class ClaimVerdict(BaseModel):
    """The verdict on one claim, without its boxes."""

    claim: int = Field(description="the claim's 1-based position in the call")
    document: str
    requested_page: int
    quote: str = Field(description="the claim's quote (cut beyond 80 characters)")
    status: Status
    page: int | None = Field(description="the page the match is on (a neighbouring one when the note says so)")
    match: str = Field(description="how it matched: exact, whitespace, numeric, table_cell … or none")
    matched_text: str
    note: str
    context: str = Field(
        default="", description="the table row (label: cells) or sentence the match is in, at most 200 characters"
    )


class ClaimCheck(ClaimVerdict):
    """The verdict on one claim, with every box of the match (or of each candidate)."""

    boxes: list[Box] = Field(serialization_alias="bboxes", description="the match's boxes (every candidate)")


def status_of(found: Located) -> Status:
    if found.verified:
        return "verified"
    if found.note.startswith("ambiguous"):
        return "ambiguous"
    if found.note.startswith(LABEL_NOT_MATCHED):
        return "label_not_matched"
    if found.match == "none" or not found.boxes:
        return "not_found"
    return "elsewhere"


def _check(number: int, claim: Claim, status: Status, note: str, found: Located | None = None) -> ClaimCheck:
    quote = claim.quote if len(claim.quote) <= QUOTE_ECHO_CHARS else claim.quote[: QUOTE_ECHO_CHARS - 1] + "…"
    return ClaimCheck(
        claim=number,
        document=claim.document,
        requested_page=claim.page,
        quote=quote,
        status=status,
        page=found.page if found else None,
        match=found.match if found else "none",
        matched_text=found.matched_text if found else "",
        note=note,
        context=found.context if found else "",
        boxes=found.boxes if found else [],
    )


def check_claims(
    locate: Callable[[str, int, str, str | None, str | None], Located],
    claims: list[Claim],
    budget_s: float = CLAIMS_BUDGET_S,
) -> list[ClaimCheck]:
    """One verdict per claim, in order; a claim that raises gets its message, the rest are still checked."""
    deadline = time.monotonic() + budget_s
    out = []
    for number, claim in enumerate(claims, start=1):
        if time.monotonic() >= deadline:
            note = f"not checked: the call's {budget_s:g} s ran out; verify this claim and the rest in another call"
            out.append(_check(number, claim, "not_checked", note))
            continue
        try:
            found = locate(claim.document, claim.page, claim.quote, claim.label, claim.period)
        except FilingsError as exc:
            out.append(_check(number, claim, "error", str(exc)))
            continue
        except ArithmeticError as exc:  # a figure beyond what the comparison can hold: this claim fails, not the call
            logger.warning("claim %d could not be compared: %r", number, exc)
            note = "error: the figure could not be compared with the page's figures; quote it as printed, e.g. '46,298'"
            out.append(_check(number, claim, "error", note))
            continue
        out.append(_check(number, claim, status_of(found), found.note, found))
    return out
