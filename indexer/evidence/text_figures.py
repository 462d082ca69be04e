"""A statement's scale checked against the filing's own words: where the text states a key figure in words ("net
sales of $34.2 billion", "total assets of $15.8 billion"), the statement's figure in units must agree with it.

A mention counts for a row when the words just before the amount name the row's concept (read by the same concept
patterns as the statements' labels, indexer/data/vocabulary.toml) and the amount equals the row's value within the
mention's rounding. It disagrees when no mention agrees and one equals the row's value a thousand or a million times
over or under: the scale the statement was read in is not the one the text reads it in, and its figures are not
verified. Rows no mention speaks of are not checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import NamedTuple

from indexer.core.models import Page
from indexer.evidence.concepts import concept_of
from indexer.evidence.financials import FinancialRow
from indexer.evidence.identities import Identity

CHECKED = frozenset({"revenue", "net_income", "total_assets"})
PAGES_READ = 300  # pages whose text is read for amounts in words
WORDS_BEFORE = 6  # words before an amount that may name what it is …
BEFORE_CHARS = 80  # … read from this many characters before it
SHIFTS = (3, 6, -3, -6)  # powers of ten by which a misread scale moves a figure
_AMOUNT = re.compile(r"(?<![\w.])(?:US)?\$\s?(\d{1,3}(?:,\d{3})+|\d{1,4}(?:\.\d{1,3})?)\s*(billion|million)\b", re.I)
_POWER = {"billion": 9, "million": 6}
_WORD = re.compile(r"[A-Za-z']+")
_JOINERS = {"of", "was", "were", "to", "at", "totaled", "totalled", "increased", "decreased", "rose", "fell", "reached"}


class Mention(NamedTuple):
    value: Decimal
    slack: Decimal  # half a unit of the amount's last printed digit
    concept: str
    text: str
    page: int


def _concept(words: list[str], statement: str) -> tuple[str, str] | None:
    """The concept the words before an amount name, and its first word: the longest run of them ending at the
    amount (joining words such as 'of' or 'were' dropped) that a concept's label pattern reads whole."""
    while words and words[-1].lower() in _JOINERS:
        words = words[:-1]
    for start in range(max(0, len(words) - WORDS_BEFORE), len(words)):
        if found := concept_of(" ".join(words[start:]), statement):
            return found, words[start]
    return None


def mentions(page_of: Callable[[int], Page], pages: int, statements: dict[str, str]) -> list[Mention]:
    """Amounts in words that name one of the checked concepts (``statements``: concept → its statement)."""
    found = []
    for number in range(1, min(pages, PAGES_READ) + 1):
        text = " ".join(line.text for line in page_of(number).lines)
        for amount in _AMOUNT.finditer(text):
            before = text[max(0, amount.start() - BEFORE_CHARS) : amount.start()]
            named = (_concept(_WORD.findall(before), s) for s in set(statements.values()))
            concept, first = next(((c, w) for found in named if found for c, w in [found] if c in CHECKED), ("", ""))
            if not concept:
                continue
            digits = amount.group(1).replace(",", "")
            places = len(digits.split(".")[1]) if "." in digits else 0
            power = _POWER[amount.group(2).lower()]
            value = Decimal(digits) * Decimal(10) ** power
            slack = Decimal(5) * Decimal(10) ** (power - places - 1)
            quoted = before[before.rfind(first) :] + amount.group(0)  # from the words naming it to the amount
            found.append(Mention(value, slack, concept, quoted, number))
    return found


def scale_checks(document: str, rows: list[FinancialRow], page_of: Callable[[int], Page], pages: int) -> list[Identity]:
    """Each checked row that the text speaks of: whether the statement's scale agrees with the text's amount."""
    key = [r for r in rows if r.concept in CHECKED and r.unit == "currency" and r.value and r.scale_source]
    if not key:
        return []
    said = mentions(page_of, pages, {r.concept: r.statement for r in key if r.concept})
    found = []
    for row in key:
        value = Decimal(row.value or "0").copy_abs()
        spoken = [m for m in said if m.concept == row.concept]
        agree = next((m for m in spoken if abs(m.value - value) <= m.slack), None)
        shifted = next(
            (m for m in spoken for k in SHIFTS if abs(m.value - value * Decimal(10) ** k) <= m.slack), None
        )  # fmt: skip
        mention = agree or shifted
        if mention is None:
            continue
        detail = f"{row.value_printed} ({row.scale or 'units'}) vs {mention.text!r} p.{mention.page}"
        name = "the scale agrees with the text"
        found.append(Identity(document=document, page=row.page, statement=row.statement, period=row.period,
                              name=name, holds=agree is not None, detail=detail))  # fmt: skip
        if agree is None:
            row.missing.append(f"scale disagrees with the text ({mention.text!r} p.{mention.page})")
            row.verified = False
    return found
