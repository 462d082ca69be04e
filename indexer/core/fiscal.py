"""When a filing's period ends, and which fiscal year its filer calls it.

Filers name fiscal years their own way: Best Buy's quarter ended 29 July 2023 is "the second quarter of fiscal 2024";
a 52/53-week year that ends on 1 January 2023 is fiscal 2022. ``year`` in the index (and the `year` filter) is the
fiscal year as the filer names it; ``period_end`` is the calendar date the period ends.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path

_MONTH_NAMES = "january february march april may june july august september october november december"
MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES.split(), start=1)}
DATE = rf"({'|'.join(_MONTH_NAMES.split())})\s+(\d{{1,2}}),\s*(\d{{4}})"
_MONTH = "|".join(MONTHS)
_MONTH_SHORT = "|".join(name[:3] for name in MONTHS)
_US_DAY = re.compile(rf"\b({_MONTH}|{_MONTH_SHORT})\.?\s+(\d{{1,2}}),?\s*((?:19|20)\d\d)", re.I)
_EU_DAY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH}|{_MONTH_SHORT})\.?,?\s+((?:19|20)\d\d)", re.I)
_DOTTED = re.compile(r"\b(\d{1,2})[./](\d{1,2})[./]((?:19|20)\d\d)")
_ISO = re.compile(r"\b((?:19|20)\d\d)-(\d{2})-(\d{2})\b")
_CN_DATE = re.compile(r"((?:19|20)\d\d)\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日")
_FISCAL_YEAR_ENDED = re.compile(rf"fiscal\s+year\s+ended\s+{DATE}", re.I)
_PERIOD_ENDED = re.compile(
    r"(?:fiscal\s+year|quarterly\s+period|period|(?:\d{1,2}|twelve|twenty-four|thirty-six)\s+weeks|three\s+months|"
    r"quarter|year)\s+ended:?|\b(?:12|twelve)\s+months\s+(?:ended|to)\b",
    re.I,
)
# A quarter's spellings, in one place: the English ordinal ("second quarter"), the Chinese numeral (第二季度), a digit.
QUARTER_ORDINALS = ("first", "second", "third", "fourth")
QUARTER_ORDINAL = "(?:" + "|".join(QUARTER_ORDINALS) + ")"  # put a group around it to capture the word
QUARTER_NUMERALS_ZH = "一二三四"
QUARTER_SPELLED = f"[{QUARTER_NUMERALS_ZH}1-4]"  # the character after 第 in 第二季度


def quarter_number(spelled: str) -> int:
    """1 to 4 for a quarter spelled "second", 二 or "2" (a :class:`KeyError` for anything else)."""
    word = spelled.lower()
    if word in QUARTER_ORDINALS:
        return QUARTER_ORDINALS.index(word) + 1
    if word in QUARTER_NUMERALS_ZH:
        return QUARTER_NUMERALS_ZH.index(word) + 1
    if word in ("1", "2", "3", "4"):
        return int(word)
    raise KeyError(spelled)


# The date an "ended" names is printed within this many characters (a cover may run a column between them).
ENDED_REACH = 120
_QUARTER_OF_FISCAL = re.compile(
    rf"\b{QUARTER_ORDINAL}\s+quarter\s+(?:and\s+first\s+(?:six|nine)\s+months\s+)?of\s+fiscal\s+"
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


def first_date(text: str, month_first: bool = False) -> str | None:
    """The first date a text prints, in any usual form: July 29, 2023 · 29 July 2023 · 2023年7月29日 · 2023-07-29 ·
    29.07.2023 (day first unless the first number cannot be a day, or ``month_first``: 6/11/2022 where the same
    headers print 6/17/2023); None if none."""
    if found := _US_DAY.search(text):
        month, day, year = found.groups()
        return iso_date(_full_month(month), day, year)
    if found := _EU_DAY.search(text):
        day, month, year = found.groups()
        return iso_date(_full_month(month), day, year)
    if found := _CN_DATE.search(text):
        return _safe_date(*found.groups())
    if found := _ISO.search(text):
        return _safe_date(*found.groups())
    if found := _DOTTED.search(text):
        first, second, year = found.groups()
        swapped = int(first) <= 12 < int(second) or (month_first and not int(second) <= 12 < int(first))
        day, month = (second, first) if swapped else (first, second)
        return _safe_date(year, month, day)
    return None


def numeric_month_first(texts: Iterable[str]) -> bool:
    """Whether texts that print numeric dates (6/17/2023, 6/11/2022) put the month first: one of them can only be read
    so (its second number is past 12) and none can only be read day first."""
    month_first = day_first = False
    for text in texts:
        for found in _DOTTED.finditer(text):
            first, second = int(found.group(1)), int(found.group(2))
            month_first = month_first or first <= 12 < second
            day_first = day_first or second <= 12 < first
    return month_first and not day_first


def dates_in(text: str) -> set[str]:
    """Every date a text prints in words or as 年月日 (July 29, 2023 · 29 July 2023 · 2023年7月29日), as ISO dates."""
    found = {iso_date(_full_month(m.group(1)), m.group(2), m.group(3)) for m in _US_DAY.finditer(text)}
    found |= {iso_date(_full_month(m.group(2)), m.group(1), m.group(3)) for m in _EU_DAY.finditer(text)}
    found |= {_safe_date(*m.groups()) for m in _CN_DATE.finditer(text)}
    return {day for day in found if day}


def _full_month(name: str) -> str:
    return next(month for month in MONTHS if month.startswith(name.lower()[:3]))


def _safe_date(year: str, month: str, day: str) -> str | None:
    try:
        return date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None


def year_ending(end: str) -> int:
    """The fiscal year a period ending on ``end`` (ISO date) is named after."""
    day = date.fromisoformat(end)
    return day.year - 1 if day.month == 1 and day.day <= EARLY_JANUARY_DAYS else day.year


def period_ends(text: str) -> Iterator[str]:
    """Every date a text prints as the end of a period ("year ended March 31, 2022", "12 months to 31 March 2022"),
    in order."""
    for found in _PERIOD_ENDED.finditer(text):
        if ended := first_date(text[found.end() : found.end() + ENDED_REACH]):
            yield ended


def period_end(text: str) -> str | None:
    """The date the reported period ends, from the cover ("for the fiscal year ended …", "quarterly period ended …",
    2019年年度报告 → 31 December, 半年度报告 → 30 June)."""
    if ended := next(period_ends(text), None):
        return ended
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
