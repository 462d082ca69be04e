"""The catalogue at any size: every filing named while a listing is short, grouped by company past that.

A listing of at most :data:`NAMED_FILINGS` filings (the whole index of a small one, or a narrowed listing:
``company``, ``year``, ``form``, ``documents``) gives each filing's record. A longer one groups the filings by company
(the company's names once, then each filing as its form and period) and pages through the companies within
:data:`PAGE_CHARS` characters, with a cursor to go on and a summary of the whole (companies, forms, years, counts)
that says how to narrow it. A cursor holds where the next page starts and a fingerprint of the index version and
filters it was made for: a cursor from another listing, an older index or altered by hand is refused in one line.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

from indexer.answers import CompanyLine
from indexer.core.errors import QueryError, shown
from indexer.core.models import DocumentMeta

NAMED_FILINGS = 8  # a listing this short names every filing with its record (8 records fit the budget)
PAGE_CHARS = 1_000  # company lines of one page of a grouped listing, at most (the answer adds its head and summary)
LINE_CHARS = 40  # what a company's line adds to its names and filings, as JSON ({"company": …, "names": [], …})


@dataclass(frozen=True)
class CompanyFilings:
    """One company's line: its names, then each of its filings as form and period, newest first."""

    company: str
    names: tuple[str, ...]  # the other names it goes by here: tickers, stock code, English name
    filings: tuple[str, ...]

    @property
    def chars(self) -> int:
        return LINE_CHARS + len(self.company) + sum(len(n) + 3 for n in (*self.names, *self.filings))


@dataclass(frozen=True)
class Page:
    companies: tuple[CompanyFilings, ...]
    documents: tuple[DocumentMeta, ...]  # the filings of these companies
    next_cursor: str | None


def _item(meta: DocumentMeta) -> str:
    """A filing in a company's line: its form and period, and an 8-K's item numbers ('8-K 2023-05-03 (5.07)')."""
    period = meta.period or (f"FY{meta.year}" if meta.year else "")
    items = f"({', '.join(item.number for item in meta.items)})" if meta.items else ""
    return " ".join(part for part in (meta.form or "filing", period, items) if part)


def grouped(documents: list[DocumentMeta]) -> list[tuple[CompanyFilings, list[DocumentMeta]]]:
    """The filings by company (companies in name order, an unnamed one last), each company's newest first."""
    by_company: dict[str, list[DocumentMeta]] = {}
    for meta in documents:
        by_company.setdefault(meta.company or "(company not established)", []).append(meta)
    out = []
    for company in sorted(by_company, key=lambda name: (name.startswith("("), name.casefold())):
        filings = sorted(by_company[company], key=lambda m: (m.period_end or "", m.document), reverse=True)
        names = dict.fromkeys(
            n for m in filings for n in (*m.tickers, m.stock_code, m.english_name) if n and n != company
        )
        out.append((CompanyFilings(company, tuple(names), tuple(_item(m) for m in filings)), filings))
    return out


def fingerprint(version: str, filters: str) -> str:
    return hashlib.sha256(f"{version}\n{filters}".encode()).hexdigest()[:8]


def start_of(cursor: str | None, version: str, filters: str) -> int:
    """Where a page starts: 0 without a cursor; a :class:`QueryError` for one this listing did not give."""
    if cursor is None:
        return 0
    start, _, mark = cursor.partition(":")
    if not start.isdigit() or mark != fingerprint(version, filters):
        raise QueryError(
            f"the cursor {shown(cursor)} is not one this listing gave (another listing's, an older index's, or "
            "altered): call list_documents again without a cursor"
        )
    return int(start)


def page_of(documents: list[DocumentMeta], start: int, version: str, filters: str) -> Page:
    """The companies from ``start`` that fit :data:`PAGE_CHARS` (one at least), and the cursor to the rest."""
    groups = grouped(documents)
    chosen: list[tuple[CompanyFilings, list[DocumentMeta]]] = []
    used = 0
    for line, filings in groups[start:]:
        if chosen and used + line.chars > PAGE_CHARS:
            break
        chosen.append((line, filings))
        used += line.chars
    end = start + len(chosen)
    cursor = f"{end}:{fingerprint(version, filters)}" if end < len(groups) else None
    return Page(tuple(line for line, _ in chosen), tuple(m for _, filings in chosen for m in filings), cursor)


def summary(documents: list[DocumentMeta]) -> str:
    """The whole listing in one line: filings, companies, forms and years, with their counts."""
    forms = Counter(meta.form or "other" for meta in documents)
    years = sorted({meta.year for meta in documents if meta.year})
    span = f"{years[0]}–{years[-1]}" if len(years) > 1 else (str(years[0]) if years else "no year read")
    companies = len({meta.company for meta in documents})
    kinds = ", ".join(f"{form} {n}" for form, n in forms.most_common())
    held = f"{companies} compan{'y' if companies == 1 else 'ies'}"
    return f"{len(documents)} filings of {held} ({kinds}; fiscal years {span})"


def with_file_names(lines: list[CompanyLine], documents: tuple[DocumentMeta, ...]) -> list[CompanyLine] | None:
    """The companies' lines with each filing's file name ('10-K FY2022 [EBAY_2022_10K.pdf]'), in the order the page
    lists them, or None when the names would not fit a page."""
    names = iter(documents)
    named = [line.model_copy(update={"filings": [f"{item} [{next(names).document}]" for item in line.filings]})
             for line in lines]  # fmt: skip
    return named if sum(len(item) + 3 for line in named for item in line.filings) <= PAGE_CHARS else None
