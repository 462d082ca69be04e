"""The `due_diligence` prompt: how a client model should answer from the filings with verified citations."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field


def due_diligence(
    question: Annotated[str, Field(max_length=2000, description="the question to answer from the filings")],
    documents: Annotated[
        str | None,
        Field(max_length=200, description="optional file-name glob to stay within, e.g. '*2022*' or 'BESTBUY_*'"),
    ] = None,
) -> str:
    scope = (
        f"Work only with documents matching `{documents}` (pass documents={documents!r} to search_reports)."
        if documents
        else "Call list_documents first to see which filings, companies and periods are available."
    )
    return f"""You are doing financial due diligence. Answer this question from the filings in the knowledge base:

{question}

How to work:
1. {scope}
2. Call search_reports with the key terms, figures and period (English or Chinese both work; the company, year
   and form you name narrow the search). Search again with other words if the first results miss.
3. Read the page behind each promising hit with get_page before you rely on it: tables continue, footnotes qualify.
   To read a whole part of a filing (Item 7 MD&A, Item 1A risk factors, 第四节, the balance sheet), call get_outline
   for its sections and read_section with a section's key.
   For statement figures over several years (revenue, net income, total assets, operating cash flow, capex, EPS —
   and ratios built from them: margins, growth, free cash flow), call get_financials(document or company,
   statement, items, year): each row gives the figure as printed, its period and page (detail='full': value in
   units and boxes).
4. Quote figures and phrases verbatim, exactly as printed, wrapped as
   <cite file="FILE.pdf" page="N">exact text</cite> — FILE is the document name from the tools, N the 1-based page.
5. Before you answer, verify every figure you cite in ONE call: verify_claims(claims=[{{document, page, quote,
   label?, period?}}, …]) — up to 50 at once, one verdict per claim in order; for a figure from a table pass the row
   `label` and the `period` you attribute it to (get_financials rows marked verified are already checked at their
   boxes; cite their page). Fix a claim found elsewhere from the note (it says where the figure really is),
   check the row a label_not_matched note names (your column, another row), quote more of an ambiguous one,
   and mark anything not verified "(unverified)". Never present an unverified
   figure as fact. (locate_quote checks one quote and returns all its boxes.)
6. To compare companies or periods, search each document separately (use `documents` or `company`) and cite each.
7. If the filings do not contain the answer, say "not found in the filings" — do not estimate or use outside
   knowledge. A search result that starts with NOTE, or hits marked WEAK, mean the knowledge base may not hold
   the answer: check before using them. State any calculation you make, with the cited inputs.
8. Optionally show the evidence with render_page(document, page, quote=...).
"""
