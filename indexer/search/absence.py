"""Saying when the index may not hold the answer, instead of returning the nearest passages as if they were one.

A question is flagged when it names something the documents searched do not hold — a name (a capitalised word or
ticker, or a run of three or more Chinese characters) that no passage and no document's company aliases contain, a
year no document searched covers, a form (10-K, 年报, …) none of them is — when none of its words occurs in the index
at all, or when no hit shares any of its key terms (its words that do occur in the index, besides company names and
numbers). Every rule errs towards silence: a note on a question the index can answer misleads more than a missing
one (measured on the dev questions by `filings-index eval`, column `noted`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from indexer.core.docmatch import aliases, document_years, names_company, question_years
from indexer.core.models import DocumentMeta
from indexer.core.text import CJK_RANGE, has_cjk
from indexer.core.tokenize import Tokenizer
from indexer.search.expand import generic_words, glossary_terms

_NAME = re.compile(r"(?<![\w&'.-])[A-Z][A-Za-z0-9&'.-]*[A-Za-z0-9](?![\w&'-])")
_CJK_RUN = re.compile(f"[{CJK_RANGE}]{{3,}}")
_FORMS: dict[str, re.Pattern[str]] = {
    "10-K": re.compile(r"\b10-?K\b", re.I),
    "10-Q": re.compile(r"\b10-?Q\b", re.I),
    "8-K": re.compile(r"\b8-?K\b", re.I),
    "20-F": re.compile(r"\b20-?F\b", re.I),
    "年报": re.compile(r"年报|年度报告"),
    "研报": re.compile(r"研报|研究报告"),
}
# A filing of year Y reports on Y and, in its comparatives and multi-year tables, the years before; a fiscal year
# may be named after the calendar year it ends in.
YEARS_BEFORE, YEARS_AFTER = 5, 1
# The company a question is about: "Toyota's operating income", "did Meta report" (a name printed in some passage —
# a competitor list, a customer — is still not a company the knowledge base holds filings of).
_SUBJECT = re.compile(
    r"(?<![\w&'.-])([A-Z][A-Za-z0-9&.-]*(?:\s+[A-Z][A-Za-z0-9&.-]*){0,3})(?:'s|’s|s'|s’)(?![\w])|"
    r"\b(?i:did|does|do|has|have|will)\s+([A-Z][A-Za-z0-9&.-]*(?:\s+[A-Z][A-Za-z0-9&.-]*){0,3})\s+"
    r"(?i:report|announce|disclose|pay|post|record|spend|earn|generate|have|expect|guide)\w*\b"
)
# Words a possessive follows that are not a company's name: the filer as its own report calls it ("the Group's
# revenue", "the Bank's margin"), its people and bodies ("the Board's", "Directors' report"), and contractions.
_NOT_A_SUBJECT = frozenset(
    {
        "here",
        "there",
        "it",
        "that",
        "what",
        "who",
        "let",
        "today",
        "this",
        "one",
        "everyone",
        "company",
        "group",
        "bank",
        "trust",
        "fund",
        "partnership",
        "corporation",
        "firm",
        "issuer",
        "registrant",
        "board",
        "management",
        "chairman",
        "chair",
        "ceo",
        "cfo",
        "coo",
        "director",
        "auditor",
        "committee",
        "shareholder",
        "stockholder",
        "investor",
        "analyst",
        "member",
        "employee",
        "customer",
        "partner",
        "government",
    }
)
_SHOWN = 5


@dataclass(frozen=True)
class Absence:
    """A note for the result (None when nothing is missing) and the hits to mark weak, by position."""

    note: str | None
    weak: frozenset[int]


def unknown_names(
    question: str, tokenizer: Tokenizer, known: Callable[[str], bool], documents: list[DocumentMeta]
) -> list[str]:
    """Names in the question that neither a passage nor a document's company aliases contain (the aliases are
    gathered only when some name is in no passage: most questions never need them)."""
    out = []
    alias_words: set[str] | None = None
    found = [re.sub(r"(?:'s|’s)$", "", name) for name in _NAME.findall(question)]  # Gaoce's → Gaoce
    for name in dict.fromkeys([*found, *_CJK_RUN.findall(question)]):
        tokens = tokenizer.tokenize(name)
        if not tokens or any(c.isdigit() for c in name) or any(known(t) for t in tokens):
            continue
        if any(known(t) for t in equivalent_tokens(name, tokenizer)):
            continue  # an abbreviation the filings spell out (PPNE, FCF, NPL, 营收)
        if alias_words is None:
            alias_words = {word for meta in documents for kind in _alias_sets(meta) for word in kind}
        if name.lower() not in alias_words and not any(name in word for word in alias_words):
            out.append(name)
    return out


def equivalent_tokens(text: str, tokenizer: Tokenizer) -> set[str]:
    """The tokens of the glossary's equivalents of the concepts ``text`` names (both ways, both languages)."""
    return {t for term in glossary_terms(text) for t in tokenizer.tokenize(term)}


