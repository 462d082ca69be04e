"""Sections from a filing's own table of contents: each entry's printed page resolved to a PDF page through the
folios (core/folios.py), and kept only where that page, or the one beside it, prints the entry's heading.

A contents page lists titles with page numbers ("Directors' report ........ 45", "45 Directors' report"); it is
never a section start itself. An entry whose heading is printed nowhere near its page is dropped: a contents page
that is wrong, or read wrong, adds nothing rather than a wrong start.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import pairwise

from indexer.core.folios import Folios
from indexer.core.models import Line
from indexer.core.text import normal_words

CONTENTS_PAGES = 12  # a report's contents are within its first pages
CONTENTS_ENTRIES = 3  # lines ending (or starting) in a page number that make a page a contents page
RISING_SHARE = 0.9  # without a "Contents" title, entries list pages in order (a statement's figures do not)
MAX_LINE_CHARS = 300  # a line compared with an entry's title is cut to this
RUNNING_SHARE = 0.5  # a line printed on more than this share of pages is furniture the parser left in the body
SLACK_PAGES = 20  # a printed page number past the document by more than this is a figure
MAX_TITLE_CHARS = 90
MIN_TITLE_LETTERS = 4
OFFSET_ENTRIES = 8  # entries whose headings are looked for everywhere when no page prints its number
AGREEING_ENTRIES = 2
NUMBER_PREFIX = 6  # characters a heading may print before the title: a section's number
INDENT_PT = (4.0, 60.0)  # an entry this much right of another of its page is indented under it (pt)
HEADING_SLACK = 25  # a heading line may carry this many characters more than the entry's title (a number, a year)
# The entries read, at most: 228 real filings list at most 90. Past it a "contents" is not one to follow entry by entry.
MAX_ENTRIES = 400
KEY_CHARS = 4  # a heading is looked up by the first characters of its title (at most NUMBER_PREFIX in), then checked
# An entry line is at most 300 characters (a longer one is prose): the patterns refuse longer text at once.
_TITLE_FIRST = re.compile(r"^(?=.{0,300}$)(?P<title>\D.*?\S)\s*(?:\.{3,}|…{2,}|\s)\s*(?P<page>\d{1,4})$")
_LEADER_END = re.compile(r"(?=.{0,300}$)(?:\s*(?:\.{3,}|…{2,}))$")
_PAGE_FIRST = re.compile(r"^(?P<page>\d{1,4})\s+(?P<title>[^\d\s].*)$")
_CONTENTS_TITLE = re.compile(r"^(?:table\s+of\s+)?contents$|^index$|^目\s*录$", re.I)
_DIGITS = re.compile(r"\d+")
_FOLIO_WORD = re.compile(r"\bpage\b", re.I)  # "Page | 2": a folio, not an entry


@dataclass(frozen=True)
class Entry:
    title: str
    printed: int
    nested: bool = False  # printed indented under an entry above it: a sub-section of that entry's section


@dataclass(frozen=True)
class Start:
    """A section start that a contents entry and a heading on the page agree on."""

    page: int
    line: int
    title: str
    nested: bool = False


def _entry(text: str) -> Entry | None:
    found = _TITLE_FIRST.match(text) or _PAGE_FIRST.match(text)
    if found is None:
        return None
    # a bullet starts an entry; text before it on the same line is another column's prose
    title = _LEADER_END.sub("", found.group("title")).rsplit("•", 1)[-1].strip(" .…·▪■–-")
    letters = sum(c.isalpha() for c in _FOLIO_WORD.sub("", title))
    if letters < MIN_TITLE_LETTERS or len(title) > MAX_TITLE_CHARS:
        return None
    return Entry(title=title, printed=int(found.group("page")))


def contents_entries(bodies: list[list[Line]]) -> tuple[list[int], list[Entry]]:
    """The contents pages among the first pages and their entries, in order."""
    pages: list[int] = []
    entries: list[Entry] = []
    for number, body in enumerate(bodies[:CONTENTS_PAGES], start=1):
        texts = [" ".join(line.text.split())[:200] for line in body]
        lefts = [line.box.x0 for line in body]
        read = [(entry, left) for text, left in zip(texts, lefts, strict=True) if (entry := _entry(text))]
        found = _nested([(entry, left) for entry, left in read if entry.printed <= len(bodies) + SLACK_PAGES])
        titled = any(_CONTENTS_TITLE.match(text) for text in texts[:6])
        rising = sum(a.printed <= b.printed for a, b in pairwise(found))
        if len(found) >= CONTENTS_ENTRIES and (titled or rising >= RISING_SHARE * (len(found) - 1)):
            pages.append(number)
            entries.extend(found)
    return pages, entries


def _nested(entries: list[tuple[Entry, float]]) -> list[Entry]:
    """The entries, each marked nested when another entry of the page starts a little to its left (an indented
    sub-section under its section: "Consolidated Operating Results" under "Management's Discussion and Analysis");
    a second column, far to the right of the first, is not nested. Only margins that two entries or more share
    count: a centred contents page starts each line elsewhere."""
    margins = Counter(round(left) for _, left in entries)
    shared = [margin for margin, count in margins.items() if count > 1]
    return [
        replace(entry, nested=round(left) in shared and any(INDENT_PT[0] <= left - m <= INDENT_PT[1] for m in shared))
        for entry, left in entries
    ]


class _Headings:
    """One page's lines as a heading is compared with them (each normalised once), indexed by the characters a
    title starts with: looking an entry up costs the lines that could match it, not every line of the page."""

    def __init__(self, body: list[Line]) -> None:
        plain = [normal_words(line.text[:MAX_LINE_CHARS]).replace(" ", "") for line in body]
        self.texts = [normal_words(line.text[:MAX_LINE_CHARS].rsplit("|", 1)[-1]).replace(" ", "") for line in body]
        self.following = [*plain[1:], ""]
        self.keys: dict[str, list[int]] = {}
        for index, text in enumerate(self.texts):
            joined = text + self.following[index]
            for key in {joined[at : at + KEY_CHARS] for at in range(NUMBER_PREFIX + 1)}:
                self.keys.setdefault(key, []).append(index)

    def find(self, title: str) -> int | None:
        """The line that prints ``title`` as a heading: the line, or it and the next, say the title's words (spaces
        aside: a display font's words often come out run together, "Chairman'sStatement"), or the last part of a
        breadcrumb heading ("STRATEGIC REPORT | CHAIRMAN'S STATEMENT"); a section's number may come first."""
        wanted = normal_words(title).replace(" ", "")
        if not wanted:
            return None
        if len(wanted) < KEY_CHARS:
            candidates: Iterable[int] = range(len(self.texts))
        else:
            candidates = sorted(set(self.keys.get(wanted[:KEY_CHARS], ())))
        for index in candidates:
            text = self.texts[index]
            if not text or len(text) > len(wanted) + HEADING_SLACK:
                continue
            numbered = text.endswith(wanted) and len(text) - len(wanted) <= NUMBER_PREFIX  # "04 Strategic report"
            if text.startswith(wanted) or numbered or (text + self.following[index]).startswith(wanted):
                return index
        return None


