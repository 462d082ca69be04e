"""A statement column's period from its header as printed: the date it ends and the fiscal year it belongs to.

Headers come as dates ("July 29, 2023", "Three Months Ended July 29, 2023", "31 December 2021", "31.12.2021¹",
"2023年12月31日"), as years ("2023", "Fiscal 2023", "2019年", "2019年末"), relative to the report (本期/上期,
期末余额/期初余额) or as quarters (第一季度). Columns that are not periods — change, %, notes, a comparison with the
year before however its header is wrapped ("本期比上年同" over "期增减(%)") — have none. The fiscal
year of a column follows the filer's own naming: the document's fiscal year, less the whole years between the
document's period end and the column's (a prior year-end balance six months back belongs to the previous year).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date

from indexer.core.fiscal import (
    QUARTER_ORDINAL,
    QUARTER_SPELLED,
    first_date,
    numeric_month_first,
    quarter_number,
    year_ending,
)
from indexer.core.tokenize import normalize_text

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_SHORT_FY = re.compile(r"\bFY\s?'?(\d\d)\b", re.I)
_NOT_PERIOD = re.compile(
    r"%|％|增减|变动|变化|比例|占比|同比|环比|[比较]上(?:年|期|年同期)|\bchanges?\b|\bvariance\b|\bvar\b|\bnotes?\b|附注|\bpercent|\bmargin\b|"
    r"\bvs\.?\b|\bversus\b|\bincrease\b|\bdecrease\b|\binc\.?\s*/|\bbetter\b|\bworse\b|\bfavou?rable\b|"
    r"\bdifference\b|\bgrowth\b",
    re.I,
)
_CURRENT = re.compile(r"本期|本年|本报告期|期末|年末余额|报告期末")
_PREVIOUS = re.compile(r"上期|上年|期初|年初")
_CN_QUARTER = re.compile(rf"第\s*({QUARTER_SPELLED})\s*季度")
_EN_QUARTER = re.compile(rf"\b(?:Q([1-4])|([1-4])Q|({QUARTER_ORDINAL})\s+quarter)\b", re.I)
_MONTHS_COVERED = re.compile(
    r"\b(three|six|nine|twelve|3|6|9|12)[\s-]+months?\b|\b(13|26|39|52|53)[\s-]+weeks?\b", re.I
)
_COVERED = {"three": 3, "six": 6, "nine": 9, "twelve": 12, "13": 3, "26": 6, "39": 9, "52": 12, "53": 12}
_ANNUAL = re.compile(r"\byear\b|\bfiscal\b|\bFY\b|年度|全年|年$", re.I)
# A column's period end within this many days of a whole number of years from the report's counts as that many years.
SAME_DAY_SLACK = 20


@dataclass(frozen=True)
class ReportPeriod:
    """The document's own period: the date it ends (ISO) and the fiscal year the filer names it."""

    end: str | None
    fiscal_year: int | None
    month_first: bool = False  # numeric dates of the headers read put the month first (6/17/2023)


@dataclass(frozen=True)
class Period:
    end: str | None = None
    fiscal_year: int | None = None
    months: int | None = None  # 3, 6, 9 or 12 for a duration column; None for a balance date or unknown


def _shifted(end: str, years: int) -> str:
    """``end`` moved by whole years (29 February falls back to the 28th)."""
    day = date.fromisoformat(end)
    try:
        return day.replace(year=day.year + years).isoformat()
    except ValueError:
        return day.replace(year=day.year + years, day=28).isoformat()


def fiscal_year_of(end: str, report: ReportPeriod) -> int:
    """The fiscal year a column ending on ``end`` belongs to, named as the report names its own."""
    if report.end is None or report.fiscal_year is None:
        return year_ending(end)
    years = (date.fromisoformat(report.end) - date.fromisoformat(end)).days / 365.25
    return report.fiscal_year - math.ceil(years - SAME_DAY_SLACK / 365.25)


def _months(text: str) -> int | None:
    if found := _MONTHS_COVERED.search(text):
        word = (found.group(1) or found.group(2)).lower()
        return _COVERED.get(word) or int(word)
    return 12 if _ANNUAL.search(text) else None


