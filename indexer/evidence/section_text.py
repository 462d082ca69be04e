"""The text of one section of a filing's outline, read in pieces: which section a name means, its lines, and the
piece a cursor points at."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from indexer.core.errors import NotFoundError, shown
from indexer.core.models import Line
from indexer.core.text import normal_words
from indexer.evidence.outline import Section

SECTION_CHARS = 12_000  # characters of text read_section returns per call
NOTE_RUNS = 12  # runs of note keys an unknown section's error lists


def find_section(sections: list[Section], wanted: str) -> int:
    """The position of the section ``wanted`` names: its key ('7', '1A', 'Item 7', '第十节', 'balance_sheet'), or
    words of its title ('risk factors', '财务报告'); the first in reading order."""
    query = normal_words(wanted)
    bare = re.sub(r"^(?:item|part)\s+", "", query)
    for i, section in enumerate(sections):
        if normal_words(section.key) in (query, bare):
            return i
    for i, section in enumerate(sections):
        if query and query in normal_words(section.title):
            return i
    listed = ", ".join(f"{s.key} ({s.title[:40]})" for s in [s for s in sections if s.kind != "note"][:40])
    notes = note_keys(sections)
    raise NotFoundError(
        f"no section {shown(wanted)} in this document; its sections: {listed or 'none found'}"
        + (f"; its notes: {notes}" if notes else "")
    )


def note_keys(sections: list[Section], most: int = NOTE_RUNS) -> str:
    """The notes' keys in short: 'note_1–19, note_21–25, parent_note_1–6' (at most ``most`` runs)."""
    numbers: dict[str, list[int]] = {}
    for section in sections:
        prefix, _, digits = section.key.rpartition("_")
        if section.kind == "note" and prefix and digits.isdigit():
            numbers.setdefault(prefix, []).append(int(digits))
    runs: list[str] = []
    for prefix, found_numbers in numbers.items():
        start = previous = found_numbers[0]
        for number in [*found_numbers[1:], None]:
            if number is not None and number == previous + 1:
                previous = number
                continue
            runs.append(f"{prefix}_{start}" + (f"–{previous}" if previous > start else ""))
            if number is not None:
                start = previous = number
    return ", ".join(runs[:most]) + (", …" if len(runs) > most else "")


def section_lines(pages: list[list[Line]], sections: list[Section], position: int) -> list[tuple[int, Line]]:
    """(page, line) of the section's text: from its heading to the next heading at its level or above."""
    section = sections[position]
    following = next(
        (s for s in sections[position + 1 :] if s.level <= section.level and not _same_start(s, section)), None
    )  # two notes whose headings share a line (two columns run together) both read on to the next one
    out: list[tuple[int, Line]] = []
    last = min(following.page_start if following else len(pages), len(pages))  # a heading atop a page ends before it
    for number in range(section.page_start, last + 1):
        body = [line for line in pages[number - 1] if not line.furniture]
        start = section.line if number == section.page_start else 0
        stop = following.line if following is not None and number == following.page_start else len(body)
        out.extend((number, line) for line in body[start:stop])
    return out


def _same_start(one: Section, other: Section) -> bool:
    return (one.page_start, one.line) == (other.page_start, other.line)


class SectionText(BaseModel):
    """A piece of one section's text, with the pages it comes from; continue with ``next_cursor``."""

    document: str
    title: str
    key: str
    page_start: int = Field(description="the section's first page")
    page_end: int = Field(description="the section's last page")
    pages: list[int] = Field(description="the pages this piece's text comes from")
    text: str = Field(description="the text, each page's part headed [p.N]")
    next_cursor: str | None = Field(description="pass it as `cursor` for the rest; None when this is the end")


def section_piece(
    document: str, section: Section, lines: list[tuple[int, Line]], cursor: str | None, budget: int = SECTION_CHARS
) -> SectionText:
    """The part of ``lines`` (a section's) that starts at ``cursor`` and fits ``budget`` characters."""
    start = 0
    if cursor:
        if not re.fullmatch(r"[0-9]{1,9}", cursor) or int(cursor) >= max(len(lines), 1):  # '²' is a digit too
            raise NotFoundError(f"cursor {shown(cursor)} is not one this section gave; start again without a cursor")
        start = int(cursor)
    out: list[str] = []
    pages: list[int] = []
    used = 0
    position = start
    for position in range(start, len(lines)):
        number, line = lines[position]
        piece = (f"[p.{number}]\n" if number not in pages else "") + line.text
        if out and used + len(piece) + 1 > budget:
            break
        if number not in pages:
            pages.append(number)
        out.append(piece)
        used += len(piece) + 1
    else:
        position = len(lines)
    return SectionText(
        document=document, title=section.title, key=section.key, page_start=section.page_start,
        page_end=section.page_end, pages=pages, text="\n".join(out),
        next_cursor=str(position) if position < len(lines) else None,
    )  # fmt: skip
