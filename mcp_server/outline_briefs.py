"""The outline as the model reads it (`get_outline`): each section's key, title, pages and level, and the notes to the
financial statements folded into their notes section as one short line each (a 年报 lists some 90 附注 items: as
records they cost five times what the lines do). ``detail="full"`` gives every note as its own record."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import Outline
from indexer.evidence.outline import Section
from mcp_server.file_text import name_text

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
            )
        )  # fmt: skip
    return OutlineBrief(document=result.document, sections=briefs)
