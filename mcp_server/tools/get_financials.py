"""get_financials: the financial statements as data. Its compact answer, as data and as text: per statement table
its periods once (each with the filer's fiscal year and the calendar date it ends), where its scale and currency were
read, what is not established, and each row's printed figures. The text is written from the brief, so the two never
say different things."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from indexer.answers import Financials, FinancialsHead
from indexer.core.models import Box
from indexer.evidence.cross_checks import CROSS
from indexer.evidence.financials import FinancialRow
from indexer.evidence.identities import Identity
from indexer.evidence.units import Source
from indexer.requests import FinancialsRequest
from mcp_server.briefs import enclosing
from mcp_server.file_text import inline, name_text
from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared, ToolDocs

FAILS_SHOWN = 3  # failed identities named per statement table (the rest are counted)
SOURCE_CHARS = 60  # a scale's or currency's printed source, as quoted in the compact answer


class PeriodBrief(BaseModel):
    period: str = Field(description="the column header as printed")
    end: str | None = Field(description="ISO date the period ends")
    months: int | None = Field(description="3, 6, 9 or 12 for a duration; null for a balance date")
    fiscal_year: int | None = Field(description="as the filer names it; the calendar year of its end is end[:4]")


class FigureRowBrief(BaseModel):
    label: str
    concept: str | None
    unit: str = Field(description="currency, per_share, shares or percent")
    scale: str | None = Field(description="as printed (millions, 万元 …); null: no scale printed, not a value in units")
    figures: list[str] = Field(description="the figures as printed, one per period of the table ('' where none)")
    unverified: list[int] = Field(description="indexes of figures not established (see the statement's missing)")
    xbrl_differs: dict[str, str] = Field(
        description="period index → the value the filer tagged in XBRL, when it differs"
    )


class StatementBrief(BaseModel):
    # One statement table on a document's page: Financials' rows, grouped (a docstring would be in the schema).

    document: str
    page: int
    statement: str = Field(description="income, balance, cash_flow or key_data")
    currency: str | None = Field(description="ISO code the filing establishes; null: not established")
    scale_from: str | None = Field(description="the printed scale statement and its page")
    currency_from: str | None = Field(description="the printed sign, code or sentence naming the currency, its page")
    missing: list[str] = Field(description="what is not established for some figures, with how many")
    checks: str | None = Field(description="the identities its figures print (totals, A = L + E, cash): how many hold")
    bbox: Box | None = Field(description="one box around the rows shown")
    periods: list[PeriodBrief]
    rows: list[FigureRowBrief]


class FinancialsBrief(FinancialsHead):
    statements: list[StatementBrief]


COMPANY_CHARS = 60  # a company's name as the answer shows it beside its file


def _quoted(found: Source | None) -> str | None:
    if found is None:
        return None
    text = found.text if len(found.text) <= SOURCE_CHARS else found.text[: SOURCE_CHARS - 1] + "…"
    return f"{text!r} p.{found.page}" if found.page else repr(text)


def on_page(identity: Identity, key: tuple[str, int, str]) -> bool:
    """A check between statements, filed with the statement page whose figure it starts from."""
    return identity.statement == CROSS and (identity.document, identity.page) == key[:2] and key[2] != "key_data"


def _checks(identities: list[Identity]) -> str | None:
    """'12 of 13 identities hold; fails: Total assets = the rows above (2023: 1,234 vs rows above)'."""
    if not identities:
        return None
    failed = [i for i in identities if not i.holds]
    text = f"{len(identities) - len(failed)} of {len(identities)} identities hold"
    if failed:
        text += "; fails: " + "; ".join(f"{i.name} ({i.period})" for i in failed[:FAILS_SHOWN])
        text += f" and {len(failed) - FAILS_SHOWN} more" if len(failed) > FAILS_SHOWN else ""
    return text


def _statement(key: tuple[str, int, str], rows: list[FinancialRow], identities: list[Identity]) -> StatementBrief:
    periods: dict[tuple[str, str | None, int | None], int] = {}
    for row in rows:
        periods.setdefault((row.period, row.period_end, row.months), len(periods))
    fiscal = {(r.period, r.period_end, r.months): r.fiscal_year for r in rows}
    by_label: dict[tuple[str, str | None], FigureRowBrief] = {}
    for row in rows:
        at = periods[(row.period, row.period_end, row.months)]
        brief = by_label.setdefault(
            (row.label, row.concept),
            FigureRowBrief(
                label=row.label, concept=row.concept, unit=row.unit, scale=row.scale,
                figures=[""] * len(periods), unverified=[], xbrl_differs={},
            ),
        )  # fmt: skip
        brief.figures[at] = row.value_printed
        if not row.verified:
            brief.unverified.append(at)
        if row.xbrl_agrees is False and row.xbrl_value is not None:
            brief.xbrl_differs[str(at)] = row.xbrl_value
    money = [r for r in rows if r.unit == "currency"] or rows
    scaled = next((r.scale_source for r in money if r.scale_source), None)
    named = next((r for r in money if r.currency_source), None)
    missing = Counter(reason for row in rows for reason in row.missing)
    document, page, statement = key
    return StatementBrief(
        document=document, page=page, statement=statement, currency=named.currency if named else None,
        scale_from=_quoted(scaled), currency_from=_quoted(named.currency_source if named else None),
        missing=[f"{reason} ({count} figure{'s' if count > 1 else ''})" for reason, count in missing.items()],
        checks=_checks([i for i in identities if (i.document, i.page, i.statement) == key or on_page(i, key)]),
        bbox=enclosing(box for row in rows for box in row.boxes),
        periods=[PeriodBrief(period=p, end=e, months=m, fiscal_year=fiscal[(p, e, m)]) for (p, e, m) in periods],
        rows=list(by_label.values()),
    )  # fmt: skip


def financials_brief(result: Financials) -> FinancialsBrief:
    """Rows grouped by document, page and statement; each table's periods once, each row's figures in their order."""
    groups: dict[tuple[str, int, str], list[FinancialRow]] = {}
    for row in result.rows:
        groups.setdefault((row.document, row.page, row.statement), []).append(row)
    head = result.model_dump(include=set(FinancialsHead.model_fields))
    statements = [_statement(key, rows, result.identities) for key, rows in groups.items()]
    return FinancialsBrief(**head, statements=statements)


def counted(n: int, thing: str) -> str:
    """'1 row', '33 rows'."""
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _period_text(period: PeriodBrief, balance: bool) -> str:
    """'Three Months Ended July 29, 2023 (fiscal 2024, 3 months ended 2023-07-29)'; a balance sheet's 'at' its date;
    a duration whose header gives no months (12 Weeks Ended) 'ended' it."""
    when = []
    if period.fiscal_year is not None:
        when.append(f"fiscal {period.fiscal_year}")
    if period.end:
        span = "at" if balance else f"{period.months} months ended" if period.months else "ended"
        when.append(f"{span} {period.end}")
    return f"{period.period or '(no header)'}" + (f" ({', '.join(when)})" if when else "")


def financials_text(result: FinancialsBrief) -> str:
    """Per statement table: where it is, its unit and where that was read (or what is not established), its
    periods once, then per row its printed figures in period order."""
    rows = sum(len(s.rows) for s in result.statements)
    figures = sum(len([f for f in row.figures if f]) for s in result.statements for row in s.rows)
    head = (
        f"{counted(rows, 'row')}, {counted(figures, 'figure')} in {counted(len(result.statements), 'table')} from "
        f"{counted(len(result.documents), 'document')}"
    )
    settled = figures and not any(row.unverified for s in result.statements for row in s.rows)
    verdict = " · each figure verified: value, scale, currency and period read from the filing" if settled else ""
    lines = [head + verdict + (f" · NOTE: {result.note}" if result.note else "")]
    for table in result.statements:
        scale = next((row.scale for row in table.rows if row.unit == "currency"), None)
        if scale is None and all(row.unit != "currency" for row in table.rows):
            minors = {row.scale for row in table.rows if row.unit == "per_share"}
            per_share = f"{minors.pop()} per share" if len(minors) == 1 and "" not in minors else "per share"
            scale = per_share if any(row.unit == "per_share" for row in table.rows) else ""  # no amount: no scale
        else:
            stated = "units" if scale == "" and table.scale_from else "scale not stated" if scale is None else ""
            scale = scale or stated
        unit = (
            f"{table.currency} {scale}".strip() if table.currency else f"{scale}, currency not established".strip(", ")
        )
        named = result.companies.get(table.document)
        company = f" ({inline(named, COMPANY_CHARS)})" if named else ""  # the company behind an opaque file name
        sources = "; ".join(
            f"{what} {text}" for what, text in (("scale", table.scale_from), ("currency", table.currency_from)) if text
        )
        lines.append(
            f"\n{name_text(table.document)}{company} p.{table.page} · {table.statement} · {unit}"
            + (f" ({sources})" if sources else "")
        )
        if table.missing:
            lines.append("NOT VERIFIED: " + "; ".join(table.missing))
        if table.checks:
            lines.append(f"checks: {table.checks}")
        balance = table.statement == "balance"
        lines.append("periods: " + " | ".join(f"[{i}] {_period_text(p, balance)}" for i, p in enumerate(table.periods)))
        for row in table.rows:
            concept = f" [{row.concept}]" if row.concept else ""
            shown = [
                (figure or "—") + ("*" if i in row.unverified and figure else "")
                + (f" (XBRL tags {row.xbrl_differs[str(i)]})" if str(i) in row.xbrl_differs else "")
                for i, figure in enumerate(row.figures)
            ]  # fmt: skip
            minor = row.scale if row.unit == "per_share" and row.scale and row.scale not in row.label.lower() else ""
            minor = f" ({minor})" if minor else ""  # a per-share figure printed in pence or cents
            lines.append(f"- {row.label}{concept}{minor}: " + " | ".join(shown))
    lines.append("\n" + _footer(result))
    return "\n".join(lines)


def _footer(result: FinancialsBrief) -> str:
    """What the answer's marks mean, each only where the answer holds it: the star where a figure carries one, the
    NOT VERIFIED part where a table has one."""
    starred = any(
        i in row.unverified and figure
        for t in result.statements
        for row in t.rows
        for i, figure in enumerate(row.figures)
    )
    said = "* not established" + (" (see NOT VERIFIED). " if any(t.missing for t in result.statements) else ". ")
    return (
        said if starred else ""
    ) + "Cite as document p.N. Values in units, each part's source and boxes: detail='full'."


DOCS = ToolDocs(
    does=(
        "the income statement, balance sheet, cash flow statement and key-data tables as rows: label as "
        "printed, concept (`revenue`, `net_income`, `capex`, `eps_diluted` … in either language), period with "
        "its end date and fiscal year, the figure as printed and its value in units (sign and scale applied), "
        "currency, page and the boxes of label and figure — each verified at its box"
    ),
    arguments=(
        "`document` or `company` (every filing of it), `statement` (`income`, `balance`, `cash_flow`, "
        "`key_data`), `items` (concepts such as `revenue`, `capex`, `eps_diluted`, or label words in either "
        'language: `营业收入`, `"net sales"`), `year` (fiscal year of the figures), `limit` (default 200)'
    ),
    returns=(
        "compact: `statements [{document, page, statement, currency, scale_from, currency_from, missing, "
        "checks, bbox, periods [{period, end, months, fiscal_year}], rows [{label, concept, unit, scale, "
        "figures, unverified, xbrl_differs}]}]` (figures as printed, one per period), `documents`, "
        "`total_rows`, `note`; `full`: `rows [{document, page, statement, label, concept, period, period_end, "
        "fiscal_year, calendar_year, months, value, value_printed, scale, unit, currency, verified, missing, "
        "scale_source, currency_source, period_source, xbrl_concept, xbrl_value, xbrl_agrees, bboxes, "
        "page_width, page_height}]`, `identities [{document, page, statement, period, name, holds, detail}]`, "
        "`documents`, `total_rows`, `note` (see [Financial statements as "
        "data](#financial-statements-as-data))"
    ),
)


TOOL = Declared(
    "get_financials",
    "The financial statements as data: each figure of the income, balance sheet, cash flow and key-data "
    "(主要会计数据) tables with its printed label, concept (revenue, net_income, eps_diluted, capex …) and period, "
    "by statement and page; verified only when value, scale, currency and period were each read from the filing "
    "(else it says what is missing). The group's figures only (母公司 and parent columns left out).",
    FinancialsBrief,
    request=FinancialsRequest,
    full=Financials,
    forms={Financials: Form(lambda r, detail: financials_brief(r), lambda r, b: financials_text(b))},
    docs=DOCS,
)
