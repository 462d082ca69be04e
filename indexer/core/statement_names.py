"""The primary statements' names, in one place: the label their pages take (what search routes to and the outline
keys them by) and the name get_financials and the vocabulary's concepts give them (``statements = ['income']``)."""

from __future__ import annotations

INCOME, BALANCE, CASH_FLOW, EQUITY = "income_statement", "balance_sheet", "cash_flow", "equity"
PRIMARY = (INCOME, BALANCE, CASH_FLOW)  # the three statements every filing's figures come from
STATEMENT_LABELS = frozenset({*PRIMARY, EQUITY})  # pages that answer judgement questions naming none of their words
KEY_FIGURES = "key_figures"  # the label of the key figures' pages (selected financial data, 主要会计数据)

# get_financials' name of each statement (and the vocabulary's `statements`) → the label of its pages
LABEL_OF_STATEMENT = {"income": INCOME, "balance": BALANCE, "cash_flow": CASH_FLOW, "key_data": KEY_FIGURES}
STATEMENTS = tuple(LABEL_OF_STATEMENT)  # income, balance, cash_flow, key_data
STATEMENT_OF_LABEL = {label: name for name, label in LABEL_OF_STATEMENT.items()}

# How far a primary statement runs from its heading, two ways. Its rows are read from up to four pages (a 年报's balance
# sheet takes three, and may start low on a page): a row is taken only where the statement's rows are printed. Its
# label, which needs no row, is given to three pages at most: an earnings release's other tables follow its statements,
# and a fourth page labelled as the statement would mislead search (on the dev set 7 pages would change label at four,
# an earnings release's tables after its statements among them).
STATEMENT_READ_PAGES = 4
STATEMENT_LABEL_PAGES = 3
