"""Which part of a filing each passage belongs to: the label that search routes questions to.

The outline (evidence/outline.py: Parts and Items in order, a 年报's 节, an annual report's own sections, the primary
statements and their notes) runs from heading to heading; a line takes the label of the deepest outline section over
it, by the section's kind or title (core/sections.py). Inside a section, a sub-heading that names a topic analysts
ask about (a segment note, income taxes, legal proceedings, executive officers, employees) labels the lines from it
to the next sub-heading; a numbered note about something else ends the topic. A page's lines are cut into spans
where the label changes, and the chunker never joins two spans into one passage. Pages no outline section covers
(an earnings release, a broker's note) take the first known heading on the page, carried over as before.
Certifications, signatures and exhibit indexes are recognised by their own text and marked boilerplate; a page of
definitions (a glossary, a list of abbreviations, a 年报's 释义) is labelled and marked glossary.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexer.core.geometry import ROW_IN_PASSAGE_PT
from indexer.core.models import BOILERPLATE, Line, Page
from indexer.core.models import GLOSSARY as GLOSSARY_KIND
from indexer.core.sections import (
    GLOSSARY,
    NARRATIVE,
    NUMBERED,
    boilerplate_page,
    discussion_subheading,
    find_heading,
    glossary_page,
    long_sections,
    title_label,
    topic_heading,
)
from indexer.core.statement_names import STATEMENT_LABEL_PAGES
from indexer.evidence.notes import document_outlines
from indexer.evidence.outline import Section


@dataclass(frozen=True)
class PageLabel:
    section: str | None = None
    heading: str | None = None  # the heading of that section, as printed
    kind: str | None = None  # its chunks' kind when not body text: boilerplate, glossary


def _outline_label(section: Section) -> str | None:
    if section.kind == "statement":
        return section.key.split(".")[-1]  # balance_sheet, income_statement, cash_flow, equity, …
    if section.kind == "note":  # its topic where it is one analysts ask about ("Note 8. Income tax": tax)
        return topic_heading(section.title)[1] or "notes"
    if section.kind == "notes":
        return "notes"
    return title_label(section.title)


Position = tuple[int, int]  # (1-based page, index of a line among the page's body lines)
_END: Position = (1 << 30, 0)


@dataclass(frozen=True)
class Span:
    """A page's body lines (its non-furniture lines) from ``start`` to the next span's start, and their label."""

    start: int
    label: PageLabel


def _extents(sections: list[Section]) -> list[tuple[Position, Position]]:
    """Where each section runs: from its heading's line to the heading of the next section at its level or above
    (the outline lists them in reading order)."""
    extents = []
    for i, section in enumerate(sections):
        following = next((s for s in sections[i + 1 :] if s.level <= section.level), None)
        end = _END if following is None else (following.page_start, following.line)
        extents.append(((section.page_start, section.line), end))
    return extents


def _deepest(
    sections: list[Section], extents: list[tuple[Position, Position]], at: Position
) -> tuple[Section | None, str | None]:
    """The deepest outline section over a line (the one whose heading came last, on a tie), and the label of the
    deepest one over it that has a label: a sub-section with no label of its own ("Consolidated Operating Results",
    indented under "Management's Discussion and Analysis" in the contents) is part of its section."""
    over = [
        (s, start) for s, (start, end) in zip(sections, extents, strict=True)
        if start <= at < end and (s.kind != "statement" or at[0] < s.page_start + STATEMENT_LABEL_PAGES)
    ]  # fmt: skip
    deepest_first = [s for s, _ in sorted(over, key=lambda item: (item[0].level, item[1]), reverse=True)]
    label = next((found for s in deepest_first if (found := _outline_label(s))), None)
    return (deepest_first[0] if deepest_first else None), label


def _fallback(pages: list[Page]) -> list[PageLabel]:
    """Labels from each page's first known heading; a statement's label lasts one more page, a long part's until
    the next heading."""
    labels = []
    current = PageLabel()
    carried = 0
    for page in pages:
        found = find_heading(page.lines)
        if found is not None:
            current, carried = PageLabel(*found), 0
        elif current.section is not None and current.section not in long_sections():
            carried += 1
            if carried > 1:
                current = PageLabel()
        labels.append(current)
    return labels


def passage_labels(pages: list[Page], sections: list[Section] | None = None) -> list[list[Span]]:
    """Each page's body lines in spans of one label, in order. A label changes where an outline section or a
    topic's sub-heading starts, on whatever line it is printed (Item 3 begins half-way down the page that Item 2
    began), so a passage takes the label of the part of the filing it is printed in. ``sections``: the outline the
    tools show (an annual report's sections from its contents page, nested as it indents them, each note of the
    notes an entry), computed here when not given."""
    if sections is None:
        sections = document_outlines([page.lines for page in pages]).sections
    extents = _extents(sections)
    starts: dict[int, set[int]] = {}
    for heading in sections:
        starts.setdefault(heading.page_start, set()).add(heading.line)
    fallback = _fallback(pages)
    out: list[list[Span]] = []
    topic = _Topic(None)
    bodies = [[line for line in page.lines if not line.furniture] for page in pages]
    for number, page in enumerate(pages, start=1):
        texts = [line.text for line in bodies[number - 1]]
        kind = boilerplate_page(texts)
        if kind is not None:
            out.append([Span(0, PageLabel(kind, None, BOILERPLATE))])
            continue
        if glossary_page(texts):
            out.append([Span(0, PageLabel(GLOSSARY, None, GLOSSARY_KIND))])
            continue
        section, own = _deepest(sections, extents, (number, 0))  # own: the section's label
        topic = topic.next_page(section)
        spans: list[Span] = []
        rows = _table_row_tops(page)
        for line, text in enumerate(texts):
            if line > 0 and line in starts.get(number, ()):
                section, own = _deepest(sections, extents, (number, line))
                topic = _Topic(section)
            if section is None:
                label = fallback[number - 1]
            else:
                is_heading, found = topic_heading(text)
                if is_heading:  # to the next sub-heading (a numbered note), or to the end of the next page
                    topic = _Topic(section, found, text.strip() if found else None, numbered=_numbered(text))
                elif own == NARRATIVE and _discussion_heading(texts, line, rows, bodies[number - 1]):
                    topic = _Topic(section, None, text.strip())  # still MD&A, under its own sub-heading
                label = PageLabel(topic.label or own, topic.heading or section.title)
            if not spans or spans[-1].label != label:
                spans.append(Span(line, label))
        out.append(_joined(spans, texts) or [Span(0, fallback[number - 1])])
    return out


def _table_row_tops(page: Page) -> list[float]:
    return [row.boxes[0].top for table in page.tables for row in table.rows if row.boxes]


def _discussion_heading(texts: list[str], line: int, rows: list[float], body: list[Line]) -> bool:
    """A sub-heading of the MD&A's own (core/sections.py's discussion_subheading), not a table's row label."""
    below = texts[line + 1] if line + 1 < len(texts) else None
    if not discussion_subheading(texts[line], below):
        return False
    return not any(abs(body[line].box.top - top) < ROW_IN_PASSAGE_PT for top in rows)


