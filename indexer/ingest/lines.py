"""Group a page's text items into visual lines (pure geometry, no parser import)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from indexer.core.models import Box, Line, Span

# Two items share a line when their vertical extents overlap by at least this share of the shorter one.
_SAME_LINE_OVERLAP = 0.5
# A horizontal gap wider than this share of the line height becomes a space in the line text.
_SPACE_GAP = 0.15


@dataclass(frozen=True)
class RawItem:
    """A text item as a parser gives it: text and an x/y/width/height rectangle."""

    text: str
    x: float
    y: float
    width: float
    height: float
    rotation: float = 0.0  # degrees; 90/270 is text set vertically (a margin watermark, a rotated column head)


def _vertical(item: RawItem) -> bool:
    return round(item.rotation) % 180 != 0


def _overlap(a_top: float, a_bottom: float, b_top: float, b_bottom: float) -> float:
    return min(a_bottom, b_bottom) - max(a_top, b_top)


def _join(spans: list[Span]) -> str:
    parts: list[str] = []
    prev: Span | None = None
    for span in spans:
        if prev is not None:
            height = max(prev.box.bottom - prev.box.top, span.box.bottom - span.box.top, 1.0)
            if span.box.x0 - prev.box.x1 > _SPACE_GAP * height:
                parts.append(" ")
        parts.append(span.text)
        prev = span
    return "".join(parts)


def _span(item: RawItem, page: int) -> Span:
    box = Box(page=page, x0=item.x, top=item.y, x1=item.x + item.width, bottom=item.y + item.height)
    return Span(text=item.text.strip(), box=box)


def group_lines(items: Iterable[RawItem], page: int) -> list[Line]:
    """Return the page's lines top to bottom, each with its spans left to right and their union box.

    Text set vertically (an ASX "For personal use only" watermark down the margin) is a line of its own: its box
    spans the page's height, and joined to a row it would pull every row below into one line."""
    kept = [item for item in items if item.text.strip() and item.width >= 0 and item.height >= 0]
    spans = [_span(item, page) for item in kept if not _vertical(item)]
    spans.sort(key=lambda s: (s.box.top, s.box.x0))
    rows: list[list[Span]] = []
    row_bands: list[tuple[float, float]] = []
    for span in spans:
        placed = False
        # Only the last few rows can still overlap an item that starts lower on the page.
        for index in range(len(rows) - 1, max(len(rows) - 4, -1), -1):
            top, bottom = row_bands[index]
            shorter = max(min(bottom - top, span.box.bottom - span.box.top), 0.1)
            if _overlap(top, bottom, span.box.top, span.box.bottom) >= _SAME_LINE_OVERLAP * shorter:
                rows[index].append(span)
                row_bands[index] = (min(top, span.box.top), max(bottom, span.box.bottom))
                placed = True
                break
        if not placed:
            rows.append([span])
            row_bands.append((span.box.top, span.box.bottom))
    rows.extend([_span(item, page)] for item in kept if _vertical(item))
    lines: list[Line] = []
    for row in rows:
        row.sort(key=lambda s: s.box.x0)
        box = row[0].box
        for span in row[1:]:
            box = box.union(span.box)
        lines.append(Line(text=_join(row), box=box, spans=row))
    lines.sort(key=lambda line: (line.box.top, line.box.x0))
    return lines
