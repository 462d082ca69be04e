"""The statements check each other on the samples' real pages: Best Buy's 10-Q (net earnings = basic EPS × basic
shares; the cash flow statement starts from the income statement's net earnings; its closing cash adds restricted
cash, so it is another sum than the balance sheet's cash) and MGM's earnings release. A figure a check contradicts
is unverified and says which check failed; a check that cannot decide is never held against the figures."""

from __future__ import annotations

from decimal import Decimal

from indexer.core.models import Box, Span, Table, TableRow
from indexer.evidence.columns import _period_parts, per_share_by_parent, row_label, unit_unnamed
from indexer.evidence.cross_checks import CASH_CHECK, EPS_CHECK, NET_INCOME_CHECK, cross_checks, not_run
from indexer.evidence.financials import FinancialRow, _minor_unit
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import BESTBUY_10Q as BESTBUY_PDF
from tests.conftest import MGM as MGM_PDF

BESTBUY_10Q, MGM = BESTBUY_PDF.name, MGM_PDF.name


def _rows(kb: KnowledgeBase, document: str) -> list[FinancialRow]:
    return [row.model_copy(deep=True) for row in kb.financial_rows(document)]


def test_best_buy_statements_agree_with_each_other(samples_kb: KnowledgeBase) -> None:
    checks = [i for i in samples_kb.identities(BESTBUY_10Q) if i.statement == "cross"]
    eps = {i.period: i for i in checks if i.name == EPS_CHECK}
    quarter = eps["3 months to 2023-07-29"]
    assert quarter.holds and quarter.page == 4
    assert quarter.detail == "Net earnings $274 vs $1.25 × 218.6"
    flows = [i for i in checks if i.name == NET_INCOME_CHECK]
    assert {i.period for i in flows if i.holds} == {"6 months to 2023-07-29", "6 months to 2022-07-30"}
    cash = [i for i in checks if i.name == CASH_CHECK]
    # "Cash, cash equivalents and restricted cash at end of period" is not the balance sheet's cash: no proof either way
    assert cash and not any(i.holds for i in cash) and all(i.detail.endswith("(not conclusive)") for i in cash)
    rows = samples_kb.financial_rows(BESTBUY_10Q)
    ending = [r for r in rows if r.concept == "cash_end"]
    assert ending and all(r.verified for r in ending) and {r.page for r in ending} == {6}


def test_a_share_count_read_a_thousand_times_too_large_is_contradicted(samples_kb: KnowledgeBase) -> None:
    rows = _rows(samples_kb, BESTBUY_10Q)
    shares = next(r for r in rows if r.concept == "shares_basic" and r.period.startswith("Three Months Ended July 29"))
    assert shares.verified and shares.value == "218600000"
    shares.value = str(Decimal(shares.value) * 1000)  # the scale misread: "in millions" taken for billions
    found = cross_checks(BESTBUY_10Q, rows)
    failed = [i for i in found if i.name == EPS_CHECK and not i.holds]
    assert [i.period for i in failed] == ["3 months to 2023-07-29"]
    assert not shares.verified and any(m.startswith(f"contradicted: {EPS_CHECK}") for m in shares.missing)
    eps = next(r for r in rows if r.concept == "eps_basic" and r.period == shares.period)
    assert not eps.verified  # each figure of the check: which one is wrong, the check cannot tell
    other = next(r for r in rows if r.concept == "shares_basic" and r.period.startswith("Three Months Ended July 30"))
    assert other.verified  # the other quarter's check holds


def test_a_net_income_that_differs_in_one_period_is_contradicted(samples_kb: KnowledgeBase) -> None:
    rows = _rows(samples_kb, BESTBUY_10Q)
    flows = [r for r in rows if r.statement == "cash_flow" and r.label.startswith("Net earnings")]
    assert flows, "the cash flow statement starts from net earnings"
    flows[0].value = str(Decimal(flows[0].value or 0) + 7_000_000)  # a shifted figure: off by 7 of its millions
    found = cross_checks(BESTBUY_10Q, rows)
    failed = [i for i in found if i.name == NET_INCOME_CHECK and not i.holds]
    assert len(failed) == 1 and not failed[0].detail.endswith("(not conclusive)")  # it holds in the other period
    assert not flows[0].verified


def test_a_check_that_cannot_run_says_what_is_missing(samples_kb: KnowledgeBase) -> None:
    rows = [r for r in _rows(samples_kb, BESTBUY_10Q) if r.concept != "shares_basic"]
    assert not any(i.name == EPS_CHECK for i in cross_checks(BESTBUY_10Q, rows))
    assert not_run(rows)[EPS_CHECK] == "no basic share count read"


