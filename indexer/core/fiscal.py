"""When a filing's period ends, and which fiscal year its filer calls it.

Filers name fiscal years their own way: Best Buy's quarter ended 29 July 2023 is "the second quarter of fiscal 2024";
a 52/53-week year that ends on 1 January 2023 is fiscal 2022. ``year`` in the index (and the `year` filter) is the
fiscal year as the filer names it; ``period_end`` is the calendar date the period ends.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from pathlib import Path

_MONTH_NAMES = "january february march april may june july august september october november december"
MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES.split(), start=1)}
DATE = rf"({'|'.join(_MONTH_NAMES.split())})\s+(\d{{1,2}}),\s*(\d{{4}})"
_FISCAL_YEAR_ENDED = re.compile(rf"fiscal\s+year\s+ended\s+{DATE}", re.I)
_PERIOD_ENDED = re.compile(
    r"(?:fiscal\s+year|quarterly\s+period|period|(?:\d{1,2}|twelve|twenty-four|thirty-six)\s+weeks|three\s+months|"
    r"quarter|year)\s+ended:?",
    re.I,
)
_EU_DATE = rf"(\d{{1,2}})\s+({'|'.join(_MONTH_NAMES.split())})\s+(\d{{4}})"
# The date an "ended" names is printed within this many characters (a cover may run a column between them).
ENDED_REACH = 120
_QUARTER_OF_FISCAL = re.compile(
    r"\b(?:first|second|third|fourth)\s+quarter\s+(?:and\s+first\s+(?:six|nine)\s+months\s+)?of\s+fiscal\s+"
    r"(?:year\s+)?((?:19|20)\d{2})\b",
    re.I,
)
_YEAR_IN_NAME = re.compile(r"(?:^|[_\-\s])(?:FY)?((?:19|20)\d{2})(?:Q[1-4])?(?=[_\-\s.]|$)", re.I)
_CN_ANNUAL = re.compile(r"((?:19|20)\d{2})\s*年\s*(?:年度报告|年报)")
_CN_HALF = re.compile(r"((?:19|20)\d{2})\s*年\s*半年度报告")
# A 52/53-week fiscal year ending in the first days of January is named after the year before (most of it).
EARLY_JANUARY_DAYS = 7


def iso_date(month: str, day: str, year: str) -> str | None:
    try:
        return date(int(year), MONTHS[month.lower()], int(day)).isoformat()
    except (KeyError, ValueError):
        return None


def year_ending(end: str) -> int:
    """The fiscal year a period ending on ``end`` (ISO date) is named after."""
    day = date.fromisoformat(end)
    return day.year - 1 if day.month == 1 and day.day <= EARLY_JANUARY_DAYS else day.year


def period_end(text: str) -> str | None:
    """The date the reported period ends, from the cover ("for the fiscal year ended …", "quarterly period ended …",
    2019年年度报告 → 31 December, 半年度报告 → 30 June)."""
    for found in _PERIOD_ENDED.finditer(text):
        after = text[found.end() : found.end() + ENDED_REACH]
        us, eu = re.search(DATE, after, re.I), re.search(_EU_DATE, after, re.I)
        first = min((m for m in (us, eu) if m), key=lambda m: m.start(), default=None)
        if first is us and us is not None:
            return iso_date(*us.groups())
        if first is eu and eu is not None:
            day, month, year = eu.groups()
            return iso_date(month, day, year)
    half = _CN_HALF.search(text)
    if half:
        return f"{half.group(1)}-06-30"
    annual = _CN_ANNUAL.search(text)
    if annual:
        return f"{annual.group(1)}-12-31"
    return None


def is_fiscal_year(cover: str) -> bool:
    """Whether the cover reports a whole fiscal year ("for the fiscal year ended …")."""
    return bool(_FISCAL_YEAR_ENDED.search(cover))


def fiscal_year(
    file_name: str, text: str, end: str | None, fallback: int | None, *, annual: bool = False
) -> int | None:
    """The fiscal year as the filer names it (``text``: the document's first pages; ``annual``: its cover reports a
    fiscal year).

    A fiscal year is named from its end date (early January: the year before) — its
    text also names the next year's quarters (outlook) and the last year's (comparatives), so the text does not
    decide. Any other period: the filer's own "… quarter of fiscal 2024" (the year it ends in or the next, the
    most often named), else a year in the file name (AAPL_2023_10K, BESTBUY_2024Q2_10Q), else the year the period
    ends in, else ``fallback`` (the period's year)."""
    if end is not None and annual:
        return year_ending(end)
    named = Counter(int(year) for year in _QUARTER_OF_FISCAL.findall(text))
    if end is not None:
        ends = date.fromisoformat(end).year
        named = Counter({year: n for year, n in named.items() if year in (ends, ends + 1)})
    if named:
        return named.most_common(1)[0][0]
    in_name = _YEAR_IN_NAME.search(Path(file_name).stem)
    if in_name:
        return int(in_name.group(1))
    if end is not None:
        return year_ending(end)
    return fallback
