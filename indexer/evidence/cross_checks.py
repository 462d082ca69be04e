"""The statements check each other: what one statement prints that another must print too, compared in units on
any layout, with no gold.

- **Earnings per share.** Net income attributable to the parent (or net income) ≈ basic EPS × the basic weighted
  average share count, within the rounding of the printed figures.
- **Net income.** The net income (or profit) the cash flow statement starts from = the income statement's net
  income for the same period (the consolidated figure or the parent's share).
- **Cash.** The cash at the end of the period in the cash flow statement = cash on the balance sheet at that date.

A check runs only where both sides were read with a value in units (a scale read from the filing). It is conclusive
when it fails and either holds in another period of the same filing (the statements' structure is read right, so
this period's figures disagree; for EPS, by more than the 10% an adjusted numerator explains), or the two sides are
an order of magnitude apart the way a misread figure is (for EPS a factor of ten or more: a per-share figure taken
for an amount, a share count's scale; for amounts a power of ten: a scale misread). Never rounding, preferred
dividends or restricted cash. The figures of a conclusive failure are contradicted — not verified, and each says
which check failed — except a figure another check corroborates (net income that the cash flow statement agrees
with, when net income ≠ EPS × shares: the share count or the EPS is the suspect). Any other failure (a cash flow
statement that includes restricted cash, a two-class EPS) is reported, not held against the figures. A check that
cannot run is reported with what is missing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from indexer.core.figures import decimal_places, parse_value
from indexer.evidence.concepts import concept_of
from indexer.evidence.financials import FinancialRow
from indexer.evidence.identities import Identity

CROSS = "cross"  # the statement an identity between statements is filed under
MAGNITUDE = Decimal(10)  # sides this far apart are contradicted whatever the other periods say
POWER_SLACK = Decimal("0.01")  # a ratio within 1% of a power of ten is a scale misread
EPS_SLACK = Decimal("0.002")  # relative: the two-class method and share counts rounded to thousands
EPS_ADJUSTED = Decimal("1.1")  # EPS × shares within 10% of net income: an adjusted numerator, not a misread
EPS_CHECK = "net income = basic EPS × basic shares"
NET_INCOME_CHECK = "net income: income statement = cash flow statement"
CASH_CHECK = "cash at end of period: cash flow statement = balance sheet"
CHECKS = (EPS_CHECK, NET_INCOME_CHECK, CASH_CHECK)
_NET_INCOME = ("net_income", "net_income_attributable")
_OTHER_CASH = re.compile(r"restricted|including|overdrafts?|borrowings|held\s+for\s+sale|segregated", re.I)
_RESTRICTED = re.compile(r"\brestricted\s+cash\b", re.I)


@dataclass(frozen=True)
class _Run:
    """One check for one period: its result and the rows it compared (``holds`` None: it could not be decided)."""

    name: str
    period: str
    holds: bool
    rows: tuple[FinancialRow, ...]
    detail: str
    gap: Decimal  # the larger side over the smaller, in absolute value (1 when equal)
    comparable: bool = True  # False: the sides may differ by what the filing reconciles elsewhere (restricted cash)


def _amount(row: FinancialRow) -> Decimal | None:
    return Decimal(row.value) if row.value is not None else None


def _half_unit(row: FinancialRow) -> Decimal:
    """Half a unit of the figure's last printed place, in the row's units (its scale applied)."""
    printed, value = parse_value(row.value_printed), _amount(row)
    if printed is None or value is None:
        return Decimal(0)
    places = decimal_places(row.value_printed)
    scale = abs(value / printed) if printed else Decimal(1)
    return scale * Decimal(5) * Decimal(10) ** (-places - 1)


def _gap(a: Decimal, b: Decimal) -> Decimal:
    if a == 0 or b == 0:
        return Decimal(1) if a == b else Decimal(0)  # 0 against a figure: no order of magnitude to tell
    big, small = max(abs(a), abs(b)), min(abs(a), abs(b))
    return big / small


def _duration_key(row: FinancialRow) -> str | None:
    """The period a flow figure covers, the same on every statement: its end and its months."""
    if row.period_end:  # a column headed by its year alone is the year's
        return f"{row.months or 12} months to {row.period_end}"
    return f"fiscal {row.fiscal_year}" if row.fiscal_year else None


def _by_period(rows: list[FinancialRow], statement: str, keyed=_duration_key) -> dict[str, list[FinancialRow]]:
    found: dict[str, list[FinancialRow]] = defaultdict(list)
    for row in rows:
        if row.statement == statement and (key := keyed(row)) is not None:
            found[key].append(row)
    return found


def _eps_runs(rows: list[FinancialRow]) -> Iterator[_Run]:
    for period, printed in _by_period(rows, "income").items():
        eps = [r for r in printed if r.concept == "eps_basic" and r.unit == "per_share" and r.value is not None]
        shares = [r for r in printed if r.concept == "shares_basic" and r.unit == "shares" and r.value is not None]
        income = [r for r in printed if r.concept in _NET_INCOME and r.unit == "currency" and r.value is not None]
        if not (eps and shares and income):
            continue
        best: _Run | None = None
        for e in eps:
            for s in shares:
                product = Decimal(e.value or 0) * Decimal(s.value or 0)
                slack = _half_unit(e) * abs(Decimal(s.value or 0)) + _half_unit(s) * abs(Decimal(e.value or 0))
                for n in income:
                    amount = Decimal(n.value or 0)
                    allowed = slack + _half_unit(n) + EPS_SLACK * abs(amount)
                    holds = abs(amount - product) <= allowed
                    detail = f"{n.label} {n.value_printed} vs {e.value_printed} × {s.value_printed}"
                    run = _Run(EPS_CHECK, period, holds, (n, e, s), detail, _gap(amount, product))
                    if best is None or (holds and not best.holds) or (holds == best.holds and run.gap < best.gap):
                        best = run
        if best is not None:
            yield best


def _opening_income(cash_flow: list[FinancialRow]) -> FinancialRow | None:
    """The net income a cash flow statement starts from: its first row labelled as net income, if it has one."""
    for row in cash_flow:
        if row.unit == "currency" and row.value is not None and concept_of(row.label, "income") in _NET_INCOME:
            return row
    return None


def _net_income_runs(rows: list[FinancialRow]) -> Iterator[_Run]:
    income = _by_period(rows, "income")
    for period, flows in _by_period(rows, "cash_flow").items():
        opening = _opening_income(flows)
        printed = [r for r in income.get(period, []) if r.concept in _NET_INCOME and r.unit == "currency"]
        printed = [r for r in printed if r.value is not None]
        if opening is None or not printed:
            continue
        amount = Decimal(opening.value or 0)
        runs = [
            _Run(NET_INCOME_CHECK, period, abs(amount - Decimal(r.value or 0)) <= _half_unit(r) + _half_unit(opening),
                 (opening, r), f"{opening.value_printed} (cash flow) vs {r.label} {r.value_printed}",
                 _gap(amount, Decimal(r.value or 0)))
            for r in printed
        ]  # fmt: skip
        yield min(runs, key=lambda run: (not run.holds, run.gap))


def _cash_runs(rows: list[FinancialRow]) -> Iterator[_Run]:
    """The cash a cash flow statement closes on against the balance sheet's cash at that date (any of its cash
    rows: a report printing the group's and the company's columns has two). A closing figure that adds restricted
    cash, overdrafts or held-for-sale cash is another sum: it is compared with cash plus the balance sheet's restricted
    cash rows, and a difference is never held against the figures (the reconciliation is in the notes)."""
    balance = _by_period(rows, "balance", keyed=lambda r: r.period_end)
    for period, flows in _by_period(rows, "cash_flow", keyed=lambda r: r.period_end).items():
        ending = [r for r in flows if r.concept == "cash_end" and r.value is not None]
        printed = [r for r in balance.get(period, []) if r.value is not None and r.unit == "currency"]
        cash = [r for r in printed if r.concept == "cash"]
        if not ending or not cash:
            continue
        end = ending[-1]  # the opening balance is printed first
        amount = Decimal(end.value or 0)
        composite = bool(_OTHER_CASH.search(end.label))
        restricted = [r for r in printed if r.concept is None and _RESTRICTED.search(r.label)] if composite else []
        extra = sum((Decimal(r.value or 0) for r in restricted), Decimal(0))
        best = None
        for held in cash:
            other = Decimal(held.value or 0) + extra
            holds = abs(amount - other) <= _half_unit(end) + _half_unit(held) + sum(map(_half_unit, restricted))
            shown = " + ".join(f"{r.label} {r.value_printed}" for r in (held, *restricted))
            detail = f"{end.label} {end.value_printed} vs {shown}"
            run = _Run(CASH_CHECK, period, holds, (end, held, *restricted), detail, _gap(amount, other), not composite)
            if best is None or (run.holds, -run.gap) > (best.holds, -best.gap):
                best = run
        if best is not None:
            yield best


def _magnitude(run: _Run) -> bool:
    """Whether the two sides are an order of magnitude apart in the way a misread figure is: for EPS any factor of
    ten or more (a per-share figure taken for an amount, a share count's scale); for amounts a power of ten (a scale
    misread), not another figure (a bank's "Cash" row beside its cash and cash equivalents)."""
    if run.gap < MAGNITUDE:
        return False
    if run.name == EPS_CHECK:
        return True
    power = Decimal(10) ** round(run.gap.log10())
    return abs(run.gap - power) <= POWER_SLACK * power


def cross_checks(document: str, rows: list[FinancialRow]) -> list[Identity]:
    """Every cross-statement check the document's rows allow, per period; the figures of a conclusive failure are
    marked contradicted (not verified, with the check named)."""
    runs = [*_eps_runs(rows), *_net_income_runs(rows), *_cash_runs(rows)]
    held = {run.name for run in runs if run.holds}
    corroborated = {id(row) for run in runs if run.holds for row in run.rows}  # another check agrees with them
    found = []
    for run in runs:
        # an EPS numerator may be adjusted (preferred dividends, redeemable interests): a gap it explains is no proof
        floor = EPS_ADJUSTED if run.name == EPS_CHECK else Decimal(1)
        proof = (run.name in held and run.gap >= floor) or _magnitude(run)
        conclusive = not run.holds and run.comparable and proof
        found.append(
            Identity(document=document, page=run.rows[0].page, statement=CROSS, period=run.period, name=run.name,
                     holds=run.holds, detail=run.detail + ("" if run.holds or conclusive else " (not conclusive)"))
        )  # fmt: skip
        if conclusive:  # its figures that no other check corroborates; all of them if every one is
            suspects = [row for row in run.rows if id(row) not in corroborated] or list(run.rows)
            for row in suspects:
                why = f"contradicted: {run.name} fails for {run.period} ({run.detail})"
                if why not in row.missing:
                    row.missing.append(why)
                row.verified = False
    return found


def not_run(rows: list[FinancialRow]) -> dict[str, str]:
    """Why each check that ran in no period could not run: what the statements lack."""
    concepts = {(r.statement, r.concept) for r in rows if r.value is not None}
    statements = {r.statement for r in rows}
    reasons = {}
    if not any(c in concepts for c in (("income", "net_income"), ("income", "net_income_attributable"))):
        reasons["net income"] = "no net income read from an income statement"
    if ("income", "eps_basic") not in concepts:
        reasons[EPS_CHECK] = "no basic EPS read"
    elif ("income", "shares_basic") not in concepts:
        reasons[EPS_CHECK] = "no basic share count read"
    if "cash_flow" not in statements:
        reasons[NET_INCOME_CHECK] = reasons[CASH_CHECK] = "no cash flow statement read"
    elif ("cash_flow", "cash_end") not in concepts:
        reasons[CASH_CHECK] = "no cash at end of period read from the cash flow statement"
    if ("balance", "cash") not in concepts:
        reasons.setdefault(CASH_CHECK, "no cash read from the balance sheet")
    return reasons
