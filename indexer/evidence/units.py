"""The unit a table declares: its scale ("in millions", "$'000", "€m", 单位：万元) and its currency.

A statement says its unit once, above the table or in its title, often only on its first page; the figures inside
are printed in that unit. Per-share amounts and percentages are printed as they are ("except per share amounts"),
and share counts may have their own scale ("shares in thousands").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

_POWERS = {"thousands": 3, "millions": 6, "billions": 9, "千元": 3, "万元": 4, "百万元": 6, "亿元": 8, "元": 0}
_WORDS = {"thousand": "thousands", "million": "millions", "billion": "billions", "m": "millions", "bn": "billions"}
_WORDS |= {"000": "thousands", "k": "thousands"}
_SCALE = re.compile(
    r"in\s+(?:[$€£]\s*|us\s*dollars\s+|dollars\s+|euros?\s+|(?:usd|eur|gbp|rmb|hk\$)\s*)?"
    r"(thousands|millions|billions|thousand|million|billion)\b"
    r"|(?:dollars|amounts|euros?)\s+in\s+(thousands|millions|billions)\b"
    r"|单位\s*[:：]\s*(?:人民币|rmb)?\s*(千元|万元|百万元|亿元|元)"
    r"|(?:人民币|rmb)\s*(千元|万元|百万元|亿元)"
    r"|(?:[$€£]|us\$|rmb|hk\$|usd|eur|gbp)\s*['’](000)\b"
    r"|(?<![\w$€£])(?:[$€£]|us\$|usd|eur|gbp|rmb|chf)\s?(m|bn)\b"
    r"|(?:[$€£]|usd|eur|gbp|rmb|chf)\s+(million|billion|thousand)s?\b"
    r"|\b(thousands|millions|billions)\s+of\s+(?:(?:u\.\s?s\.|us|canadian|australian|hong\s+kong|new\s+zealand|"
    r"singapore)\s+)?(?:dollars|yen|euros?|pounds|sterling|renminbi|yuan|francs|won|rupees)\b",
    re.I,
)
_SHARE_SCALE = re.compile(r"shares?\b[^.;)]{0,30}?\bin\s+(thousands|millions)\b", re.I)
_SHARES_EXCEPTED = re.compile(
    r"except\b[^)]{0,60}?(?<!per )(?<!per-)\bshares\b(?![^)]{0,20}\bin\s+(?:thousands|millions))", re.I
)
_CURRENCIES: list[tuple[str, re.Pattern[str]]] = [
    ("HKD", re.compile(r"HK\$|\bHKD\b|港元|港币")),
    ("CNY", re.compile(r"\bRMB\b|\bCNY\b|人民币|单位\s*[:：]\s*(?:千|万|百万|亿)?元")),
    ("EUR", re.compile(r"€|\bEUR\b|\beuros?\b", re.I)),
    ("GBP", re.compile(r"£|\bGBP\b|\bsterling\b", re.I)),
    ("CHF", re.compile(r"\bCHF\b")),
    ("JPY", re.compile(r"\bJPY\b|\byen\b|円", re.I)),
    ("CAD", re.compile(r"\bCAD\b|C\$|\bcanadian\s+dollars?\b", re.I)),
    ("AUD", re.compile(r"\bAUD\b|A\$|\baustralian\s+dollars?\b", re.I)),
    ("USD", re.compile(r"US\$|\bUSD\b|\$|\bU\.S\. dollars\b|\bdollars\b", re.I)),
]


@dataclass(frozen=True)
class Unit:
    """A declared scale (10**power; ``name`` as printed: 'millions', '万元') and the currency, when stated."""

    power: int = 0
    name: str = ""
    currency: str | None = None
    share_power: int | None = None  # share counts' own scale, when it differs ("shares in thousands")
    stated: bool = False  # printed (a scale, or a currency over the figures with none: units); not a guess

    @property
    def multiplier(self) -> Decimal:
        return Decimal(10) ** self.power

    @property
    def shares_multiplier(self) -> Decimal:
        return Decimal(10) ** (self.power if self.share_power is None else self.share_power)


def declared_scale(text: str) -> tuple[int, str] | None:
    """The scale a text declares, as (power of ten, name), e.g. '(in millions)' → (6, 'millions'); None if none."""
    found = _SCALE.search(text)
    if not found:
        return None
    word = next(group for group in found.groups() if group)
    name = _WORDS.get(word.lower(), word.lower()) if word.isascii() else word
    return _POWERS[name], name


def currency(text: str) -> str | None:
    """The currency a text names (a code or sign); None if it names none."""
    return next((code for code, pattern in _CURRENCIES if pattern.search(text)), None)


def declared_unit(text: str) -> Unit | None:
    """The unit declared by the lines around a table (its title, the lines above it); None if they declare none."""
    scale = declared_scale(text)
    money = currency(text)
    if scale is None and money is None:
        return None
    power, name = scale or (0, "")
    share = _SHARE_SCALE.search(text)
    share_power = _POWERS[share.group(1).lower()] if share else (0 if _SHARES_EXCEPTED.search(text) else None)
    return Unit(power, name, money, share_power, stated=True)


def page_multiplier(text: str) -> Decimal:
    """A page's declared scale as a multiplier: '(in millions)' → 10**6, '单位：万元' → 10**4; 1 if none."""
    scale = declared_scale(text)
    return Decimal(10) ** scale[0] if scale else Decimal(1)