class ColumnPeriods:
    """The periods of one table's column headers, read together: numeric dates in the order the table's unambiguous
    ones print them (6/17/2023 puts the month first, so 6/11/2022 is June), and a header that names no span takes
    the span its table's caption names ('Three Months Ended' over 'March 31, 2023 | 2022')."""

    def __init__(self, headers: Iterable[str], caption: str | None, report: ReportPeriod) -> None:
        month_first = numeric_month_first(headers)
        self.report = replace(report, month_first=True) if month_first and not report.month_first else report
        self._caption_months = _months(caption or "")
        self._read: dict[str, Period | None] = {}

    def __call__(self, header: str) -> Period | None:
        if header not in self._read:
            period = column_period(header, self.report)
            if period is not None and self._caption_months and _months(normalize_text(header)) is None:
                period = replace(period, months=self._caption_months)
            self._read[header] = period
        return self._read[header]


def ending_at_newest(report: ReportPeriod, headers: Iterable[str]) -> ReportPeriod:
    """``report`` ending at the newest date its statements' column ``headers`` print, where its own end is not known
    but its fiscal year is (a release dated by its fiscal quarter alone): a report's newest period is its current one,
    of the fiscal year it names (an April quarter of a January year-end filer is the next calendar year's)."""
    if report.end is not None or report.fiscal_year is None:
        return report
    ends = [found.end for header in headers if (found := column_period(header, report)) and found.end]
    return replace(report, end=max(ends)) if ends else report


def not_a_period(header: str) -> bool:
    """Whether a column header says its column is no period: a change, a percentage, a note number."""
    return bool(_NOT_PERIOD.search(normalize_text(header)))


def column_period(header: str, report: ReportPeriod) -> Period | None:
    """The period of a column headed ``header``; None when the column is not a period (change, %, a note number)
    or its header names none."""
    text = normalize_text(header).strip()
    if not text or _NOT_PERIOD.search(text):
        return None
    months = _months(text)
    years = {int(year) for year in _YEAR.findall(text)} | {2000 + int(y) for y in _SHORT_FY.findall(text)}
    if len(years) > 1:
        return None  # "2023 vs 2022", "November 27, 2016 2015": a comparison or two columns' headers run together
    if end := first_date(text, report.month_first):
        return Period(end, fiscal_year_of(end, report), months)
    if found := _CN_QUARTER.search(text) or _EN_QUARTER.search(text):
        return _quarter(found, report)
    if years:
        year = years.pop()
        end = _shifted(report.end, year - report.fiscal_year) if report.end and report.fiscal_year else None
        return Period(end, year, months or (None if "末" in text else 12))
    relative = 0 if _CURRENT.search(text) else -1 if _PREVIOUS.search(text) else None
    if relative is None or report.fiscal_year is None:
        return None
    end = _shifted(report.end, relative) if report.end else None  # 期初: the opening balance, last year's close
    return Period(end, report.fiscal_year + relative, None)


def _quarter(found: re.Match[str], report: ReportPeriod) -> Period | None:
    """A quarter of the report's year (a 年报's quarterly table): it ends 3, 6, 9 or 12 months into the year."""
    groups = [group for group in found.groups() if group]
    number = quarter_number(groups[0])
    if report.end is None or report.fiscal_year is None:
        return None
    year_end = date.fromisoformat(report.end)
    months = year_end.year * 12 + year_end.month - 1 - (12 - 3 * number)
    year, month = divmod(months, 12)
    following = date(year + (month == 11), (month + 1) % 12 + 1, 1)
    return Period(date.fromordinal(following.toordinal() - 1).isoformat(), report.fiscal_year, 3)


def periods_summary(periods: Iterable[tuple[str | None, int | None, int | None, bool]]) -> list[str]:
    """Periods (end, months, fiscal year, whether a balance date) said compactly: each calendar end once, with what
    its columns cover and its fiscal year ('2023-07-29 3m/6m/balance FY2024'); a duration whose header gives no
    months is a 'period'."""
    by_end: dict[tuple[str | None, int | None], list[str]] = {}
    for end, months, fiscal_year, balance in periods:
        covered = "balance" if balance else f"{months}m" if months else "period"
        kinds = by_end.setdefault((end, fiscal_year), [])
        if covered not in kinds:
            kinds.append(covered)
    return [
        " ".join(part for part in (end, "/".join(sorted(kinds)), f"FY{year}" if year else None) if part)
        for (end, year), kinds in by_end.items()
    ]