MIN_SPAN_CHARS = 120  # a span with less text is a heading or a running header: it joins the passage below it


def _joined(spans: list[Span], texts: list[str]) -> list[Span]:
    """The spans with those of too little text to be a passage joined to the next (the last one to the one before):
    a page's running header ("Table of Contents") or a Part's heading over an Item's is no passage of its own."""
    if not spans:
        return spans
    ends = [span.start for span in spans[1:]] + [len(texts)]
    kept: list[Span] = []
    start: int | None = None  # where the short spans waiting to join the next one begin
    for span, end in zip(spans, ends, strict=True):
        if end < len(texts) and sum(len(t) for t in texts[span.start : end]) < MIN_SPAN_CHARS:
            start = span.start if start is None else start
            continue
        kept.append(Span(span.start if start is None else start, span.label))
        start = None
    if len(kept) > 1 and sum(len(t) for t in texts[kept[-1].start :]) < MIN_SPAN_CHARS:
        kept.pop()
    return [span for i, span in enumerate(kept) if i == 0 or span.label != kept[i - 1].label]


@dataclass(frozen=True)
class _Topic:
    """The sub-heading in force: a numbered note's lasts to the next numbered note, an unnumbered sub-heading's
    ("Income Taxes" inside MD&A, whose other sub-headings are not known) to the end of the next page."""

    section: Section | None
    label: str | None = None
    heading: str | None = None
    numbered: bool = False
    pages: int = 0

    def next_page(self, section: Section | None) -> _Topic:
        if section is not self.section or (not self.numbered and self.pages >= 1):
            return _Topic(section)
        return _Topic(section, self.label, self.heading, self.numbered, self.pages + 1)


def _numbered(text: str) -> bool:
    return bool(NUMBERED.match(" ".join(text.split())))