def test_mgm_eps_adjusted_numerator_is_not_held_against_the_figures(samples_kb: KnowledgeBase) -> None:
    checks = [i for i in samples_kb.identities(MGM) if i.name == EPS_CHECK]
    assert checks  # net income attributable to MGM Resorts International is read as the parent's net income
    rows = samples_kb.financial_rows(MGM)
    attributable = [r for r in rows if r.concept == "net_income_attributable" and r.page == 11]
    assert attributable and attributable[0].label == "Net income attributable to MGM Resorts International"
    assert not any(m.startswith("contradicted") for r in rows for m in r.missing)
    # the revenue total under "(In thousands, except per share data)" is an amount, not a per-share figure
    total = next(r for r in rows if r.page == 11 and r.value_printed == "3,592,216")
    assert total.unit == "currency"


def _row(label: str, group: str | None) -> TableRow:
    return TableRow(label=label, group=group, cells=[], boxes=[])


def _table(title: str | None) -> Table:
    return Table(page=1, title=title, columns=["2022"], rows=[], box=Box(page=1, x0=0, top=0, x1=1, bottom=1))


def test_a_label_printed_again_under_per_share_takes_that_unit() -> None:
    plain = _table(None)
    under = _row("Net income attributable to Pfizer Inc. common shareholders", "Earnings per common share—basic")
    assert per_share_by_parent(under, plain)
    assert not per_share_by_parent(_row("Net income attributable to Pfizer Inc. common shareholders", None), plain)
    assert not per_share_by_parent(_row("Basic", "Earnings per share"), plain)  # ambiguous: joined as before
    assert not per_share_by_parent(_row("Net income per share", "Earnings per share"), plain)
    titled = _table("Structural Monitoring Systems Plc — Earnings per share (cents per share)")
    assert per_share_by_parent(_row("Basic for loss from continuing operations", None), titled)
    scale = "(In millions, except number of shares which are reflected in thousands and per share amounts)"
    statement = _table(f"CONSOLIDATED STATEMENTS OF OPERATIONS — {scale}")
    assert not per_share_by_parent(_row("Total net sales", None), statement)  # what a scale excepts is no parent


def test_a_bare_basic_or_diluted_row_says_its_unit_is_not_stated() -> None:
    assert unit_unnamed(_row("Diluted", None), "Year Ended May 31, › Diluted")  # an EPS and a share count alike
    assert not unit_unnamed(_row("Diluted", "Earnings per share:"), "Earnings per share › Diluted")
    assert not unit_unnamed(_row("Diluted", "Weighted average shares"), "Weighted average shares › Diluted")
    assert not unit_unnamed(_row("Diluted earnings per share", None), "Diluted earnings per share")


def test_a_per_share_figure_in_cents_or_pence_is_a_hundredth() -> None:
    assert _minor_unit("Earnings per share (cents per share) › Basic", "2022") == "cents"
    assert _minor_unit("Basic earnings per share (pence)", "2022") == "pence"
    assert _minor_unit("Diluted earnings per share", "2022") is None


def test_headers_run_together_in_one_span_are_split_per_column() -> None:
    box = Box(page=1, x0=354.0, top=133.5, x1=544.0, bottom=141.5)
    parts = _period_parts(Span(text="December 31, 2022 December 31, 2021 December 31, 2020", box=box))
    assert [p.text for p in parts] == ["December 31, 2022", "December 31, 2021", "December 31, 2020"]
    assert parts[0].box.x0 == box.x0 and parts[-1].box.x1 == box.x1 and parts[0].box.x1 < parts[1].box.x0
    words = Span(text="Year Ended December 31, 2022", box=box)
    assert _period_parts(words) == [words]  # a header with words around one date stays whole


def test_row_label_joins_a_point_of_the_period_to_its_parent() -> None:
    joined = row_label(_row("End of year", "Cash and cash equivalents"), _table(None))
    assert joined == "Cash and cash equivalents › End of year"


def test_get_financials_shows_the_checks_between_statements(samples_kb: KnowledgeBase) -> None:
    from indexer.requests import FinancialsRequest

    request = FinancialsRequest(document=BESTBUY_10Q, statement="income", items=["net income", "eps basic"])
    answer = samples_kb.get_financials(request)
    shown = {(i.name, i.period, i.holds) for i in answer.identities}
    assert (EPS_CHECK, "3 months to 2023-07-29", True) in shown
    assert all(i.page == 4 for i in answer.identities if i.name == EPS_CHECK)


def test_a_figure_another_check_corroborates_is_not_contradicted(samples_kb: KnowledgeBase) -> None:
    rows = _rows(samples_kb, BESTBUY_10Q)
    half = "Six Months Ended July 29, 2023"
    shares = next(r for r in rows if r.concept == "shares_basic" and r.period == half)
    shares.value = str(Decimal(shares.value or 0) * 1000)
    cross_checks(BESTBUY_10Q, rows)
    income = next(r for r in rows if r.statement == "income" and r.concept == "net_income" and r.period == half)
    eps = next(r for r in rows if r.concept == "eps_basic" and r.period == half)
    assert not shares.verified and not eps.verified  # one of them is wrong: the check cannot tell which
    assert income.verified  # the cash flow statement starts from the same net earnings
