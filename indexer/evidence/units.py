"""The unit a table declares: its scale ("in millions", "(Millions, except per share amounts)", "$'000", "£000's",
"€m", 单位：万元) and its currency, each with the printed line that declares it.

A statement says its unit once, above the table, in its title or in its column-header row, often only on its first
page; the figures inside are printed in that unit. Per-share amounts and percentages are printed as they are ("except
per share amounts"), and share counts may have their own scale ("shares in thousands").

Nothing is read from silence. A bare ``$`` (or "dollars") names no currency: it is :data:`DOLLAR`, which only the
document can settle (a US SEC form, or its presentation-currency sentence: see indexer/evidence/currency.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal

from pydantic import BaseModel, Field

from indexer.core.models import Box, Line

DOLLAR = "$"  # a dollar sign or the word "dollars" alone: which dollar, the document must say
_POWERS = {
    "units": 0, "thousands": 3, "millions": 6, "billions": 9,
    "千元": 3, "万元": 4, "百万元": 6, "亿元": 8, "元": 0, "千円": 3, "百万円": 6,
}  # fmt: skip
_WORDS = {"thousand": "thousands", "million": "millions", "billion": "billions", "m": "millions", "mn": "millions"}
_WORDS |= {"bn": "billions", "000": "thousands", "k": "thousands"}
_SIGN = r"(?:[$€£¥]|(?:us|u\.s\.|a|au|c|cdn|hk|nz|s|r)\$|rmb|usd|eur|gbp|cad|aud|hkd|nzd|chf|jpy|cny|zar|sgd)"
_NATION = r"(?:u\.\s?s\.|us|united\s+states|canadian|australian|hong\s+kong|new\s+zealand|singapore)"
_MONEY = r"(?:dollars|yen|euros?|pounds?(?:\s+sterling)?|sterling|renminbi|yuan|francs|won|rupees|rand)"
_SCALE = re.compile(
    rf"\bin\s+(?:{_SIGN}\s*|{_NATION}?\s*dollars\s+|euros?\s+)?(thousands|millions|billions|thousand|million|billion)\b"
    r"|(?:dollars|amounts|euros?|figures)\s+(?:are\s+)?in\s+(thousands|millions|billions)\b"
    rf"|\(\s*(?:{_SIGN}\s*)?(thousands|millions|billions)\b"  # "(Millions, except per share amounts)", "($ millions)"
    r"|单位\s*[:：]\s*(?:人民币|rmb)?\s*(千元|万元|百万元|亿元|元)"
    r"|(?:人民币|rmb)\s*(千元|万元|百万元|亿元)"
    r"|(千円|百万円)"
    rf"|(?<![\w$€£¥]){_SIGN}\s*['’]\s*(000|m|mn|bn)\b"  # $'000, A$'000, $'m, RMB'000
    rf"|(?<![\w$€£¥,.]){_SIGN}\s?(000)(?:['’]?s)?(?![\d,.])"  # £000's, $000s, £000
    rf"|(?<![\w$€£¥]){_SIGN}\s?(m|bn|mn)\b"  # €m, $bn
    rf"|(?<![\w$€£¥]){_SIGN}\s*(million|billion|thousand)s?\b"  # € million, US$ millions
    rf"|\b(thousands|millions|billions)\s+of\s+(?:{_NATION}\s+)?{_MONEY}\b",
    re.I,
)
# A statement that declares its figures in units: "(in dollars)", "(Expressed in Canadian dollars)", 单位：元 above.
_IN_UNITS = re.compile(
    rf"\((?:expressed\s+|amounts\s+)?in\s+(?:{_NATION}\s+)?{_MONEY}\)"
    rf"|\b(?:figures|amounts)\s+(?:are\s+)?(?:expressed\s+|stated\s+)?in\s+(?:{_NATION}\s+)?{_MONEY}\s*$",
    re.I,
)
# A column-header row that prints only the currency over each column ('Note  $  $', '£  £', 'US dollars'): figures in
# units, as against "$'000" or "$m" printed there. Such a row is short: a line of more than 120 characters is not one.
_COLUMN_WORDS = r"(?:notes?|consolidated|group|company|parent|entity)"
# the words of a column's period printed with its sign ('Year ended 30 September 2022 £')
_PERIOD_WORDS = (
    r"(?:years?|months?|weeks?|period|ended|ending|as|at|three|six|nine|twelve|\d{1,2},?|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?)(?!\w)"
)
_SIGN = r"(?:[$€£¥]|\([$€£¥]\))"  # a currency sign, perhaps in brackets: '($)'
_SIGNS_ONLY = re.compile(
    rf"^(?=.{{0,120}}$)(?:(?:{_COLUMN_WORDS}|{_PERIOD_WORDS}|{_SIGN}|(?:19|20)\d\d)\s*)*(?:{_SIGN}|(?:{_NATION}\s+)?{_MONEY})"
    rf"(?:\s*(?:{_SIGN}|(?:19|20)\d\d))*\s*$",
    re.I,
)
_SHARE_SCALE = re.compile(r"shares?\b[^.;)]{0,30}?\bin\s+(thousands|millions)\b", re.I)
_SHARES_EXCEPTED = re.compile(
    r"except\b[^)]{0,60}?(?<!per )(?<!per-)\bshares?\b(?![^)]{0,20}\bin\s+(?:thousands|millions))", re.I
)
# Currencies a text names outright, most specific first; a bare "$" is DOLLAR, never one of them.
_CURRENCIES: list[tuple[str, re.Pattern[str]]] = [
    ("HKD", re.compile(r"HK\$|\bHKD\b|港元|港币|hong\s+kong\s+dollars?", re.I)),
    ("CNY", re.compile(r"\bRMB\b|\bCNY\b|人民币|\brenminbi\b", re.I)),
    ("EUR", re.compile(r"€|\bEUR\b|\beuros?\b", re.I)),
    ("GBP", re.compile(r"£|\bGBP\b|\bsterling\b|\bbritish\s+pounds?\b", re.I)),
    ("CHF", re.compile(r"\bCHF\b|\bswiss\s+francs?\b", re.I)),
    ("JPY", re.compile(r"\bJPY\b|\byen\b|円", re.I)),
    ("CAD", re.compile(r"\bCAD\b|\bC\$|\bCDN\$|\bcanadian\s+dollars?\b", re.I)),
    ("AUD", re.compile(r"\bAUD\b|\bA\$|\bAU\$|\baustralian\s+dollars?\b", re.I)),
    ("NZD", re.compile(r"\bNZD\b|\bNZ\$|\bnew\s+zealand\s+dollars?\b", re.I)),
    ("SGD", re.compile(r"\bSGD\b|\bS\$|\bsingapore\s+dollars?\b", re.I)),
    ("ZAR", re.compile(r"\bZAR\b|\bR\s?['’]000\b|\bsouth\s+african\s+rand\b", re.I)),
    (
        "USD",
        re.compile(
            r"\bUS\$|\bU\.S\.\s?\$|\bUSD\b|\bU\.\s?S\.\s+dollars?\b|\bUS\s+dollars?\b|\bunited\s+states\s+dollars?\b",
            re.I,
        ),
    ),
    (DOLLAR, re.compile(r"\$|\bdollars?\b", re.I)),
]
CURRENCY_NAMES = {"AUD": "Australian dollars", "CAD": "Canadian dollars", "USD": "US dollars", "NZD": "NZ dollars"}


class Source(BaseModel):
    """The printed text that establishes one part of a figure, and where it is printed."""

    text: str = Field(description="as printed (a line, a header, a sentence), cut to 120 characters")
    page: int
    box: Box | None = Field(default=None, serialization_alias="bbox")


def source(text: str, page: int, box: Box | None) -> Source:
    return Source(text=text.strip()[:120], page=page, box=box)


@dataclass(frozen=True)
class Unit:
    """A declared scale (10**power; ``name`` as printed: 'millions', '万元'; '' for units) and currency, each with
    the line that declares it (``None``: not declared)."""

    power: int = 0
    name: str = ""
    currency: str | None = None  # an ISO code, DOLLAR (a bare $), or None
    share_power: int | None = None  # share counts' own scale, when it differs ("shares in thousands")
    scale_source: Source | None = None
    currency_source: Source | None = None

    @property
    def stated(self) -> bool:
        """Whether the scale was read from the filing (a statement of it, or figures printed to the cent)."""
        return self.scale_source is not None

    @property
    def multiplier(self) -> Decimal:
        return Decimal(10) ** self.power

    @property
    def shares_multiplier(self) -> Decimal:
        return Decimal(10) ** (self.power if self.share_power is None else self.share_power)

    def over(self, earlier: Unit) -> Unit:
        """This unit where it declares something, ``earlier``'s where it does not (a currency sign alone does not
        undo a scale stated before; a bare $ does not undo a currency named before)."""
        scaled = self if self.stated else earlier
        named = self.currency not in (None, DOLLAR) or earlier.currency is None
        money = self if named and self.currency is not None else earlier
        share_power = self.share_power if self.stated else earlier.share_power
        return Unit(scaled.power, scaled.name, money.currency, share_power, scaled.scale_source, money.currency_source)


def declared_scale(text: str) -> tuple[int, str] | None:
    """The scale a text declares, as (power of ten, name), e.g. '(in millions)' → (6, 'millions'); None if none."""
    found = _SCALE.search(text)
    if not found:
        return (0, "") if _IN_UNITS.search(text) else None
    word = next(group for group in found.groups() if group)
    name = _WORDS.get(word.lower(), word.lower()) if word.isascii() else word
    return _POWERS[name], name


def currency(text: str) -> str | None:
    """The currency a text names (an ISO code), DOLLAR for a bare dollar sign, None if it names none."""
    return next((code for code, pattern in _CURRENCIES if pattern.search(text)), None)


def declared_unit(text: str, page: int = 0, box: Box | None = None) -> Unit | None:
    """The unit declared by a text (a title, a line above a table, a column header), sourced to ``page`` and
    ``box``; None if it declares neither a scale nor a currency."""
    scale = declared_scale(text)
    money = currency(text)
    if scale is None and money is None:
        return None
    power, name = scale or (0, "")
    share = _SHARE_SCALE.search(text)
    share_power = _POWERS[share.group(1).lower()] if share else (0 if _SHARES_EXCEPTED.search(text) else None)
    where = source(text, page, box)
    return Unit(power, name, money, share_power, where if scale else None, where if money else None)


def lines_unit(lines: list[Line], page: int, start: Unit | None = None) -> Unit:
    """What ``lines`` declare over ``start``, line by line from the top: each part from the first line stating it."""
    unit = start or Unit()
    scale_found = money_found = False
    for line in lines:
        declared = declared_unit(line.text, page, line.box)
        if declared is None:
            continue
        if scale_found:
            declared = replace(declared, power=unit.power, name=unit.name, scale_source=None)
        if money_found:
            declared = replace(declared, currency=None, currency_source=None)
        unit = declared.over(unit)
        scale_found = scale_found or declared.stated
        money_found = money_found or declared.currency not in (None, DOLLAR)
    return unit


def signs_only(lines: list[tuple[str, Box | None]], page: int) -> Source | None:
    """The column-header line (its text and box) that prints a bare currency over the figures, and no scale."""
    found = next(((text, box) for text, box in lines if _SIGNS_ONLY.match(text.strip())), None)
    return source(f"{found[0]} (the currency alone over the figures)", page, found[1]) if found else None


def page_multiplier(text: str) -> Decimal:
    """A page's declared scale as a multiplier: '(in millions)' → 10**6, '单位：万元' → 10**4; 1 if none."""
    scale = declared_scale(text)
    return Decimal(10) ** scale[0] if scale else Decimal(1)