class _Pages:
    """The bodies' headings, each page indexed on first use."""

    def __init__(self, bodies: list[list[Line]]) -> None:
        self.bodies = bodies
        self._indexed: dict[int, _Headings] = {}

    def heading(self, page: int, title: str) -> int | None:
        if page not in self._indexed:
            self._indexed[page] = _Headings(self.bodies[page - 1])
        return self._indexed[page].find(title)


def _printed_lines(lines: list[list[Line]]) -> Counter[str]:
    """On how many pages each line is printed, its words compared without digits (one pass over the filing)."""
    counts: Counter[str] = Counter()
    for page in lines:
        counts.update({_DIGITS.sub("", normal_words(line.text[:MAX_LINE_CHARS])).strip() for line in page})
    return counts


def _running(printed: Counter[str], pages: int, title: str) -> bool:
    """A title printed as a whole line on most pages is the filing's running header or footer ("Annual Report 2022 |
    OFX Group", "Page | 3"), not a section. A section's own running header spans only its pages."""
    wanted = _DIGITS.sub("", normal_words(title)).strip()
    return not wanted or printed[wanted] > RUNNING_SHARE * pages


def _offset_from_headings(pages: _Pages, contents: list[int], entries: list[Entry]) -> Folios:
    """Where no page prints its number, the offset the entries' own headings agree on: each entry's heading
    looked for on every page past the contents, and an offset kept where at least two entries share it."""
    offsets: Counter[int] = Counter()
    first = max(contents, default=0)
    for entry in entries[:OFFSET_ENTRIES]:
        found = {page - entry.printed for page in range(first + 1, len(pages.bodies) + 1)
                 if pages.heading(page, entry.title) is not None}  # fmt: skip
        offsets.update(found)
    agreed = [(offset, count) for offset, count in offsets.most_common(1) if count >= AGREEING_ENTRIES]
    return Folios(printed={}, runs=[(1, agreed[0][0])] if agreed else [])


def contents_starts(lines: list[list[Line]], folios: Folios) -> list[Start]:
    """The section starts a filing's contents page gives, each confirmed by its heading on the page it names;
    ``lines``: each page's lines, furniture marked. Where the folios confirm fewer than half the entries (pages
    that print few numbers, or numbers that are not folios), the offset the headings agree on is tried too."""
    bodies = [[line for line in page if not line.furniture] for page in lines]
    contents, entries = contents_entries(bodies)
    printed = _printed_lines(lines)
    entries = [entry for entry in entries[:MAX_ENTRIES] if not _running(printed, len(lines), entry.title)]
    pages = _Pages(bodies)
    starts = _confirmed(pages, contents, entries, folios)
    if len(starts) < len(entries) / 2:
        by_headings = _confirmed(pages, contents, entries, _offset_from_headings(pages, contents, entries))
        starts = max(starts, by_headings, key=len)
    return sorted(set(starts), key=lambda s: (s.page, s.line))


def _confirmed(pages: _Pages, contents: list[int], entries: list[Entry], folios: Folios) -> list[Start]:
    starts: list[Start] = []
    for entry in entries:
        target = folios.pdf_page(entry.printed, len(pages.bodies))
        if target is None:
            continue
        for page in (target, target + 1, target - 1):
            if page in contents or not 1 <= page <= len(pages.bodies):
                continue
            if (line := pages.heading(page, entry.title)) is not None:
                starts.append(Start(page=page, line=line, title=entry.title, nested=entry.nested))
                break
    return starts
