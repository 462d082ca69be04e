"""get_outline: a filing's sections from the headings printed in its body, each with its pages and key."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import (
    Outline,
)
from indexer.evidence.outline import Section
from indexer.requests import (
    OutlineRequest,
)
from mcp_server.file_text import name_text
from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared, ToolDocs

NOTE_TITLE_CHARS = 70  # a note's title (a heading run into the next column's text is longer)


class SectionBrief(BaseModel):
    key: str = Field(description="what read_section accepts")
    title: str
    level: int
    kind: str
    pages: str = Field(description="its pages: '45' or '45–52'")
    parent_only: bool = Field(description="the parent company's own statement or notes, not the group's")
    notes: list[str] = Field(
        description="the notes under it, one line each: 'note_8 · 8. Leases · 45–47' (read one with its key)"
    )
    periods: list[str] = Field(description="a primary statement's columns: '2023-06-30 3m/6m FY2023'")


class OutlineBrief(BaseModel):
    document: str
    sections: list[SectionBrief]


def pages_of(section: Section) -> str:
    end = section.page_end
    return f"{section.page_start}" + (f"–{end}" if end > section.page_start else "")


def note_line(note: Section) -> str:
    title = name_text(note.title[:NOTE_TITLE_CHARS])
    return f"{note.key} · {title} · {pages_of(note)}" + (" · parent company" if note.parent_only else "")


def outline_brief(result: Outline) -> OutlineBrief:
    """Each section once; a note goes into the notes list of the section it sits under (the nearest before it at a
    lower level), so the records stay the outline's sections."""
    briefs: list[SectionBrief] = []
    for section in result.sections:
        holder = next((b for b in reversed(briefs) if b.level < section.level), None)
        if section.kind == "note" and holder is not None:
            holder.notes.append(note_line(section))
            continue
        briefs.append(
            SectionBrief(
                key=section.key, title=section.title, level=section.level, kind=section.kind,
                pages=pages_of(section), parent_only=section.parent_only, notes=[],
                periods=section.periods,
            )
        )  # fmt: skip
    return OutlineBrief(document=result.document, sections=briefs)


def outline_text(result: Outline) -> str:
    if not result.sections:
        return f"{name_text(result.document)}: no Part/Item, 节 or statement headings found; read it with get_page."
    notes = sum(section.kind == "note" for section in result.sections)
    counted = f"{len(result.sections) - notes} sections" + (f" and {notes} notes" if notes else "")
    lines = [f"{name_text(result.document)}: {counted} (read one with read_section and its key)"]
    for section in result.sections:
        pages = f"p.{pages_of(section)}"
        title = name_text(section.title[:NOTE_TITLE_CHARS] if section.kind == "note" else section.title)
        parent = " · parent company" if section.parent_only and not section.key.startswith("parent_") else ""
        periods = f" · {'; '.join(section.periods)}" if section.periods else ""
        lines.append(f"{'  ' * (section.level - 1)}- [{section.key}] {title} · {pages}{parent}{periods}")
    return "\n".join(lines)


DOCS = ToolDocs(
    does=(
        "the filing's sections from the headings in its body: 10-K/10-Q Parts and Items, 年报 节, the primary "
        "statements and notes, with their pages"
    ),
    arguments="`document`, `detail` (`compact`, `full`)",
    returns=(
        "compact: `sections [{key, title, level, kind, pages, parent_only, notes, periods}]` (a primary "
        "statement's `periods` as get_financials reads its columns: `2023-06-30 3m/6m FY2023`), the notes to the "
        "financial statements folded into their notes section as one line each (`note_8 · 8. Leases · "
        "45–47`); `full`: `sections [{title, level, page_start, page_end, kind, key, parent_only}]`, each "
        "note its own record (`kind` `note`, key `note_8`; see [Outline and "
        "sections](#outline-and-sections)); `parent_only` marks the parent company's own statements and notes "
        "(母公司…)"
    ),
)


TOOL = Declared(
    "get_outline",
    "A document's outline from its headings: 10-K/10-Q Parts and Items, a 年报's 节, the statements and notes, "
    "each with its pages and a `key` for read_section.",
    OutlineBrief,
    request=OutlineRequest,
    full=Outline,
    forms={Outline: Form(lambda r, detail: outline_brief(r), lambda r, b: outline_text(r))},
    docs=DOCS,
)
