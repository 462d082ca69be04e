"""Document awareness: companies, years and forms named in a question, matched against document metadata.

"What was 3M's FY2018 capital expenditure?" should search 3M's 2018 10-K, not its 2022 one. Aliases come from
the metadata the indexer extracted (company name without legal suffixes, its first distinctive word, tickers,
stock codes, the Chinese short name, its pinyin and English name) — never from a list of known companies.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from indexer.core.fiscal import first_date
from indexer.core.legal_forms import forms_pattern
from indexer.core.models import DocumentMeta
from indexer.core.text import CJK

# a name's legal form (core/legal_forms.py) and the words every name may carry
_LEGAL_SUFFIXES = re.compile(
    rf"\b(?:the|{forms_pattern(generic=True, dotless=True)}|group|holdings?|international|com)\b"
)


def without_legal_form(name: str) -> str:
    """A company name, lower-cased, without its legal form and the words every name may carry ("The Boeing
    Company" → "boeing", "MGM Resorts International" → "mgm resorts")."""
    return " ".join(_LEGAL_SUFFIXES.sub(" ", name.lower().replace("&", " ")).split())


def initials(name: str) -> str | None:
    """The acronym a name of three or more words goes by ("advanced micro devices" → "AMD"), matched only in
    capitals; None for shorter names, whose initials would be ambiguous."""
    words = re.findall(r"[a-z]+", name)
    return "".join(w[0] for w in words).upper() if len(words) >= 3 else None


_CN_SUFFIXES = ("股份有限公司", "有限公司", "集团", "股份", "控股", "科技", "国际", "实业", "电子", "医药", "技术")
# First words of company names too common to identify a company on their own.
_COMMON_WORDS = frozenset(
    {
        "best", "first", "general", "american", "united", "national", "global", "new", "bank", "great",
        "royal", "southern", "northern", "western", "eastern", "china", "chinese", "world", "capital",
        "energy", "financial", "health",
    }
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_SHORT_FY = re.compile(r"\bfy\s?'?(\d{2})\b|\b[1-4]q(\d{2})\b|\b(\d{2})q[1-4]\b", re.I)

# Question words that point at a kind of document.
FORM_HINTS: dict[str, re.Pattern[str]] = {
    # A question about several years of history is answered by an annual report, which prints three to five.
    "annual": re.compile(
        r"\b10-?k\b|annual report|fiscal year|full[- ]year|年报|年度报告|全年|\b(?:each|every|per) year\b|"
        r"historical(?:ly)?\b|(?:last|past) (?:few|several|\w+) years|历年|近(?:[三五]|几)年",
        re.I,
    ),
    "quarterly": re.compile(r"\b10-?q\b|\bq[1-4]\b|\b[1-4]q\d{2}\b|quarter|季度|季报|一季|二季|三季|四季", re.I),
    "earnings": re.compile(
        r"earnings (?:release|call)|press release|业绩快报|\bq[1-4]\b|\b[1-4]q\d{2}\b|quarter(?:ly)? results", re.I
    ),
    "current": re.compile(r"\b8-?k\b", re.I),
    "research": re.compile(r"研报|研究报告|券商|broker|analyst rating|target price|目标价|评级", re.I),
}
_FORM_FAMILY = {
    "10-K": "annual",
    "20-F": "annual",
    "年报": "annual",
    "10-Q": "quarterly",
    "季报": "quarterly",
    "半年报": "quarterly",
    "8-K": "current",
    "earnings release": "earnings",
    "研报": "research",
}


def _compact(text: str) -> str:
    return "".join(_WORD.findall(text.lower()))


def romanised(company: str | None) -> str | None:
    """A Chinese company name's short form in pinyin (四方科技股份有限公司 → sifangkeji), to match questions that
    spell it out; computed when the index is built and kept in the manifest (pypinyin costs 0.5 s and 60 MB)."""
    if not company or not CJK.search(company):
        return None
    core = _chinese_core(company)
    if len(core) < 2:
        return None
    from pypinyin import lazy_pinyin

    return "".join(lazy_pinyin(core))


def _chinese_core(name: str) -> str:
    core = name
    for suffix in _CN_SUFFIXES:
        if core.endswith(suffix) and len(core) - len(suffix) >= 2:
            core = core[: -len(suffix)]
    return core


@dataclass(frozen=True)
class Aliases:
    compact: frozenset[str]  # matched inside the question with spaces and punctuation removed (≥ 5 chars)
    words: frozenset[str]  # matched as whole lower-case words
    exact: frozenset[str]  # matched as whole words, case-sensitive (2-letter tickers)
    cjk: frozenset[str]  # matched as substrings (Chinese names)


class _Named(NamedTuple):
    """The fields of a document's record its aliases are read from: the cache's key (the whole record, with its
    periods and items, costs more to spell as a key than its aliases cost to read)."""

    document: str
    company: str | None
    english_name: str | None
    printed_names: tuple[str, ...]
    company_pinyin: str | None
    tickers: tuple[str, ...]
    stock_code: str | None


@lru_cache(maxsize=4096)
def _aliases_cached(meta: _Named) -> Aliases:
    compact: set[str] = set()
    words: set[str] = set()
    exact: set[str] = set()
    cjk: set[str] = set()
    names = [n for n in (meta.company, meta.english_name, *meta.printed_names) if n]
    if meta.company is None:
        prefix = re.match(r"[A-Za-z]+(?:_[A-Za-z]+)*", Path(meta.document).stem)
        if prefix:
            names.append(prefix.group(0).replace("_", " "))
    for name in names:
        if CJK.search(name):
            cjk.add(name)
            core = _chinese_core(name)
            if len(core) >= 2:
                cjk.add(core)
            pinyin = meta.company_pinyin if name == meta.company and meta.company_pinyin else romanised(name)
            if pinyin:
                compact.add(pinyin)
            continue
        stripped = without_legal_form(name)
        if len(_compact(stripped)) >= 5:
            compact.add(_compact(stripped))
        first = next(iter(_WORD.findall(stripped)), "")
        if len(first) >= 3 and first not in _COMMON_WORDS:
            (compact if len(first) >= 5 else words).add(first)
        elif len(first) == 2 and any(c.isdigit() for c in first) and any(c.isalpha() for c in first):
            words.add(first)  # "3M Company" goes by 3M
        if acronym := initials(stripped):
            exact.add(acronym)
        if "&" in (joined := next(iter(_RAW_WORD.findall(name)), "")):
            exact.add(joined)  # a name that begins with one word joined by an ampersand goes by it: PG&E, AT&T
        for form in short_forms(name):  # J&J as printed; AmEx, Amex or AMEX
            (exact if "&" in form else words).add(form if "&" in form else form.lower())
    for ticker in meta.tickers:
        (words if len(ticker) >= 3 else exact).add(ticker.lower() if len(ticker) >= 3 else ticker)
    if meta.stock_code:
        words.add(meta.stock_code)
    return Aliases(frozenset(compact), frozenset(words), frozenset(exact), frozenset(cjk))


def aliases(meta: DocumentMeta) -> Aliases:
    named = _Named(meta.document, meta.company, meta.english_name, tuple(meta.printed_names), meta.company_pinyin,
                   tuple(meta.tickers), meta.stock_code)  # fmt: skip
    return _aliases_cached(named)


def short_forms(name: str) -> set[str]:
    """The short forms a two-word name goes by: the initials around its ampersand ("Johnson & Johnson" → J&J,
    "Procter & Gamble" → P&G) and the first two letters of each word ("American Express" → AmEx, matched in any
    case as AMEX)."""
    found: set[str] = set()
    left, amp, right = _LEGAL_SUFFIXES.sub(" ", name.lower()).partition(" & ")  # between words: not PG&E's
    if amp and left.strip().isalpha() and right.strip().isalpha():  # one word on each side
        found.add(f"{left.strip()[0]}&{right.strip()[0]}".upper())
    words = re.findall(r"[a-z]+", without_legal_form(name))
    if len(words) == 2 and all(len(word) >= 4 for word in words):
        found.add((words[0][:2] + words[1][:2]).upper())
    return found


_RAW_WORD = re.compile(r"[A-Za-z]+(?:&[A-Za-z]+)*")


def names_company(meta: DocumentMeta, question: str) -> bool:
    """Whether the question names this document's company (by any alias)."""
    found = aliases(meta)
    lowered = question.lower()
    compact = _compact(question) + "".join(CJK.findall(question))
    words = set(_WORD.findall(lowered))
    raw_words = set(_RAW_WORD.findall(question))
    return (
        any(a in compact for a in found.compact)
        or bool(found.words & words)
        or bool(found.exact & raw_words)
        or any(a in question for a in found.cjk)
    )


def question_years(question: str) -> set[int]:
    years = {int(y) for y in _YEAR.findall(question)}
    for match in _SHORT_FY.finditer(question):
        digits = next(g for g in match.groups() if g)
        years.add(2000 + int(digits))
    return years


def document_years(meta: DocumentMeta) -> set[int]:
    return set(_years_of(meta.year, meta.period, meta.document))


@lru_cache(maxsize=4096)
def _years_of(year: int | None, period: str | None, document: str) -> frozenset[int]:
    years = {year} if year else set()
    for text in (period or "", Path(document).stem):
        years |= {int(y) for y in _YEAR.findall(text)}
    return frozenset(years)


# An 8-K is dated by its event and filed up to four business days later: a date named this close is that filing's.
_DATE_REACH_DAYS = 7


def names_date_of(meta: DocumentMeta, question: str) -> bool:
    """Whether the question names the date this document reports (its period end or event date, or filing date)."""
    named = first_date(question)
    if named is None:
        return False
    asked = date.fromisoformat(named)
    for own in (meta.period_end, meta.filing_date):
        try:
            if own and abs((date.fromisoformat(own) - asked).days) <= _DATE_REACH_DAYS:
                return True
        except ValueError:
            continue
    return False


def question_forms(question: str) -> set[str]:
    return {family for family, pattern in FORM_HINTS.items() if pattern.search(question)}


def _newest_of_each_form(documents: list[DocumentMeta]) -> set[str]:
    """The documents of the latest fiscal year (then period end) within each form family."""
    best: dict[str, tuple[int, str]] = {}
    for meta in documents:
        family = _FORM_FAMILY.get(meta.form or "", meta.form or "")
        key = (meta.year or 0, meta.period_end or "")
        if family not in best or key > best[family]:
            best[family] = key
    return {
        m.document
        for m in documents
        if best[_FORM_FAMILY.get(m.form or "", m.form or "")] == (m.year or 0, m.period_end or "")
    }


@dataclass(frozen=True)
class DocumentFocus:
    """Which documents a question is about: ``scope`` limits the search, ``preferred`` ranks first."""

    scope: list[str] | None
    preferred: frozenset[str]
    companies_named: bool


def focus(documents: list[DocumentMeta], question: str) -> DocumentFocus:
    """Scope to the companies a question names; among their filings, prefer those of the dates, years and forms it
    names — or, when it names no year, the latest filing of each form (a question without a period asks about now).
    A date a filing reports ("as of August 30, 2023" → the 8-K of that day) outweighs a year and a form together.

    Years and forms alone (no company named) are too weak a signal across a whole library and are not used.
    """
    named = [m for m in documents if names_company(m, question)]
    if not named:
        return DocumentFocus(scope=None, preferred=frozenset(), companies_named=False)
    candidates = named
    years = question_years(question)
    forms = question_forms(question)
    newest = {} if years else _newest_of_each_form(candidates)
    priors: dict[str, int] = {}
    for meta in candidates:
        prior = 2 * min(len(years & document_years(meta)), 2) + (2 if meta.document in newest else 0)
        if meta.form and _FORM_FAMILY.get(meta.form) in forms:
            prior += 1
        if names_date_of(meta, question):
            prior += 4
        priors[meta.document] = prior
    best = max(priors.values(), default=0)
    preferred = frozenset(d for d, p in priors.items() if p == best and best > 0)
    if len(preferred) == len(candidates):
        preferred = frozenset()
    return DocumentFocus(scope=[m.document for m in named], preferred=preferred, companies_named=True)


CLOSEST = 5  # companies named when a company filter matches none


def closest_companies(company: str, documents: list[DocumentMeta]) -> list[str]:
    """The companies whose names are nearest ``company`` (at most :data:`CLOSEST`; the first ones by name when none
    is near): what a filter that matched nothing says exists, at any size of index."""
    names = sorted({meta.company for meta in documents if meta.company})
    lowered = {name.casefold(): name for name in names}
    near = difflib.get_close_matches(company.casefold(), list(lowered), n=CLOSEST, cutoff=0.4)
    return [lowered[name] for name in near] or names[:CLOSEST]
