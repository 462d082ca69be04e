"""Section awareness: label pages with the part of a filing they belong to, and map questions to sections.

Page labels come from headings (short lines that start with a statement or part title); a label carries over to
the following pages until the next heading, so the pages of MD&A or of the notes keep theirs.
"""

from __future__ import annotations

import re

from indexer.core.models import Line

# (label, heading pattern); checked in this order on short lines near the top of a page.
_HEADINGS: list[tuple[str, re.Pattern[str]]] = [
    (
        "cash_flow",
        re.compile(r"^(?:consolidated\s+)?statements?\s+of\s+cash\s+flows?|^(?:合并|母公司)?现金流量表", re.I),
    ),
    (
        "balance_sheet",
        re.compile(
            r"^(?:consolidated\s+)?(?:balance\s+sheets?|statements?\s+of\s+financial\s+position)|^(?:合并|母公司)?资产负债表",
            re.I,
        ),
    ),
    (
        "income_statement",
        re.compile(
            r"^(?:consolidated\s+)?(?:condensed\s+)?statements?\s+of\s+(?:consolidated\s+)?(?:operations|income|earnings)"
            r"|^(?:合并|母公司)?利润表",
            re.I,
        ),
    ),
    (
        "equity",
        re.compile(
            r"^(?:consolidated\s+)?statements?\s+of\s+(?:changes\s+in\s+)?(?:stock|share)holders|所有者权益变动表", re.I
        ),
    ),
    (
        "key_figures",
        re.compile(
            r"^selected\s+(?:consolidated\s+)?financial\s+data|^financial\s+highlights|主要会计数据和财务指标", re.I
        ),
    ),
    (
        "mdna",
        re.compile(
            r"^item\s*[27]\.?\s*management.s\s+discussion|^management.s\s+discussion\s+and\s+analysis|管理层讨论与分析|经营情况讨论与分析",
            re.I,
        ),
    ),
    ("risk_factors", re.compile(r"^item\s*1a\.?\s*risk\s+factors|^risk\s+factors$|可能面对的风险|风险因素", re.I)),
    (
        "notes",
        re.compile(
            r"^notes\s+to\s+(?:the\s+)?(?:condensed\s+)?consolidated\s+financial\s+statements|财务报表附注", re.I
        ),
    ),
    ("business", re.compile(r"^item\s*1\.?\s*business|公司业务概要|主要业务", re.I)),
    ("legal", re.compile(r"^item\s*3\.?\s*legal\s+proceedings|^legal\s+proceedings$|重大诉讼", re.I)),
]
_MAX_HEADING_WORDS = 14
# Parts of a filing that run over many pages keep their label until the next heading; statements and tables
# keep it for one more page at most.
LONG_SECTIONS = frozenset({"mdna", "risk_factors", "notes", "business"})

# Question words → sections that usually hold the answer.
QUESTION_SECTIONS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    # A statement named outright comes first.
    (re.compile(r"cash flows? statement|statements? of cash flows?|现金流量表", re.I), ("cash_flow",)),
    (re.compile(r"balance sheet|statements? of financial position|资产负债表", re.I), ("balance_sheet",)),
    (
        re.compile(r"income statement|statements? of (?:income|operations|earnings)|\bp&l\b|利润表", re.I),
        ("income_statement",),
    ),
    (
        re.compile(
            r"capex|capital expenditure|purchases? of property|cash flow|free cash|资本开支|资本支出|现金流", re.I
        ),
        ("cash_flow", "mdna", "key_figures"),
    ),
    (
        re.compile(
            r"total assets|inventor|accounts payable|receivable|liabilit|shareholders.? equity|stockholders.? equity|"
            r"debt|总资产|净资产|存货|应收|应付|负债",
            re.I,
        ),
        ("balance_sheet", "key_figures", "notes"),
    ),
    (
        re.compile(
            r"revenue|net income|net earnings|operating income|gross (?:margin|profit)|cost of (?:sales|goods)|"
            r"ebitd?a?|earnings per share|\beps\b|营业收入|营业成本|净利润|毛利|每股收益|利润",
            re.I,
        ),
        ("income_statement", "key_figures", "mdna"),
    ),
    (re.compile(r"\bwhy\b|reason|driv(?:er|en)|cause|原因|为什么|为何|导致", re.I), ("mdna",)),
    (re.compile(r"risk|风险", re.I), ("risk_factors", "mdna")),
    (re.compile(r"legal|lawsuit|litigation|诉讼", re.I), ("legal", "notes")),
]


_NUMBERING = re.compile(
    r"^(?:[一二三四五六七八九十]+、|[(（]?[一二三四五六七八九十\d]+[)）]|第[一二三四五六七八九十]+节|近三年)\s*"
)


def find_heading(lines: list[Line]) -> tuple[str, str] | None:
    """(section, heading text) of the first heading on a page: a short line that starts with a known title."""
    for line in lines:
        if line.furniture:
            continue
        text = " ".join(line.text.split())
        if len(text.split()) > _MAX_HEADING_WORDS or len(text) > 120:
            continue
        bare = _NUMBERING.sub("", _NUMBERING.sub("", text))
        for label, pattern in _HEADINGS:
            if pattern.match(bare):
                return label, text
    return None


def heading_label(lines: list[Line]) -> str | None:
    found = find_heading(lines)
    return found[0] if found else None


def question_sections(question: str) -> tuple[str, ...]:
    """Sections to prefer for a question, most specific first (empty when nothing points anywhere)."""
    found: list[str] = []
    for pattern, sections in QUESTION_SECTIONS:
        if pattern.search(question):
            found.extend(s for s in sections if s not in found)
    return tuple(found)
