"""Boxes of the query's terms and figures inside a hit, so a client can highlight without another call."""

from __future__ import annotations

import re
from bisect import bisect_left

import regex
from pydantic import BaseModel, Field

from indexer.core.budget import Budget
from indexer.core.geometry import HIT_LINE_PT
from indexer.core.models import Box, Line, Page
from indexer.core.text import CJK
from indexer.core.tokenize import Tokenizer, normalize_aligned, normalize_text
from indexer.evidence.quotes import PageText, digit_bounded
from indexer.index.store import PageLines

_FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?%?")


class Highlight(BaseModel):
    text: str = Field(description="a query term or figure as printed in the passage")
    box: Box = Field(serialization_alias="bbox")


def query_patterns(query: str, tokenizer: Tokenizer) -> list[regex.Pattern[str]]:
    """Figures (as printed, with digit boundaries checked later), English word stems, Chinese words."""
    patterns: list[regex.Pattern[str]] = []
    for figure in dict.fromkeys(_FIGURE.findall(normalize_text(query))):
        if len(re.sub(r"\D", "", figure)) >= 2:
            patterns.append(regex.compile(regex.escape(figure)))
    for token in dict.fromkeys(tokenizer.tokenize(query)):
        if CJK.search(token):
            if len(token) >= 2:
                patterns.append(regex.compile(regex.escape(token)))
        elif len(token) >= 3 and not token[0].isdigit():
            patterns.append(regex.compile(rf"(?<![a-z0-9]){regex.escape(token)}[a-z]*", regex.I))
    return patterns


class _HitLines:
    """Whether a box lies on one of the hit's lines (same baseline within HIT_LINE_PT, inside its x-range), by bisection
    over the lines' tops."""

    def __init__(self, lines: list[Box]) -> None:
        self._lines = sorted((line.top, line.x0, line.x1) for line in lines)
        self._tops = [top for top, _, _ in self._lines]

    def holds(self, x0: float, top: float, x1: float) -> bool:
        first = bisect_left(self._tops, top - HIT_LINE_PT)
        for line_top, line_x0, line_x1 in self._lines[first:]:
            if line_top - top >= HIT_LINE_PT:
                return False
            if abs(top - line_top) < HIT_LINE_PT and line_x0 - 1 <= x0 and x1 <= line_x1 + 1:
                return True
        return False


def _hit_page(page: PageLines, hit: _HitLines) -> Page:
    """The page with only the lines of the hit (the others are not built)."""
    lines = [
        Line.model_validate(line)
        for line in page.lines
        if hit.holds(line["box"]["x0"], line["box"]["top"], line["box"]["x1"])
    ]
    return Page.model_construct(  # every field given: a default factory costs an inspect.signature call here
        number=page.number, width=page.width, height=page.height, lines=lines, tables=[], regions=[]
    )


def find_highlights(
    page: PageLines, line_boxes: list[Box], patterns: list[regex.Pattern[str]], budget: Budget, limit: int
) -> list[Highlight]:
    """Matches of the patterns on the hit's own lines, one box per line they cover, in reading order, at most
    ``limit``; every match runs within the request's ``budget`` (a user's regex is one of the patterns)."""
    hit = _HitLines(line_boxes)
    text = PageText.build(_hit_page(page, hit))
    lowered = normalize_aligned(text.text)
    found: list[tuple[int, Highlight]] = []
    taken: list[tuple[int, int]] = []
    for pattern in sorted(patterns, key=lambda p: -len(p.pattern)):  # longest first: 营业收入 before 收入
        try:
            matches = list(pattern.finditer(lowered, timeout=budget.remaining()))
        except TimeoutError as exc:
            raise budget.exceeded() from exc
        for match in matches:
            start, end = match.span()
            if start == end:  # an empty match (x?, a lookahead) covers no text to highlight
                continue
            if any(start < e and s < end for s, e in taken) or not digit_bounded(lowered, start, end):
                continue
            boxes = [box for box in text.boxes(start, end) if hit.holds(box.x0, box.top, box.x1)]
            found.extend((start, Highlight(text=text.text[start:end], box=box)) for box in boxes)
            if boxes:
                taken.append((start, end))
            if len(found) >= limit:
                break
    return [h for _, h in sorted(found, key=lambda item: item[0])][:limit]
