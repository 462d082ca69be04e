"""read_section: one section's text, page by page, in pieces continued with a cursor."""

from __future__ import annotations

from indexer.evidence.section_text import SECTION_CHARS, SectionText
from indexer.requests import (
    SectionRequest,
)
from mcp_server.file_text import name_text
from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared, ToolDocs


def section_text(piece: SectionText) -> str:
    span = f"p.{piece.page_start}–{piece.page_end}" if piece.page_end > piece.page_start else f"p.{piece.page_start}"
    more = (
        f"\n[continues: read_section with cursor={piece.next_cursor!r}]" if piece.next_cursor else "\n[end of section]"
    )
    return f"{name_text(piece.document)} · {name_text(piece.title)} ({span})\n{piece.text}{more}"


DOCS = ToolDocs(
    does=(
        "one section's text (by key such as `7`, `1A`, `第十节`, `balance_sheet`, or title words), each page "
        "marked, in pieces continued with a cursor"
    ),
    arguments=(
        "`document`, `section` (a key from `get_outline` — `7`, `1A`, `II.1`, `第十节`, `balance_sheet`, "
        "`note_8` — or words of a title), `cursor`"
    ),
    returns=(
        "`{document, title, key, page_start, page_end, pages, text, next_cursor}`: the section's text from "
        "its heading to the next heading at its level or above, each page's part headed `[p.N]`, at most "
        "12,000 characters per call"
    ),
)


TOOL = Declared(
    "read_section",
    f"Read one section by its get_outline key: its text, each page headed [p.N], up to {SECTION_CHARS:,} "
    "characters a call; pass next_cursor as `cursor` to go on.",
    SectionText,
    request=SectionRequest,
    forms={SectionText: Form(lambda r, detail: r, lambda r, b: section_text(r))},
    docs=DOCS,
)
