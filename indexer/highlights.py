"""Boxes of the query's terms and figures inside a hit, so a client can highlight without another call."""

from __future__ import annotations

import re

from pydantic import BaseModel

from indexer.models import Box, Page
from indexer.quotes import PageText, digit_bounded
from indexer.tokenize import Tokenizer, normalize_aligned, normalize_text

MAX_HIGHLIGHTS = 40
_FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?%?")
_CJK = re.compile(r"[\u3400-\u9fff]")


class Highlight(BaseModel):
    text: str
    box: Box


def query_patterns(query: str, tokenizer: Tokenizer) -> list[re.Pattern[str]]:
    """Figures (as printed, with digit boundaries checked later), English word stems, Chinese words."""
    patterns: list[re.Pattern[str]] = []
    for figure in dict.fromkeys(_FIGURE.findall(normalize_text(query))):
        if len(re.sub(r"\D", "", figure)) >= 2:
            patterns.append(re.compile(re.escape(figure)))
    for token in dict.fromkeys(tokenizer.tokenize(query)):
        if _CJK.search(token):
            if len(token) >= 2:
                patterns.append(re.compile(re.escape(token)))
        elif len(token) >= 3 and not token[0].isdigit():
            patterns.append(re.compile(rf"(?<![a-z0-9]){re.escape(token)}[a-z]*", re.I))
    return patterns


def _inside(box: Box, lines: list[Box]) -> bool:
    return any(abs(box.top - line.top) < 1.5 and line.x0 - 1 <= box.x0 and box.x1 <= line.x1 + 1 for line in lines)


def find_highlights(page: Page, line_boxes: list[Box], patterns: list[re.Pattern[str]]) -> list[Highlight]:
    """Matches of the patterns on the hit's own lines, one box per line they cover, in reading order."""
    text = PageText.build(page, only=lambda line: _inside(line.box, line_boxes))
    lowered = normalize_aligned(text.text)
    found: list[tuple[int, Highlight]] = []
    taken: list[tuple[int, int]] = []
    for pattern in sorted(patterns, key=lambda p: -len(p.pattern)):  # longest first: 营业收入 before 收入
        for match in pattern.finditer(lowered):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken) or not digit_bounded(lowered, start, end):
                continue
            boxes = [box for box in text.boxes(start, end) if _inside(box, line_boxes)]
            found.extend((start, Highlight(text=text.text[start:end], box=box)) for box in boxes)
            if boxes:
                taken.append((start, end))
            if len(found) >= MAX_HIGHLIGHTS:
                break
    return [h for _, h in sorted(found, key=lambda item: item[0])][:MAX_HIGHLIGHTS]
