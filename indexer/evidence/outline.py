"""A filing's outline from the headings printed in its body (the text of one section: section_text.py).

Headings are short lines that start a Part or an Item of a 10-K/10-Q (``PART II``, ``Item 7. Management's …``), a
节 of a 年报 (``第三节 公司业务概要``), or a primary statement (``CONSOLIDATED BALANCE SHEETS``, ``合并利润表``).
What is not a heading: a contents page (its heading lines end in page numbers), a running header (furniture), a
cross-reference that happens to start a line ("Item 7. … of this report" inside Item 1A). Parts, Items and 节 come
in order in a filing, so of the candidate lines the longest run in increasing order is kept — a cross-reference
or a stray contents line breaks that order and drops out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel, Field

from indexer.core.folios import read_folios
from indexer.core.models import Line
from indexer.core.sections import report_key
from indexer.core.statement_names import PRIMARY
from indexer.core.text import ENDS_WITH_PAGE_REF, normal_words
from indexer.data.vocabulary import vocabulary
from indexer.evidence.contents import contents_starts
from indexer.evidence.statement_content import concepts_on, page_kind

_PART = re.compile(r"^PART\s+(IV|I{1,3})\b(?![,;])[\s.:—–-]*(.*)$", re.I)  # "Part I, Item 1A …" is a reference
_ITEM = re.compile(r"^ITEM\s*(\d{1,2})([A-C])?\b(?!\s*[,;])\s*[.:—–-]?\s*(.*)$", re.I)  # "Item 7, …": a reference
_CHAPTER = re.compile(r"^第\s*([一二三四五六七八九十]+)\s*节\s*(.*)$")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4}
_CN_DIGITS = {c: i for i, c in enumerate("一二三四五六七八九", start=1)}
_GROUP_WORD = re.compile(r"consolidated|combined|\bgroup\b|合并|母公司", re.I)
# A primary statement's heading is a whole line: the statement's title, perhaps "(unaudited)" or "(continued)" after.
_AFTER = r"\s*(?:[(（][^)）]{0,40}[)）]\s*)*[.:]?$"
MAX_KEY_CHARS = 40
MAX_PART_CHARS, MAX_ITEM_CHARS, MAX_CHAPTER_CHARS, MAX_REPORT_CHARS = 70, 160, 40, 80
MENTION_CONCEPTS = 2  # a statement heading over pages printing fewer of its rows than this is a mention
STATEMENT_GAP = 6  # pages within which the primary statements and their notes follow one another
LISTED_ITEMS = 6  # a page listing this many Items and no sentence between them is a contents page
_SENTENCE = re.compile(r"[a-z)]\.$|\b(?:none|not applicable)\.?$", re.I)  # body text ends a sentence; 'None.'
CONTENTS_LINES = 3  # a page with this many heading lines that end in page numbers is a contents page


class Section(BaseModel):
    """One heading of the outline and the pages its section spans."""

    title: str = Field(description="the heading as printed, e.g. 'Item 7. Management's Discussion and Analysis …'")
    level: int = Field(
        description="1 Part / 节, 2 Item (or a statement in a 年报), 3 a statement inside an Item; a note one level "
        "below its notes; an annual report's section listed indented under another in its contents, one level below it"
    )
    page_start: int
    page_end: int
    kind: str = Field(
        description="part, item, chapter (节), report (an annual report's own section), statement, notes (or a "
        "part of a 年报's 附注) or note (one note to the financial statements)"
    )
    key: str = Field(description="what read_section accepts: '7', '1A', 'II', '第十节', 'balance_sheet', 'note_8'…")
    parent_only: bool = Field(
        default=False, description="the parent company's own statement or notes (母公司…), not the group's"
    )
    periods: list[str] = Field(
        default_factory=list,
        description="a primary statement's columns as get_financials reads them: '2023-06-30 3m/6m FY2023'",
    )
    line: int = Field(default=0, exclude=True, description="the heading's line among the page's body lines")


@dataclass(frozen=True)
class _Candidate:
    page: int
    line: int
    title: str
    kind: str
    key: str
    rank: tuple[int, int, int]
    depth: int = 0  # a report's section listed indented under another in its contents: one level below it


def _chinese_number(text: str) -> int:
    """一 … 九十九 as a number (节 are numbered in Chinese)."""
    if "十" not in text:
        return _CN_DIGITS.get(text, 0)
    tens, _, units = text.partition("十")
    return (_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + _CN_DIGITS.get(units, 0)


def _candidates(number: int, body: list[Line], part: int) -> tuple[list[_Candidate], int, int]:
    """Heading candidates of one page (its body lines), the Part in force after it, and how many of its heading
    lines end in a page number (a contents page has several)."""
    found: list[_Candidate] = []
    refs = 0
    for index, line in enumerate(body):
        text = " ".join(line.text.split())
        if (m := _PART.match(text)) and len(text) <= MAX_PART_CHARS:
            kind, key, rank = "part", m.group(1).upper(), (_ROMAN[m.group(1).upper()], 0, 0)
            part = rank[0]
        elif (m := _ITEM.match(text)) and len(text) <= MAX_ITEM_CHARS:
            letter = m.group(2).upper() if m.group(2) else ""
            kind, key = "item", f"{int(m.group(1))}{letter}"
            # an Item before any Part heading is Part I's (a 10-K that prints no "PART I" over Item 1)
            rank = (max(part, 1), int(m.group(1)), ord(letter) - 64 if letter else 0)
        elif (m := _CHAPTER.match(text)) and len(text) <= MAX_CHAPTER_CHARS:
            kind, key, rank = "chapter", f"第{m.group(1)}节", (_chinese_number(m.group(1)), 0, 0)
        else:
            continue
        if ENDS_WITH_PAGE_REF.search(text):
            refs += 1
            continue
        if text.endswith((",", ";")):
            continue  # a sentence that goes on ("… in Item 7. Management's Discussion and Analysis,"): a reference
        found.append(_Candidate(number, index, text, kind, key, rank))
    return found, part, refs


def _in_order(candidates: list[_Candidate]) -> list[_Candidate]:
    """The longest subsequence with strictly increasing ranks (earliest lines on ties): the real headings."""
    if not candidates:
        return []
    best = [1] * len(candidates)
    previous = [-1] * len(candidates)
    for i, current in enumerate(candidates):
        for j in range(i):
            if candidates[j].rank < current.rank and best[j] + 1 > best[i]:
                best[i], previous[i] = best[j] + 1, j
    end = max(range(len(candidates)), key=lambda i: (best[i], -i))
    chain = []
    while end != -1:
        chain.append(candidates[end])
        end = previous[end]
    return chain[::-1]


def _reports(bodies: list[list[Line]]) -> list[_Candidate]:
    """The sections of an annual report laid out by its own headings (Strategic report, Directors' report,
    Management's discussion and analysis, Independent auditor's report …): a whole line, capitalised, outside the
    contents pages, each at its first page."""
    found: dict[str, _Candidate] = {}
    for number, body in enumerate(bodies, start=1):
        texts = [" ".join(line.text.split()) for line in body]
        if sum(bool(ENDS_WITH_PAGE_REF.search(text)) for text in texts) >= CONTENTS_LINES:
            continue
        for index, text in enumerate(texts):
            if len(text) > MAX_REPORT_CHARS or not text[:1].isupper():
                continue
            key = report_key(text)
            if key is not None and key not in found:
                found[key] = _Candidate(number, index, text, "report", key, (0, 0, 0))
    return sorted(found.values(), key=lambda c: (c.page, c.line))


def _report_sections(pages: list[list[Line]], bodies: list[list[Line]]) -> list[_Candidate]:
    """An annual report's own sections: those its contents page lists, each where its heading is printed on the
    page the contents give (evidence/contents.py), then its usual sections found by their titles where the
    contents list none. The statements and notes are found by their own headings."""
    titled = _reports(bodies)
    on_page = {c.page: c.key for c in titled}  # a usual title on the listed page names it ("Financial Review")
    listed: dict[str, _Candidate] = {}
    for start in contents_starts(pages, read_folios(pages)):
        statement = statement_title(start.title)
        usual = report_key(start.title) or on_page.get(start.page)
        key = usual if usual and usual not in listed else normal_words(start.title).replace(" ", "_")[:MAX_KEY_CHARS]
        key = statement or key
        if key not in listed:
            kind = "report" if statement is None else "notes" if statement == "notes" else "statement"
            depth = int(start.nested and kind == "report")
            listed[key] = _Candidate(start.page, start.line, start.title, kind, key, (0, 0, 0), depth)
    starts = {c.page for c in listed.values()}
    titled = [c for c in titled if c.key not in listed and c.page not in starts]
    return sorted([*listed.values(), *titled], key=lambda c: (c.page, c.line))


def _listed_statements(listed: list[_Candidate], found: list[_Candidate]) -> list[_Candidate]:
    """Statements found by their headings, and those only the contents page gives (a heading whose words run
    together, "StatementofFinancialPosition")."""
    have = {c.key for c in found}
    pages = {c.page for c in found}
    return sorted([*found, *(c for c in listed if c.key not in have and c.page not in pages)], key=_position)


def _position(candidate: _Candidate) -> tuple[int, int]:
    return candidate.page, candidate.line


@cache
def _statement_titles() -> list[tuple[str, re.Pattern[str]]]:
    """(statement, pattern) of each statement's titles in the vocabulary as a whole line: "Consolidated" (or 合并,
    母公司, which a Chinese title needs) before, "(continued)" after."""
    words = vocabulary()
    before, before_zh = words.statement_titles.before, words.statement_titles.before_zh
    found = [(label, rf"^{before}(?:{'|'.join(s.titles)}){_AFTER}") for label, s in words.statements.items()]
    found += [
        (label, rf"^{before_zh}(?:{'|'.join(s.titles_zh)}){_AFTER}")
        for label, s in words.statements.items()
        if s.titles_zh
    ]
    return [(label, re.compile(pattern, re.I)) for label, pattern in found]


def statement_title(text: str) -> str | None:
    """The primary statement (or "notes") a whole line is the heading of: balance_sheet, income_statement, …"""
    return next((label for label, pattern in _statement_titles() if pattern.match(text)), None)


# A page's own number printed beside a running title, set off by a bar: "Notes to the financial statements | 65",
# "66 | Downer EDI Limited". A contents page sets its numbers off with dot leaders or space, not a bar.
_BARRED_FOLIO = re.compile(r"(?<!\s)\s+\|\s+\d{1,4}$|^\d{1,4}\s+\|\s+")  # a run of spaces is tried once


def _statements(pages: list[list[Line]], taken: set[tuple[int, int]]) -> list[_Candidate]:
    """The first page of each primary statement and of the notes (each distinct heading once)."""
    found: list[_Candidate] = []
    for number, body in enumerate(pages, start=1):
        for index, line in enumerate(body):
            text = _BARRED_FOLIO.sub("", " ".join(line.text.split()))
            label = statement_title(text)
            if label is None or (number, index) in taken or ENDS_WITH_PAGE_REF.search(text) or text[:1].islower():
                continue  # a heading starts with a capital: "… in the consolidated statements of cash flows." goes on
            kind = "notes" if label == "notes" else "statement"
            found.append(_Candidate(number, index, text, kind, label, (0, 0, 0)))
            break  # one statement heading per page: the rest are its own sub-headings
    if any(_GROUP_WORD.search(c.title) for c in found if c.kind == "statement"):
        # a filing with consolidated statements: a bare "Statement of Earnings" is a note's or MD&A's sub-heading
        found = [c for c in found if c.kind != "statement" or _GROUP_WORD.search(c.title)]
    heads = [c for c in found if c.kind == "statement"]
    if len({c.key for c in heads}) > 1:
        # the primary statements are printed together, before their notes: one with no other statement or notes
        # heading within a few pages is a sub-heading elsewhere (a "Balance Sheet" paragraph in a financial review)
        found = [
            c for c in found
            if c.kind != "statement"
            or any(o.key != c.key and abs(o.page - c.page) <= STATEMENT_GAP for o in found if o.kind != "chapter")
        ]  # fmt: skip
    found = _by_content(pages, found)
    first = next((c.page for c in found if c.kind == "statement"), None)
    seen: set[str] = set()
    kept = []
    for candidate in found:
        if candidate.kind == "notes" and (first is None or candidate.page < first):
            continue  # the notes follow the statements: a "notes to …" line before them is a reference
        key = normal_words(re.sub(r"[(（].*", "", candidate.title))
        if key not in seen:  # a statement runs over pages, each headed with its title (and "continued")
            seen.add(key)
            kept.append(candidate)
    return kept


_CONTENT_KINDS = PRIMARY
_CONTENT_TITLE = re.compile(
    r"statements?\b|balance\s+sheets?|financial\s+position|profit\s+(?:or|and)\s+loss|cash\s+flows?", re.I
)
_NOT_PRIMARY = re.compile(r"\bsegments?\b|parent\s+company|company\s+only|condensed\s+financial\s+information", re.I)
_SHOWN_KIND = {"income_statement": "Income statement", "balance_sheet": "Balance sheet", "cash_flow": "Cash flows"}


def _summary_apart(kept: list[_Candidate], shows_income: Callable[[_Candidate], bool]) -> list[_Candidate]:
    """Without an 'Income statement' heading that stands apart from the primary statements (a five-year summary at
    the front of a Japanese annual report) when a statement of comprehensive income printing the income rows sits
    among them: that one is the income statement."""
    others = [
        c.page for c in kept if c.kind == "statement" and c.key not in ("income_statement", "comprehensive_income")
    ]

    def apart(candidate: _Candidate) -> bool:
        return bool(others) and min(abs(candidate.page - page) for page in others) > STATEMENT_GAP

    incomes = [c for c in kept if c.key == "income_statement"]
    among = [c for c in kept if c.key == "comprehensive_income" and not apart(c) and shows_income(c)]
    if incomes and among and all(apart(c) for c in incomes):
        return [c for c in kept if c.key != "income_statement"]
    return kept


def _by_content(pages: list[list[Line]], found: list[_Candidate]) -> list[_Candidate]:
    """Statement headings checked against what the pages print (statement_content), and the statements no heading
    names found by their rows: a heading of a statement the filing prints elsewhere, over a page without its rows
    (nor the next), is a mention, not the statement; a statement of comprehensive income printing revenue and net
    income is the income statement when there is no other; a statement no heading names is the page printing most
    of its rows (nearest the other statements on a tie), headed by its first title-like line."""
    concepts = [concepts_on(body) for body in pages]
    kinds = [page_kind(found) for found in concepts]
    printed = {kind for kind, _ in kinds if kind}

    def shows(candidate: _Candidate, kind: str) -> bool:
        near = kinds[candidate.page - 1 : candidate.page + 1]
        return any(k == kind for k, _ in near)

    def mentions(candidate: _Candidate) -> bool:  # a heading over pages with hardly a row of its statement
        near = concepts[candidate.page - 1 : candidate.page + 1]
        return max(len(found.get(candidate.key, ())) for found in near) < MENTION_CONCEPTS

    kept = [c for c in found if not (c.kind == "statement" and c.key in printed and mentions(c))]
    kept = _summary_apart(kept, lambda c: shows(c, "income_statement"))
    if not any(c.key == "income_statement" for c in kept):
        kept = [
            _Candidate(c.page, c.line, c.title, c.kind, "income_statement", c.rank)
            if c.key == "comprehensive_income" and shows(c, "income_statement") else c
            for c in kept
        ]  # fmt: skip
    for kind in _CONTENT_KINDS:
        if kind not in printed or any(c.key == kind for c in kept):
            continue
        others = [c.page for c in kept if c.kind == "statement"]
        pages_of_kind = [
            n for n, (k, _) in enumerate(kinds, start=1)
            if k == kind and not any(_NOT_PRIMARY.search(line.text) for line in pages[n - 1][:6])
        ]  # fmt: skip
        if not pages_of_kind:
            continue
        best = max(pages_of_kind, key=lambda n: (kinds[n - 1][1], -min((abs(n - o) for o in others), default=0), -n))
        heading = next(
            (
                i
                for i, line in enumerate(pages[best - 1][:6])
                if _CONTENT_TITLE.search(line.text) and len(line.text) < 100
            ),
            None,
        )
        title = " ".join(pages[best - 1][heading].text.split()) if heading is not None else _SHOWN_KIND[kind]
        kept.append(_Candidate(best, heading or 0, title, "statement", kind, (0, 0, 0)))
    return sorted(kept, key=lambda c: (c.page, c.line))


def _lists_items(body: list[Line], found: list[_Candidate]) -> bool:
    """A contents page that prints no page numbers: many Items on one page with not one sentence of text between
    the first and the last — only titles. A page of short Items ('Item 3. Defaults … None.') has its sentences."""
    items = [c for c in found if c.kind == "item"]
    if len(items) < LISTED_ITEMS:
        return False
    between = body[items[0].line + 1 : items[-1].line]
    return not any(_SENTENCE.search(line.text) for line in between)


def outline(pages: list[list[Line]]) -> list[Section]:
    """The sections of a document, in reading order; ``pages`` are its pages' lines (furniture marked)."""
    bodies = [[line for line in lines if not line.furniture] for lines in pages]
    candidates: list[_Candidate] = []
    part = 0
    for number, body in enumerate(bodies, start=1):
        found, after, refs = _candidates(number, body, part)
        if refs < CONTENTS_LINES and not _lists_items(body, found):
            candidates.extend(found)
            part = after  # a contents page lists every Part: the Part in force is the body's
    structural = _in_order([c for c in candidates if c.kind != "chapter"])
    structural += _in_order([c for c in candidates if c.kind == "chapter"])
    if not structural:  # an annual report of another country, or a 10-K printed without its Item headings
        structural = _report_sections(pages, bodies)
    listed = [c for c in structural if c.kind in ("statement", "notes")]  # a report's contents list statements
    structural = [c for c in structural if c not in listed]
    statements = _listed_statements(listed, _statements(bodies, {(c.page, c.line) for c in structural}))
    first = min((c.page for c in statements if c.kind == "statement"), default=len(bodies) + 1)
    # the financial statements part holds the statements: a "Financial statements" line after them is no heading
    structural = [c for c in structural if c.key != "financial_statements" or c.page <= first]
    ordered = sorted([*structural, *statements], key=lambda c: (c.page, c.line))
    # a statement sits under Item 8 (level 3), under 第十节 财务报告 or a report's section (level 2), or at the top
    nested = any(c.kind in ("chapter", "report") for c in ordered)
    inside = 2 if nested else 3 if structural else 1
    levels = {"part": 1, "chapter": 1, "report": 1, "item": 2, "statement": inside, "notes": inside}
    sections = []
    used: set[str] = set()
    in_part = ""
    for i, current in enumerate(ordered):
        in_part = current.key if current.kind == "part" else in_part
        repeated = current.key in used and current.kind == "item"  # a 10-Q's Part II numbers its Items from 1 again
        key = f"{in_part}.{current.key}" if repeated else current.key
        used.add(key)
        level = levels[current.kind] + current.depth
        following = next((c for c in ordered[i + 1 :] if levels[c.kind] + c.depth <= level), None)
        # a section ends on the page before the next one's heading, or on that page if text precedes the heading
        end = len(pages) if following is None else following.page - (following.line == 0)
        sections.append(
            Section(
                title=current.title, level=level, page_start=current.page, page_end=max(end, current.page),
                kind=current.kind, key=key, line=current.line,
            )
        )  # fmt: skip
    return sections
