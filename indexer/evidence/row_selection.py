"""Which statement rows a get_financials request names: a statement, items (concepts or words of a label, in either
language) and a year (the filer's fiscal year, else the calendar year its periods end in), and what to say of the
items that name nothing."""

from __future__ import annotations

from indexer.core.errors import NotFoundError, shown
from indexer.evidence.concepts import concepts_named, normalise_label
from indexer.evidence.financials import FinancialRow


def _names(item: str, row: FinancialRow) -> bool:
    words = normalise_label(item)
    return bool(words) and words in normalise_label(row.label)


def _missing_item(item: str, statement: str | None, chosen: list[FinancialRow]) -> str:
    """What to say of an item that names no row: the concepts and labels there are."""
    present = sorted({r.concept for r in chosen if r.concept})
    labels = list(dict.fromkeys(r.label for r in chosen if r.concept is None))[:12]
    return (
        f"no row for item {shown(item)}"
        + (f" in the {statement} statement" if statement else "")
        + f"; concepts found: {', '.join(present) or 'none'}; other labels: "
        + ("; ".join(shown(label, 40) for label in labels) or "none")
        + ". Pass a concept or words of a label (English or Chinese)."
    )


def select_rows(
    rows: list[FinancialRow], statement: str | None, items: list[str] | None, year: int | None
) -> tuple[list[FinancialRow], list[str]]:
    """The rows of ``statement`` whose concept or label ``items`` name, in fiscal ``year``, and what to say of the
    items that name nothing. When no item names a row, :class:`NotFoundError` lists the concepts and labels there
    are; when some do, the others are only noted (a partial answer, never an error for the whole call)."""
    chosen = [r for r in rows if statement is None or r.statement == statement]
    if not chosen:
        found = ", ".join(dict.fromkeys(r.statement for r in rows))
        raise NotFoundError(f"no {statement} figures found; statements found: {found}")
    missing: list[str] = []
    if items:
        kept: list[FinancialRow] = []
        for item in items:
            named = concepts_named(item)  # a concept's name or a label its patterns accept; else words of a label
            matching = [r for r in chosen if (r.concept in named if named else _names(item, r))]
            if not matching:
                missing.append(_missing_item(item, statement, chosen))
            kept.extend(r for r in matching if r not in kept)
        if not kept:
            others = f" ({len(missing) - 1} more item(s) found nothing either)" if len(missing) > 1 else ""
            raise NotFoundError(missing[0] + others)
        chosen = kept
    if year is not None:
        chosen, said = _in_year(chosen, year)
        missing += [said] if said else []
    return chosen, missing


def _in_year(rows: list[FinancialRow], year: int) -> tuple[list[FinancialRow], str | None]:
    """The rows of ``year``, as the filer's fiscal year first, else as the calendar year the period ends in, and
    which one matched where the two differ (a filer's fiscal 2022 may end in January 2023)."""
    fiscal = [r for r in rows if r.fiscal_year == year]
    if fiscal:
        ends = sorted({r.period_end for r in fiscal if r.period_end and r.calendar_year != year})
        said = (
            f"year {year} matched the filer's fiscal {year}, whose periods end {', '.join(ends[:3])}" if ends else None
        )
        return fiscal, said
    calendar = [r for r in rows if r.calendar_year == year]
    if calendar:
        named = sorted({r.fiscal_year for r in calendar if r.fiscal_year})
        return calendar, f"year {year} matched the calendar year the periods end in (the filer's fiscal {named})"
    years = sorted({r.fiscal_year for r in rows if r.fiscal_year})
    raise NotFoundError(f"no figure for fiscal or calendar year {year}; the statements selected cover fiscal {years}")