def unheld_companies(question: str, tokenizer: Tokenizer, documents: list[DocumentMeta]) -> list[str]:
    """Companies the question is about ("Toyota's …", "did Meta report …") that no document in the index is of
    (by name, ticker or usual short form); a possessive that names a concept (EBITDA's) or only generic words is not
    a company."""
    out = []
    for match in _SUBJECT.finditer(question):
        name = (match.group(1) or match.group(2) or "").strip()
        tokens = set(tokenizer.tokenize(name))
        generic = not tokens or tokens <= generic_words(tokenizer)
        ordinary = name.lower().removesuffix("s") in _NOT_A_SUBJECT or any(c.isdigit() for c in name)
        if ordinary or generic or glossary_terms(name):
            continue
        if not any(names_company(meta, name) for meta in documents):
            out.append(name)
    return list(dict.fromkeys(out))


def _alias_sets(meta: DocumentMeta) -> Iterable[frozenset[str]]:
    found = aliases(meta)
    return (found.compact, found.words, found.exact, found.cjk)


def unheld_years(
    question: str, documents: list[DocumentMeta], printed: Callable[[str], bool] = lambda _: False
) -> list[int]:
    """Years the question names that no document's year (or the years it reports on) covers and no searched
    document prints (a broker note's forecasts, a 10-K's payments due in later years)."""
    held = {year for meta in documents for year in document_years(meta)}
    if not held:
        return []
    return sorted(
        year for year in question_years(question)
        if not any(have - YEARS_BEFORE <= year <= have + YEARS_AFTER for have in held) and not printed(str(year))
    )  # fmt: skip


def unheld_forms(question: str, documents: list[DocumentMeta]) -> list[str]:
    """Forms the question names explicitly that no document is (documents of unknown form might be any)."""
    forms = {meta.form for meta in documents}
    if None in forms:
        return []
    return [form for form, pattern in _FORMS.items() if pattern.search(question) and form not in forms]


def content_terms(question: str, tokenizer: Tokenizer, names: set[str]) -> set[str]:
    """The question's words besides company names and numbers."""
    return {t for t in tokenizer.tokenize(question) if t not in names and not any(c.isdigit() for c in t)}


def _listed(items: Iterable[object]) -> str:
    shown = [str(item) for item in items]
    return ", ".join(shown[:_SHOWN]) + (f" (+{len(shown) - _SHOWN} more)" if len(shown) > _SHOWN else "")


def absence(
    question: str,
    tokenizer: Tokenizer,
    known: Callable[[str], bool],
    searched: list[DocumentMeta],
    every: list[DocumentMeta],
    names: set[str],
    passages: list[str],
    holds: Callable[[int, set[str]], set[str]],
    printed: Callable[[str], bool] = lambda _: False,
) -> Absence:
    """Whether the documents ``searched`` (of ``every`` in the index) may not hold the answer to ``question``,
    given the ``passages`` found (best first); ``known`` tells whether a token occurs in any passage, ``holds``
    which of some tokens passage i holds, ``printed`` whether some searched passage holds a token. A term counts
    as present when it or one of its glossary equivalents is; the question's language decides nothing."""
    missing = []
    companies = unheld_companies(question, tokenizer, every)
    if companies:
        missing.append(f"no document in the knowledge base is a filing or report of {_listed(companies)}")
    unknown = [n for n in unknown_names(question, tokenizer, known, every) if n not in companies]
    if unknown:
        missing.append(f"no document in the knowledge base mentions {_listed(unknown)}")
    years = unheld_years(question, searched, printed)
    if years:
        held = sorted({y for meta in searched for y in document_years(meta)})
        missing.append(f"no document searched covers {_listed(years)} (their years: {held[0]}–{held[-1]})")
    forms = unheld_forms(question, searched)
    if forms:
        have = sorted({meta.form for meta in searched if meta.form})
        missing.append(f"no document searched is a {' or '.join(forms)} (forms searched: {_listed(have)})")
    content = content_terms(question, tokenizer, names)
    terms = {t for t in content if known(t)}  # the key terms: those that occur in the index
    equivalents = {t for t in equivalent_tokens(question, tokenizer) if known(t)} - names
    if content and not terms and not equivalents and not unknown and not companies:
        missing.append(f"none of the question's terms occurs in the knowledge base ({_listed(sorted(content))})")
    # a passage in the other language (found through the query's translation) cannot share its words
    same_language = [has_cjk(text) == has_cjk(question) for text in passages]
    wanted = terms | equivalents
    sharing = [not wanted or not comparable or bool(holds(i, wanted)) for i, comparable in enumerate(same_language)]
    weak = frozenset(i for i, shares in enumerate(sharing) if missing or not shares)
    if any(same_language) and wanted and not any(sharing):
        missing.append(f"no passage found contains any of the question's key terms ({_listed(sorted(terms))})")
    if not missing:
        return Absence(None, weak)
    note = (
        f"the answer may not be in the knowledge base: {'; '.join(missing)}. The hits below are only the nearest "
        "passages (marked weak); say it was not found rather than answer from them."
    )
    return Absence(note, weak)
