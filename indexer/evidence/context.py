"""What a located figure or phrase sits in: the table row (its label and cells) or the sentence around it, at most
CONTEXT_CHARS characters, so an agent that verified a figure sees what it is without reading the whole page."""

from __future__ import annotations

import re

from indexer.core.models import Box, Page, TableRow

CONTEXT_CHARS = 200
# Where a sentence ends: a full stop, question or exclamation mark before a space (not inside "1.5" or "U.S.A"),
# Chinese end punctuation, or a blank line.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z0-9(\"“‘$])|(?<=[。！？；])|\n\s*\n")


def row_context(row: TableRow) -> str:
    """A table row as ``label: cell | cell``, with the group it sits under ("Current assets › Inventories: …")."""
    label = f"{row.group} › {row.label}" if row.group else row.label
    cells = " | ".join(cell.text for cell in row.cells)
    return _cut(f"{label}: {cells}" if cells else label, 0, 0)


def _row_at(page: Page, box: Box) -> TableRow | None:
    """The table row of ``page`` whose own boxes hold the middle of ``box``."""
    x, y = (box.x0 + box.x1) / 2, (box.top + box.bottom) / 2
    for table in page.tables:
        if not (table.box.top - 1 <= y <= table.box.bottom + 1):
            continue
        for row in table.rows:
            if any(b.x0 - 1 <= x <= b.x1 + 1 and b.top - 1 <= y <= b.bottom + 1 for b in row.boxes):
                return row
    return None


def match_context(page: Page, text: str, start: int, end: int, boxes: list[Box]) -> str:
    """The context of ``text[start:end]`` on ``page`` (``boxes``: the match's): the row of a table it is printed
    in, else the sentence that holds it, cut around the match to CONTEXT_CHARS."""
    row = _row_at(page, boxes[0]) if boxes else None
    if row is not None:
        return row_context(row)
    begin = 0
    for found in _SENTENCE_END.finditer(text, 0, start):
        begin = found.end()
    after = _SENTENCE_END.search(text, end)
    finish = after.start() if after else len(text)
    sentence = text[begin:finish]
    return _cut(sentence, start - begin, end - begin)


def _cut(text: str, start: int, end: int) -> str:
    """``text`` on one line, cut to CONTEXT_CHARS around [start, end) with an ellipsis where it was cut."""
    flat = " ".join(text.split())
    if len(flat) <= CONTEXT_CHARS:
        return flat
    # the match's place in the flattened text: count the characters kept before it
    before = len(" ".join(text[:start].split()))
    width = max(end - start, 0)
    room = max(CONTEXT_CHARS - width - 2, 0)
    left = max(0, min(before - room // 2, len(flat) - (CONTEXT_CHARS - 2)))
    piece = flat[left : left + CONTEXT_CHARS - 2]
    return ("…" if left > 0 else "") + piece + ("…" if left + len(piece) < len(flat) else "")
