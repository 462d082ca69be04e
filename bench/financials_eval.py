"""How often get_financials returns a gold statement fact with the right value, period and page: gold facts
(bench/gold/facts.jsonl, read by pdfplumber in bench/make_fact_gold.py) against the rows of an index of the same
filings. A fact counts when a row on the gold page, with the gold label (as printed, either containing the other),
under a column whose header contains the gold period, prints the gold value and is verified at its box.

    python bench/financials_eval.py --index INDEX_OF_../shared/eval/dev [--gold bench/gold/facts.jsonl] [--markdown]
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from gold_cli import gold_main

from indexer.core.text import has_cjk
from indexer.evidence.concepts import normalise_label
from indexer.evidence.financials import FinancialRow
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

GOLD = Path(__file__).parent / "gold" / "facts.jsonl"


def _digits(text: str) -> str:
    negative = "(" in text or text.strip().startswith(("-", "−", "–"))
    return ("-" if negative else "") + re.sub(r"[^\d.]", "", text)


def _same_label(gold: str, row: FinancialRow) -> bool:
    a, b = normalise_label(gold), normalise_label(row.label)
    return bool(a) and (a in b or b in a)


def _period_words(text: str) -> str:
    """A header compared without punctuation and spacing ('2019 年度' is '2019年度')."""
    return re.sub(r"[\W_]+", "", text.lower())


def judge(gold: dict[str, str], rows: list[FinancialRow]) -> str:
    """'found', or what went wrong: 'no row' (label not on that page), 'no period', 'wrong value', 'unverified'."""
    on_page = [r for r in rows if r.page == gold["page"] and _same_label(gold["label"], r)]
    if not on_page:
        return "no row"
    in_period = [r for r in on_page if _period_words(gold["period"]) in _period_words(r.period)]
    if not in_period:
        return "no period"
    right = [r for r in in_period if _digits(r.value_printed) == _digits(gold["value"])]
    if not right:
        return "wrong value"
    return "found" if any(r.verified for r in right) else "unverified"


CORE = ("revenue", "net_income", "eps_diluted", "total_assets", "operating_cash_flow", "capex")
FILINGS = {"10-K", "10-Q", "年报"}


def coverage(kb: KnowledgeBase) -> dict[str, list[int]]:
    """Per core concept: in how many annual/quarterly filings (10-K, 10-Q, 年报 of a known fiscal year) a row of
    it for the filing's own fiscal year is found (net income attributable to the parent counts as net income)."""
    counts = {concept: [0, 0] for concept in CORE}
    for meta in kb.documents():
        if meta.form not in FILINGS or meta.year is None:
            continue
        own = {r.concept for r in kb.financial_rows(meta.document) if r.fiscal_year == meta.year}
        own |= {"net_income"} if "net_income_attributable" in own else set()
        for concept in CORE:
            counts[concept][0] += concept in own
            counts[concept][1] += 1
    return counts


def evaluate(index: Path, gold: Path) -> dict[str, object]:
    kb = KnowledgeBase.open(index, default_cache_dir(), with_embedder=False)
    facts = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_language: dict[str, list[bool]] = defaultdict(list)
    misses = []
    for fact in facts:
        verdict = judge(fact, kb.financial_rows(fact["document"]))
        by_language["zh" if has_cjk(fact["document"]) else "en"].append(verdict == "found")
        if verdict != "found":
            misses.append({**fact, "verdict": verdict})
    return {
        "coverage": coverage(kb),
        "facts": len(facts),
        "found": sum(sum(v) for v in by_language.values()),
        "by_language": {language: [sum(v), len(v)] for language, v in by_language.items()},
        "misses": misses,
    }


def markdown(result: dict[str, object]) -> list[str]:
    total, found = result["facts"], result["found"]
    assert isinstance(total, int) and isinstance(found, int) and isinstance(result["by_language"], dict)
    languages = ", ".join(f"{language} {ok}/{n}" for language, (ok, n) in result["by_language"].items())
    covered = result.get("coverage", {})
    assert isinstance(covered, dict)
    return [
        "## Financial statements: facts as data",
        "",
        "`bench/financials_eval.py --index INDEX` (an index of `../shared/eval/dev`): "
        f"**{found} of {total}** gold statement facts returned by "
        f"get_financials with the right value, period and page, verified at their boxes ({found / max(total, 1):.0%}; "
        f"target ≥ 90%) — {languages}. Gold: `bench/gold/facts.jsonl`, from pdfplumber's words by "
        "`bench/make_fact_gold.py` (revenue, net income, operating income, diluted EPS, total assets, current "
        "liabilities, operating cash flow and an investing line of 13 English filings — 10-K, 10-Q, two non-US annual "
        "reports — and a 年报's key data and statements).",
        "",
        "Core concepts found for the filing's own fiscal year, over every 10-K, 10-Q and 年报 of the dev set with a "
        "known fiscal year: "
        + ", ".join(f"{concept} {ok}/{n}" for concept, (ok, n) in covered.items())
        + " (a miss is a total printed without a label, a bank's statements without the line, or a label the "
        "concept file does not know).",
        "",
    ]


def main() -> int:
    return gold_main(__doc__, GOLD, evaluate, markdown)


if __name__ == "__main__":
    raise SystemExit(main())
