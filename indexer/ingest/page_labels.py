"""Which part of a filing each page belongs to: the label that search routes questions to.

The outline (evidence/outline.py: Parts and Items in order, a 年报's 节, an annual report's own sections, the primary
statements and their notes) spans pages; a page takes the label of the deepest outline section over it, by the
section's kind or title (core/sections.py). Inside a section, a sub-heading that names a topic analysts ask about
(a segment note, income taxes, legal proceedings, executive officers, employees) labels the pages from it to the
next sub-heading; a numbered note about something else ends the topic. Pages no outline section covers (an
earnings release, a broker's note) take the first known heading on the page, carried over as before.
Certifications, signatures and exhibit indexes are recognised by their own text and marked boilerplate; a page of
definitions (a glossary, a list of abbreviations, a 年报's 释义) is labelled and marked glossary.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexer.core.models import BOILERPLATE, Page
from indexer.core.models import GLOSSARY as GLOSSARY_KIND
from indexer.core.sections import (
    GLOSSARY,
    LONG_SECTIONS,
    NUMBERED,
    boilerplate_page,
    find_heading,
    glossary_page,
    title_label,
    topic_heading,
)
from indexer.evidence.outline import Section, outline


@dataclass(frozen=True)
class PageLabel:
    section: str | None = None
    heading: str | None = None  # the heading of that section, as printed
    kind: str | None = None  # its chunks' kind when not body text: boilerplate, glossary


def _outline_label(section: Section) -> str | None:
    if section.kind == "statement":
        return section.key.split(".")[-1]  # balance_sheet, income_statement, cash_flow, equity, …
    if section.kind == "notes":
        return "notes"
    return title_label(section.title)


STATEMENT_PAGES = 3  # a primary statement's label lasts this many pages at most (an earnings release's tables follow)


def _deepest(sections: list[Section], number: int) -> Section | None:
    """The deepest outline section over page ``number`` (the one whose heading is on it, on a tie)."""
    over = [
        s for s in sections
        if s.page_start <= number <= s.page_end and (s.kind != "statement" or number < s.page_start + STATEMENT_PAGES)
    ]  # fmt: skip
    return max(over, key=lambda s: (s.level, s.page_start), default=None)


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
        elif current.section is not None and current.section not in LONG_SECTIONS:
            carried += 1
            if carried > 1:
                current = PageLabel()
        labels.append(current)
    return labels


def page_labels(pages: list[Page]) -> list[PageLabel]:
    """One label per page, in order."""
    sections = outline([page.lines for page in pages], contents=False)  # the contents' sections: not measured yet
    fallback = _fallback(pages)
    labels: list[PageLabel] = []
    topic = _Topic(None)
    for number, page in enumerate(pages, start=1):
        texts = [line.text for line in page.lines if not line.furniture]
        kind = boilerplate_page(texts)
        if kind is not None:
            labels.append(PageLabel(kind, None, BOILERPLATE))
            continue
        if glossary_page(texts):
            labels.append(PageLabel(GLOSSARY, None, GLOSSARY_KIND))
            continue
        section = _deepest(sections, number)
        if section is None:
            labels.append(fallback[number - 1])
            continue
        topic = topic.next_page(section)
        on_page, headed = topic, False
        for text in texts:
            is_heading, found = topic_heading(text)
            if is_heading:  # the page belongs to the first topic headed on it; the next page to the last heading
                topic = _Topic(section, found, text.strip() if found else None, numbered=_numbered(text))
                if found and not headed:
                    on_page, headed = topic, True
        labels.append(PageLabel(on_page.label or _outline_label(section), on_page.heading or section.title))
    return labels


@dataclass(frozen=True)
class _Topic:
    """The sub-heading in force: a numbered note's lasts to the next numbered note, an unnumbered sub-heading's
    ("Income Taxes" inside MD&A, whose other sub-headings are not known) to the end of the next page."""

    section: Section | None
    label: str | None = None
    heading: str | None = None
    numbered: bool = False
    pages: int = 0

    def next_page(self, section: Section) -> _Topic:
        if section is not self.section or (not self.numbered and self.pages >= 1):
            return _Topic(section)
        return _Topic(section, self.label, self.heading, self.numbered, self.pages + 1)


def _numbered(text: str) -> bool:
    return bool(NUMBERED.match(" ".join(text.split())))
