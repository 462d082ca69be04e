"""The pieces every tool's compact answer is built from (mcp_server/tools/): a box as text, the box around a
passage's lines, a page citation, a text cut to its budget.

Some clients hand the model the text content, others (Claude Code) only ``structuredContent``. Both carry the same
compact answer by default; ``detail="full"`` adds the whole typed result under ``full``. Each tool module writes its
text from its brief, so the two never say different things.
"""

from __future__ import annotations

from collections.abc import Iterable

from indexer.core.models import WIRE_DECIMALS, Box

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


def page_citation(page: int, printed: int | None) -> str:
    """'p.160', or 'p.160, printed 158' where the page prints another number (cite the PDF page)."""
    return f"p.{page}" + (f", printed {printed}" if printed is not None else "")


def box_text(box: Box) -> str:
    """A box as a citation: ``p.19 [x0 36, top 120, x1 576, bottom 210]`` (PDF points, top-left origin), rounded
    from the coordinates structuredContent carries, so both renderings give the same box (322.5049 is 322.5 there,
    and 322 here, not 323)."""
    x0, top, x1, bottom = (round(v, WIRE_DECIMALS) for v in (box.x0, box.top, box.x1, box.bottom))
    return f"p.{box.page} [x0 {x0:.0f}, top {top:.0f}, x1 {x1:.0f}, bottom {bottom:.0f}]"
