"""The page numbers a filing prints on its pages (folios), and the PDF page each printed number is on.

A folio is a number at either end of a page's running header or footer, or of its first or last line ("12",
"Page 12", "- 12 -", "12 | Downer EDI Limited", "Annual Report 2022 12"). One page may print several numbers there
(a year, a date, a note number); the folio is the one that keeps a constant offset to the PDF page over a run of
pages, where a page beside it prints the number that goes with it. Printed
numbers between runs take the offset of the run before them: cover and front matter often go unnumbered.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass

from indexer.core.models import Line

RUN_PAGES = 3  # pages sharing one offset before it is believed
NEIGHBOUR = 2  # a folio counts where a page this near prints the number that follows on from it
MAX_FOLIO = 2000
_EDGE_NUMBER = re.compile(r"^(?:page\s+)?(\d{1,4})\b|\b(\d{1,4})$", re.I)
_YEAR = re.compile(r"(?:19|20)\d\d")


@dataclass(frozen=True)
class Folios:
    """Printed page numbers and the PDF pages they are on."""

    printed: dict[int, int]  # PDF page → the folio it prints
    runs: list[tuple[int, int]]  # (first printed number of a run, offset: PDF page minus printed number), sorted

    def pdf_page(self, printed: int, pages: int) -> int | None:
        """The PDF page that prints ``printed``, or that would by the offset of its run; None past the document."""
        found = next((page for page, folio in self.printed.items() if folio == printed), None)
        if found is None and self.runs:
            at = bisect_right([first for first, _ in self.runs], printed) - 1
            found = printed + self.runs[max(at, 0)][1]
        return found if found is not None and 1 <= found <= pages else None


def _numbers(lines: list[Line]) -> set[int]:
    """Numbers printed at either end of a page's running header or footer, or of its first or last line, years
    aside."""
    edges = [line for line in lines if line.furniture] + lines[:1] + lines[-1:]
    found: set[int] = set()
    for line in edges:
        text = " ".join(line.text.split())[:200].strip(" -–—|•·")
        for piece in (text[:12], text[-12:]):
            m = _EDGE_NUMBER.search(piece)
            number = (m.group(1) or m.group(2)) if m else ""
            if number and not _YEAR.fullmatch(number) and 0 < int(number) <= MAX_FOLIO:
                found.add(int(number))
    return found


def _in_order(printed: dict[int, int]) -> dict[int, int]:
    """The longest run of folios that rise with the PDF pages: an exhibit numbered from 1 again at the end, or a
    stray number, drops out (patience sorting, n log n)."""
    pages = sorted(printed)
    tails: list[int] = []  # the smallest last folio of a rising run of each length
    tail_at: list[int] = []  # the index of that folio's page
    back = [-1] * len(pages)
    for index, page in enumerate(pages):
        at = bisect_left(tails, printed[page])
        back[index] = tail_at[at - 1] if at else -1
        if at == len(tails):
            tails.append(printed[page])
            tail_at.append(index)
        else:
            tails[at], tail_at[at] = printed[page], index
    kept: dict[int, int] = {}
    index = tail_at[-1] if tail_at else -1
    while index != -1:
        kept[pages[index]] = printed[pages[index]]
        index = back[index]
    return dict(sorted(kept.items()))


def read_folios(pages: list[list[Line]]) -> Folios:
    """The folio of every page that prints one, where at least ``RUN_PAGES`` pages share its offset."""
    candidates = {number: _numbers(lines) for number, lines in enumerate(pages, start=1)}
    offsets = Counter(page - n for page, numbers in candidates.items() for n in numbers)
    believed = {offset for offset, count in offsets.items() if count >= RUN_PAGES}
    printed: dict[int, int] = {}
    for page, numbers in candidates.items():
        near = [candidates.get(page + step, set()) for step in (-NEIGHBOUR, -1, 1, NEIGHBOUR)]
        fitting = [
            n
            for n in numbers
            if page - n in believed
            and any(
                n + (page_near - page) in found
                for page_near, found in zip((page - NEIGHBOUR, page - 1, page + 1, page + NEIGHBOUR), near, strict=True)
            )
        ]
        if fitting:
            printed[page] = max(fitting, key=lambda n: offsets[page - n])
    printed = _in_order(printed)
    runs: dict[int, int] = {}
    for page in sorted(printed):
        offset = page - printed[page]
        if not runs or list(runs.values())[-1] != offset:
            runs[printed[page]] = offset
    return Folios(printed=printed, runs=sorted(runs.items()))


FolioRun = tuple[int, int, int]  # (first PDF page, last PDF page, PDF page minus the number printed on it)


def folio_runs(folios: Folios) -> list[FolioRun]:
    """The pages that print a folio, as runs of consecutive folios with one offset (a few per document, kept in
    its metadata so a search hit can name the page number printed on it without reading its neighbours)."""
    runs: list[list[int]] = []
    for page, folio in sorted(folios.printed.items()):
        offset = page - folio
        if runs and runs[-1][2] == offset:
            runs[-1][1] = page
        else:
            runs.append([page, page, offset])
    return [(first, last, offset) for first, last, offset in runs]


def printed_page(runs: list[FolioRun], page: int) -> int | None:
    """The number printed on PDF ``page``, where a run of folios covers it."""
    for first, last, offset in runs:
        if first <= page <= last:
            return page - offset
    return None


def other_printed_page(runs: list[FolioRun], page: int) -> int | None:
    """The number printed on PDF ``page`` where it is not ``page`` itself (what a citation names beside it)."""
    printed = printed_page(runs, page)
    return printed if printed != page else None
