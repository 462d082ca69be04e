"""Document metadata from the file name and the first pages: simple rules, and unknown stays unknown."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from pathlib import Path

from indexer.core.docmatch import romanised
from indexer.core.fiscal import (
    DATE,
    QUARTER_ORDINAL,
    first_date,
    fiscal_year,
    is_fiscal_year,
    iso_date,
    period_end,
    period_ends,
    quarter_number,
    year_ending,
)
from indexer.core.legal_forms import cased_forms_pattern
from indexer.core.models import Page
from indexer.core.text import CJK, CJK_RANGE
from indexer.ingest import cover_agreement
from indexer.ingest.broker_note import describe_broker_note
from indexer.ingest.forms import (
    ANNUAL_FORMS,
    ANNUAL_REPORT,
    FORM_AGAIN,
    FORM_RULES,
    FORM_TITLE,
    HEADLINE_CHARS,
    YEAR_STATEMENTS,
    audited,
    detect_form,
)
from indexer.ingest.identifiers import detect_foreign_name, detect_tickers

_DATE = DATE

BOUND_COVER_PAGES = 10  # pages searched for an SEC cover bound behind a shareholders' letter
LEGAL_NAME_PAGES = 5  # pages searched for a company printed with its legal form when the cover names none
FISCAL_PAGES = 40  # pages read for the filer's own "… quarter of fiscal 2024" (MD&A follows the statements)

# A report titled with the date its year ends: "Annual Report 31 March 2022", "Annual Report and Accounts – 31 March
# 2022".
_REPORT_DATED = re.compile(
    r"\bannual\s+report(?:\s+and\s+(?:accounts|financial\s+statements))?\s*[–—:,-]?\s*"
    r"(?=\d{1,2}\s+[A-Za-z]+\s+\d{4}|[A-Za-z]+\s+\d{1,2},\s+\d{4})",
    re.I,
)
_REPORT_YEAR = re.compile(
    r"\bannual\s+report(?:\s*(?:&|and)\s*(?:accounts|financial\s+statements))?\s*((?:19|20)\d{2})\b|"
    r"\b((?:19|20)\d{2})\s+annual\s+report\b",
    re.I,
)
# A company as a cover prints it: a line ending in a legal form ("Zegona Communications plc", "MainStreet Bancshares,
# Inc.").
_LEGAL_FORM = cased_forms_pattern()
_LEGAL_NAME = re.compile(
    r"^(?:\d{1,3}\s*\|\s*)?"  # a running header's page number: "02 | Downer EDI Limited"
    rf"((?:[a-z]\w*\s(?=[A-Z]))?[A-Z][\w&.,'’() -]{{1,60}}?,?\s{_LEGAL_FORM})$",  # a brand set in lower case: "abrdn"
    re.M,
)
# A legal name inside running text ("… KP Tissue Inc. ("KPT") holds …"): up to four capitalised words and a legal form.
_NAMED_INLINE = re.compile(
    r"(?<![\w(])((?:\(?[A-Z][\w&'’.-]*\)?\s+){1,4}"
    rf"{_LEGAL_FORM})(?!\w)"
)
# What a line naming a company is not: a cover's form text, an exchange, a directory entry (auditors, bankers, a share
# registry, a person).
_NOT_A_COMPANY = re.compile(
    r"check\s+mark|registrant|transition\s+period|pursuant|\bexchange\b|securities|commission|"
    r"\b(?:auditors?|bankers?|transfer\s+agent|share\s+regist(?:ry|er|rar)|registrars?|solicitors?|advisers?|"
    r"brokers?|trustees?)\b|^(?:mr|ms|mrs|dr)\.?\s|\b(?:ended|for\s+the\s+(?:fiscal\s+)?year)\b|"
    r"\b(?:formerly|previously)\b",
    re.I,
)
# A combined filing's cover lists its registrants as rows: file number, name, state, IRS number.
_REGISTRANT_ROW = re.compile(r"^\d{1,3}-\d{3,6}\s+(.+?)\s+(?:[A-Z][a-z]+\s){1,3}?\d{2}-\d{7}$")
NAMED_MIN_PAGES = 3  # a legal name on fewer pages is a counterparty, an auditor or a subsidiary


def _first_text(pages: list[Page], count: int = 2) -> str:
    return "\n".join(page.text for page in pages[:count])


def _printed(pages: list[Page]) -> list[Page]:
    return [page for page in pages if page.text.strip()]  # a cover that is all picture has no text


def _cover_pages(pages: list[Page]) -> list[Page]:
    """The cover: the first two pages with text, or — when they name no form (a shareholders' letter) — the two
    pages from an SEC form's title page bound within the first ten (a 10-K behind the letter)."""
    first = _printed(pages)[:2]
    text = _first_text(first)
    if any(pattern.search(text) for _, pattern in FORM_RULES) or ANNUAL_REPORT.search(text):
        return first
    return _sec_cover_pages(pages) or first


def _sec_cover_pages(pages: list[Page]) -> list[Page]:
    """The two pages from an SEC form's title page ("FORM 10-K") within the first ten pages with text: the
    registrant and the fiscal year a glossy annual report's bound 10-K prints."""
    printed = _printed(pages)
    for index, page in enumerate(printed[:BOUND_COVER_PAGES]):
        if FORM_TITLE.search(page.text):
            return printed[index : index + 2]
    return []


def _cover(pages: list[Page]) -> str:
    return _first_text(_cover_pages(pages))


def _sec_cover(pages: list[Page]) -> str | None:
    return _first_text(found) if (found := _sec_cover_pages(pages)) else None


def detect_language(pages: list[Page]) -> str | None:
    text = "".join(page.text for page in pages[:5])
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    share = sum(1 for c in letters if CJK.match(c)) / len(letters)
    if share > 0.3:
        return "zh"
    if share < 0.05:
        return "en"
    return "mixed"


def _registrant(text: str) -> str | None:
    """The name an SEC cover prints above "(Exact name of registrant as specified in its charter)", or — a combined
    filing's cover, where that is a column head — in the first registrant row below it."""
    lines = [line.strip(" _") for line in text.splitlines()]
    for index, line in enumerate(lines):
        if re.match(r"\(?exact name of registrant", line, re.I):
            for candidate in reversed(lines[max(0, index - 3) : index]):
                if candidate and not re.search(r"^\d|number", candidate, re.I):  # the file number sits between
                    return None if _NOT_A_COMPANY.search(candidate) else candidate
        elif re.search(r"exact name of registrant", line, re.I):
            for below in lines[index + 1 : index + 4]:
                if row := _REGISTRANT_ROW.match(below):
                    return row.group(1)
    return None


def detect_company(file_name: str, text: str) -> tuple[str | None, str | None]:
    """Return (company, stock code) as printed in the document, else from the file name."""
    code = None
    named_code = re.search(rf"([{CJK_RANGE}A-Za-z]{{2,12}})\s*[（(](\d{{6}})\.(?:SH|SZ|BJ)[)）]", text)
    if named_code:
        return named_code.group(1), named_code.group(2)
    if company := _registrant(text):
        return company, None
    if legal := _legal_name(text):
        return legal, None
    earnings = re.search(r"^([A-Za-z].{2,60}?)\s+(?:reports?|announces?)\b", text, re.I | re.M)
    if earnings and not re.search(r"\bannual$", earnings.group(1), re.I):  # "2022 Annual Report" names no one
        return earnings.group(1).strip(), None
    short_name = re.search(rf"(?:股票简称|公司简称|证券简称)[:：\s]*([{CJK_RANGE}A-Za-z]{{2,10}})", text)
    stem = Path(file_name).stem
    from_name = re.search(rf"(?:^|_)(\d{{6}})_([{CJK_RANGE}]{{2,10}})(?:_|$)", stem)
    if from_name:
        code = from_name.group(1)
        return (short_name.group(1) if short_name else from_name.group(2)), code
    if short_name:
        return short_name.group(1), code
    return _from_file_name(file_name), None


def _legal_name(text: str) -> str | None:
    """The first line that is a company with its legal form ("Rectifier Technologies Ltd"), not a directory entry."""
    for found in _LEGAL_NAME.finditer(text):
        if not _NOT_A_COMPANY.search(found.group(1)):
            return found.group(1).strip()
    return None


def _from_file_name(file_name: str) -> str | None:
    """The last resort: the words of a file name before its year (AAPL_2023_10K → Aapl)."""
    first = re.match(r"^([A-Za-z][A-Za-z&.]+(?:_[A-Za-z&.]+)*?)_(?:(?:19|20)\d{2}(?!\d)|FY)", Path(file_name).stem)
    return first.group(1).replace("_", " ").title() if first else None


def _report_dated(text: str) -> str | None:
    """The date a report is titled with: "Annual Report 31 March 2022", "Financial Report 30 June 2022",
    "Consolidated Financial Statements as of December 31, 2022 and 2021"."""
    if found := _REPORT_DATED.search(text):
        return first_date(text[found.end() : found.end() + 30])
    if found := YEAR_STATEMENTS.search(text[:HEADLINE_CHARS]):
        return first_date(text[found.end() : found.end() + 130])
    return None


def detect_period(form: str | None, file_name: str, text: str) -> str | None:
    fy = re.search(r"fiscal\s*year\s*ended:?\s*" + _DATE, text, re.I)  # a text layer may drop the spaces
    ended = iso_date(*fy.groups()) if fy else None
    if ended:
        return f"FY{year_ending(ended)}"
    if (ended := period_end(text)) and re.search(r"\byear\s+ended\b", text, re.I) and form == "annual report":
        return f"FY{year_ending(ended)}"  # "For the Year Ended 31 December 2022"
    quarter = re.search(r"quarterly\s*period\s*ended:?\s*" + _DATE, text, re.I)
    ended = iso_date(*quarter.groups()) if quarter else None
    if ended:
        return f"quarter ended {ended}"
    results = re.search(
        rf"({QUARTER_ORDINAL})\s+quarter(?:\s+and\s+full\s+year)?\s+(?:fiscal\s+)?(\d{{4}})", text, re.I
    )
    if results and form not in ANNUAL_FORMS:  # an annual report's letter speaks of the coming quarters
        return f"Q{quarter_number(results.group(1))} {results.group(2)}"
    report_date = re.search(r"date of report[^:\n]*:?\s*\n?\s*" + _DATE, text, re.I) or re.search(
        _DATE + r"[ \t]*\n[ \t]*\(?date of report\b", text, re.I
    )  # the date printed over its caption, as a cover's form lays it out
    reported = iso_date(*report_date.groups()[0:3]) if report_date else None
    if reported:
        return reported
    if dated := _report_dated(text):
        return f"FY{year_ending(dated)}"
    if report_year := _REPORT_YEAR.search(text):
        return f"FY{report_year.group(1) or report_year.group(2)}"
    annual = re.search(r"(\d{4})\s*年\s*(?:年度报告|年报)", text)
    if annual:
        return f"FY{annual.group(1)}"
    half = re.search(r"(\d{4})\s*年\s*半年度报告", text)
    if half:
        return f"H1 {half.group(1)}"
    cn_date = re.search(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日", text)
    if form == "研报" and cn_date:
        return date(*(int(g) for g in cn_date.groups())).isoformat()
    from_name = re.search(r"(?:^|_)((?:19|20)\d{2})(?:Q([1-4]))?(?:_|$)", Path(file_name).stem)
    if from_name:
        return f"FY{from_name.group(1)}" + (f"Q{from_name.group(2)}" if from_name.group(2) else "")
    return None


def period_year(period: str | None) -> int | None:
    if period is None:
        return None
    found = re.search(r"(?:19|20)\d{2}", period)
    return int(found.group(0)) if found else None


def _most_named(pages: list[Page]) -> tuple[str, int] | None:
    """The legal name printed on the most pages (at least a few), as it is most often printed, with that count: the
    company an annual report is about when its cover prints a slogan or a directory."""
    counts: Counter[str] = Counter()
    printed: dict[str, Counter[str]] = {}
    for page in pages:
        names = {" ".join(m.split()) for m in _NAMED_INLINE.findall(page.text) if not m.startswith("The ")}
        names = {name for name in names if not _NOT_A_COMPANY.search(name)}
        keys = {name.casefold(): name for name in names}
        counts.update(keys.keys())
        for key, name in keys.items():
            printed.setdefault(key, Counter())[name] += 1
    best = counts.most_common(1)
    if not best or best[0][1] < NAMED_MIN_PAGES:
        return None
    return printed[best[0][0]].most_common(1)[0][0], best[0][1]


def _pages_naming(name: str, pages: list[Page]) -> int:
    wanted = " ".join(name.split()).casefold()
    return sum(1 for page in pages if wanted in " ".join(page.text.split()).casefold())


def _confirmed(company: str | None, pages: list[Page]) -> str | None:
    """The company read from the cover, unless the filing hardly prints it and prints another legal name on more
    pages: a cover's directory line (an auditor, a bank) is not whom the filing is about."""
    most = _most_named(pages)
    if most is None:
        return company
    if company is None or _pages_naming(company, pages) < min(NAMED_MIN_PAGES, most[1]):
        return most[0]
    return company


def describe(file_name: str, pages: list[Page]) -> dict[str, object]:
    """Metadata fields for :class:`indexer.core.models.DocumentMeta` (title, company, form, period, …)."""
    text = _cover(pages)
    sec = _sec_cover(pages) or text
    opening = _first_text(pages, FISCAL_PAGES)
    form = detect_form(file_name, text) or audited(pages)
    registrant = _registrant(sec)
    company, code = (registrant, None) if registrant else detect_company(file_name, text)
    if company is None or company == _from_file_name(file_name):
        company = _legal_name(_first_text(pages, LEGAL_NAME_PAGES)) or company  # a company named a few pages in
    if registrant is None and code is None:  # a registrant line, a Chinese report's code and short name are sure
        company = _confirmed(None if company == _from_file_name(file_name) else company, pages) or company
    company = cover_agreement.unsplit(company) if company else company
    period = detect_period(form, file_name, text)
    if sec is not text and not re.match(r"FY", period or ""):
        period = detect_period(form, file_name, sec) or period  # the bound 10-K's "fiscal year ended …"
    end = period_end(text) or _report_dated(text) or period_end(sec)
    if end is None and form == "8-K" and period and re.fullmatch(r"\d{4}-\d{2}-\d{2}", period):
        end = period  # an 8-K reports an event: its date of report
    if end is None and form == "annual report" and (named := period_year(period)):
        # "For the years ended December 31 2022 2021 …" over the highlights, "12 months to 31 March 2022"
        end = next((ended for ended in period_ends(opening) if ended.startswith(str(named))), None)
    if end is None and period is None and form == "annual report" and (ends := Counter(period_ends(opening))):
        # a cover that names no year (it is in a picture): the date the report's own pages most often say its year
        # ended ("for the year ended December 31, 2022": the auditor's report, each statement's heading)
        end = ends.most_common(1)[0][0]
        period = f"FY{year_ending(end)}"
    year = fiscal_year(
        file_name, _first_text(pages, FISCAL_PAGES), end, period_year(period), annual=is_fiscal_year(text)
    )
    shown_period = period
    if period and year and str(year) not in period:
        shown_period = f"{period} (fiscal {year})"
    candidates = [company, registrant, *_cover_names(pages, text), *cover_agreement.self_named(pages)]
    established = _established(pages, candidates, form, end)
    company = established["company"]  # type: ignore[assignment]
    parts = [p for p in (company, form, shown_period) if p]
    broker_note = describe_broker_note(file_name, pages) if form == "研报" else {}
    return (
        broker_note
        | established
        | {
            "tickers": detect_tickers(text),
            "english_name": detect_foreign_name(opening),
            "title": " · ".join(parts) if len(parts) >= 2 else Path(file_name).stem,
            "company_pinyin": romanised(company),
            "form": form,
            "period": period,
            "period_end": end,
            "year": year,
            "language": detect_language(pages),
            "stock_code": code,
        }
    )


def _cover_names(pages: list[Page], cover: str) -> list[str | None]:
    """Other names the filing might be about: legal names on the cover and the first pages, the most printed one."""
    most = _most_named(pages)
    legal = [m.group(1).strip() for m in _LEGAL_NAME.finditer(cover) if not _NOT_A_COMPANY.search(m.group(1))]
    return [*legal, _legal_name(_first_text(pages, LEGAL_NAME_PAGES)), most[0] if most else None]


def _established(
    pages: list[Page], candidates: list[str | None], form: str | None, end: str | None
) -> dict[str, object]:
    """Company, form and period end settled by agreement (ingest/cover_agreement.py), with the places of each."""
    cover = {page.number for page in _cover_pages(pages)} | {page.number for page in _sec_cover_pages(pages)}
    names = [cover_agreement.unsplit(c) if c else c for c in candidates]
    found_places = cover_agreement.places(pages, cover)
    company = cover_agreement.settle_company(names, found_places)
    settled_form = cover_agreement.settle_form(form, FORM_AGAIN.get(form or ""), pages, cover)
    settled_end = cover_agreement.settle_period_end(end, pages, cover)
    found = {"company": company, "form": settled_form, "period_end": settled_end}
    return {
        "company": company.value,
        "company_verified": company.verified,
        "printed_names": cover_agreement.printed_names(company, names, found_places),
        "form_verified": settled_form.verified,
        "period_end_verified": settled_end.verified,
        "established": {field: list(settled.places) for field, settled in found.items() if settled.places},
    }
