"""The documents a search request's filters allow (a file-name glob, a company, a year, a form, a broker)."""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from pathlib import Path

from indexer.core.docmatch import closest_companies
from indexer.core.errors import QueryError, shown
from indexer.core.models import DocumentMeta
from indexer.index.reader import LoadedIndex, document_names
from indexer.search.request import MAX_GLOB_CHARS, Filters


def _matches_form(meta: DocumentMeta, form: str) -> bool:
    wanted = form.strip().lower().replace(" ", "")
    have = (meta.form or "").lower().replace(" ", "")
    return bool(have) and (wanted == have or wanted.replace("-", "") == have.replace("-", "") or wanted in have)


def _glob(documents: str) -> re.Pattern[str]:
    """A file-name glob, compiled without fnmatch's own cache (32,768 entries: long globs would stay in memory)."""
    pattern = documents.strip().lower()
    if len(pattern) > MAX_GLOB_CHARS:
        raise QueryError(
            f"documents={shown(documents)} is longer than {MAX_GLOB_CHARS} characters; pass a short file-name glob "
            "such as '*2022*'"
        )
    return re.compile(fnmatch.translate(pattern))


def filter_documents(index: LoadedIndex, filters: Filters) -> list[str] | None:
    """Names of the documents the filters allow; ``None`` when no filter was given. A filter that leaves nothing
    raises :class:`QueryError` naming the values the index does have."""
    if filters.empty:
        return None
    documents, company, year, form = filters.documents, filters.company, filters.year, filters.form
    names = list(index.documents)
    if documents:
        glob = _glob(documents)
        names = [n for n in names if glob.match(n.lower()) or glob.match(Path(n).name.lower())]
        if not names:
            raise QueryError(
                f"no document matches documents={shown(documents)}; indexed documents: {document_names(index)}"
            )
    if company:
        wanted = company.strip().lower()
        folded = without_accents(wanted)
        names = [
            n
            for n in names
            if wanted in n.lower()
            or folded in without_accents((index.documents[n].company or "").lower())
            or folded in without_accents((index.documents[n].english_name or "").lower())
            or wanted == (index.documents[n].stock_code or "")
            or wanted.upper() in index.documents[n].tickers
            or wanted.replace(" ", "") == (index.documents[n].company_pinyin or "").lower().replace(" ", "")
        ]
        if not names:
            everyone = list(index.documents.values())
            companies = len({m.company for m in everyone if m.company})
            raise QueryError(
                f"no document of company={shown(company)}; the closest of the {companies} companies in the index: "
                f"{', '.join(closest_companies(company, everyone))} (list_documents lists them)"
            )
    if year is not None:
        names_before = names
        names = [n for n in names if index.documents[n].year == year]
        if not names:
            raise QueryError(f"no document of year={year} among the selected ones; {_years_held(index, names_before)}")
    if form:
        names = [n for n in names if _matches_form(index.documents[n], form)]
        if not names:
            forms = sorted({m.form for m in index.documents.values() if m.form})
            raise QueryError(f"no document of form={shown(form)} among the selected ones; forms in the index: {forms}")
    if filters.broker:
        wanted = filters.broker.strip().lower()
        names = [n for n in names if wanted in (index.documents[n].broker or "").lower()]
        if not names:
            brokers = sorted({m.broker for m in index.documents.values() if m.broker})
            raise QueryError(
                f"no research note of broker={shown(filters.broker)} among the selected ones; brokers in the index: "
                + (", ".join(brokers) or "none")
            )
    return names


def _years_held(index: LoadedIndex, names: list[str]) -> str:
    """The fiscal years the selected documents hold, as a span and a count (bounded at any size of index)."""
    years = sorted({year for n in names if (year := index.documents[n].year)})
    if not years:
        return "no fiscal year was read from them"
    if len(years) <= 6:
        return f"their fiscal years: {', '.join(map(str, years))}"
    return f"their fiscal years: {len(years)} from {years[0]} to {years[-1]}"


def without_accents(text: str) -> str:
    """``text`` with the accents of its Latin letters taken off ('Financière' → 'Financiere'): a name typed without
    them is the same name; other scripts are left as they are."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFD", text)
    kept = "".join(c for c in decomposed if not "\u0300" <= c <= "\u036f")  # Latin diacritics, not a kana's marks
    return unicodedata.normalize("NFC", kept)
