"""What kind of filing a document is, from what its cover prints (an SEC form's title, a 年报's, a release's
headline, a report's title), its auditor's opinion, and last its file name."""

from __future__ import annotations

import re

from indexer.core.models import Page

FORM_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("10-K", re.compile(r"\bform\s*10-k\b", re.I)),
    ("10-Q", re.compile(r"\bform\s*10-q\b", re.I)),
    ("20-F", re.compile(r"\bform\s*20-f\b", re.I)),
    ("8-K", re.compile(r"\bform\s*8-k\b", re.I)),
    ("半年报", re.compile(r"半年度报告")),
    ("季报", re.compile(r"第[一三]季度报告")),
    ("年报", re.compile(r"\d{4}\s*年\s*年度报告|年度报告(?:摘要)?$", re.M)),
    ("研报", re.compile(r"证券研究报告|研究报告|投资评级|(?:买入|增持|中性|减持|推荐)（(?:首次|维持)）")),
]
EARNINGS = re.compile(
    r"\b(?:reports?|announces?)\b.{0,80}\b(?:quarter|full[- ]year|fiscal)\b.{0,60}\bresults\b", re.I | re.S
)
ANNUAL_FORMS = {"10-K", "20-F", "annual report"}
HEADLINE_CHARS = 300  # a release's headline: its first lines
FORM_TITLE = re.compile(r"^\s*FORM\s*(10-K|10-Q|20-F)\s*$", re.I | re.M)  # a cover's title line, pages in
ANNUAL_REPORT = re.compile(r"\bannual\s+report\b", re.I)
# A report of a year's financial statements titled as such: "Annual Financial Report", "Financial Report 30 June
# 2022", "Report and Financial Statements For the Year Ended 30 September 2022", "Consolidated Financial Statements …
# as of December 31, 2022 and 2021".
YEAR_STATEMENTS = re.compile(
    r"\b(?:(?:annual\s+)?financial\s+report|report\s+and\s+(?:financial\s+statements|accounts)|"
    r"(?:consolidated\s+)?financial\s+statements)\b"
    r"(?=.{0,120}?\b(?:years?\s+ended|as\s+(?:of|at)\s|\d{1,2}\s+[a-z]+\s+\d{4}|[a-z]+\s+\d{1,2},\s+\d{4}))",
    re.I | re.S,
)
FILENAME_FORMS: list[tuple[str, re.Pattern[str]]] = [
    ("10-K", re.compile(r"10-?K", re.I)),
    ("10-Q", re.compile(r"10-?Q", re.I)),
    ("8-K", re.compile(r"(?<!\d)8-?K", re.I)),
    ("earnings release", re.compile(r"earnings", re.I)),
    ("年报", re.compile(r"年度报告|年报")),
    ("研报", re.compile(r"研报|research[_ -]?report", re.I)),
]


def detect_form(file_name: str, text: str) -> str | None:
    """The form the cover (``text``) names; an annual report to shareholders by its title; else the file name.

    A release headlined "… Reports First-Quarter 2023 Results" is an earnings release even where its text refers
    to a form ("please refer to our Quarterly Report on Form 10-Q"): a form named in running text is another
    document; only an SEC cover's title line ("FORM 10-Q") outranks the headline."""
    if EARNINGS.search(text[:HEADLINE_CHARS]) and not FORM_TITLE.search(text):
        return "earnings release"
    for form, pattern in FORM_RULES:
        if pattern.search(text):
            if form == "8-K" and EARNINGS.search(text):
                return "earnings release"
            return form
    if EARNINGS.search(text):
        return "earnings release"
    if ANNUAL_REPORT.search(text) or YEAR_STATEMENTS.search(text[:HEADLINE_CHARS]):
        return "annual report"
    for form, pattern in FILENAME_FORMS:
        if pattern.search(file_name):
            return form
    return None


# An auditor's opinion on a year's financial statements (an interim review report concludes, it gives no opinion).
_AUDIT_OPINION = re.compile(
    r"opinion\s+on\s+the\s+(?:consolidated\s+)?financial\s+statements|"
    r"in\s+our\s+opinion,?\s+the\s+(?:accompanying\s+)?(?:consolidated\s+)?financial\s+statements",
    re.I,
)


def audited(pages: list[Page]) -> str | None:
    """ "annual report" for a filing whose cover names no form but that prints an auditor's opinion on its financial
    statements (a glossy report whose cover is a picture); else None."""
    return "annual report" if any(_AUDIT_OPINION.search(page.text) for page in pages) else None


# A page past the cover that names the form again: an SEC form's name, a 年报's title, "annual report", an earnings
# release's exhibit label or its results.
FORM_AGAIN: dict[str, re.Pattern[str]] = dict(FORM_RULES) | {
    "annual report": ANNUAL_REPORT,
    "earnings release": re.compile(r"\bexhibit\s+99\b|\b(?:quarter|year)\b.{0,40}\bresults\b", re.I),
}
