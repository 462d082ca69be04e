"""How often get_financials returns a gold statement fact with the right value, period and page: gold facts
(bench/gold/facts.jsonl, read by pdfplumber in bench/make_fact_gold.py) against the rows of an index of the same
filings. A fact counts when a row on the gold page, with the gold label (as printed, either containing the other),
under a column whose header contains the gold period, prints the gold value and is verified at its box. A row there
that prints the gold figure with a wrong value in units (a scale lost or misread), or another figure, is a **wrong
figure**; one whose scale is not established (``scale`` null) is unverified, not wrong. Every returned figure is also
checked with ``locate_quote`` on its page with its label and period, as an agent would verify it.

    python bench/financials_eval.py --index INDEX_OF_../shared/eval/dev [--gold bench/gold/facts.jsonl] [--markdown]
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from gold_cli import gold_main

from indexer.core.text import has_cjk
from indexer.evidence.concepts import concepts_named, normalise_label
from indexer.evidence.financials import FinancialRow
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

GOLD = Path(__file__).parent / "gold" / "facts.jsonl"


def _digits(text: str) -> str:
    negative = "(" in text or text.strip().startswith(("-", "−", "–"))
    return ("-" if negative else "") + re.sub(r"[^\d.]", "", text)


def _same_label(gold: str, row: FinancialRow) -> bool:
    """The gold label within ours or ours within it; a row printed without a label (a bank's bare total) only where
    the concept it was given is the one the gold label names."""
    a, b = normalise_label(gold), normalise_label(row.label)
    if not b:
        return row.concept is not None and row.concept in concepts_named(gold)
    return bool(a) and (a in b or b in a)


def _period_words(text: str) -> str:
    """A header compared without punctuation and spacing ('2019 年度' is '2019年度')."""
    return re.sub(r"[\W_]+", "", text.lower())


def _same_period(gold: str, ours: str) -> bool:
    """The gold header as printed within ours, or ours within it where the gold names one year only (a column read as
    '2022' under a title 'Years ended December 31, 2022' that the parser joined to a row's label)."""
    wanted, have = _period_words(gold), _period_words(ours)
    one_year = len(set(re.findall(r"(?:19|20)\d\d", gold))) == 1
    return wanted in have or (one_year and bool(have) and have in wanted)


_POWERS = {"": 0, "元": 0, "thousands": 3, "千元": 3, "万元": 4, "millions": 6, "百万元": 6, "billions": 9}


def _in_units(gold: dict[str, str], row: FinancialRow) -> bool:
    """Whether the row's value in units is the gold figure at the gold scale (per-share and share rows, and a row
    whose scale is not established, are not judged on it)."""
    if row.unit != "currency" or row.scale is None or row.value is None or gold.get("scale") not in _POWERS:
        return True
    expected = Decimal(_digits(gold["value"]).lstrip("-") or "0") * Decimal(10) ** _POWERS[gold["scale"]]
    return Decimal(row.value).copy_abs() == expected


def judge(gold: dict[str, str], rows: list[FinancialRow]) -> str:
    """'found', or what went wrong: 'no row' (label not on that page), 'no period', 'wrong value' (another figure,
    or the gold figure in the wrong scale), 'unverified' (scale not established, or not found again at its box)."""
    on_page = [r for r in rows if r.page == gold["page"] and _same_label(gold["label"], r)]
    if not on_page:
        return "no row"
    in_period = [r for r in on_page if _same_period(gold["period"], r.period)]
    if not in_period:
        return "no period"
    right = [r for r in in_period if _digits(r.value_printed) == _digits(gold["value"])]
    if not right and all(r.value is None for r in in_period):
        return "unverified"  # no figure claimed (a cell the parser could not split): not a wrong one
    if not right or not any(_in_units(gold, r) for r in right):
        return "wrong value"
    return "found" if any(r.verified and r.scale is not None and _in_units(gold, r) for r in right) else "unverified"


def reverified(kb: KnowledgeBase, document: str, rows: list[FinancialRow]) -> tuple[int, int, list[str]]:
    """How many verified rows with a figure there are, how many of them ``locate_quote`` confirms with the row's label
    and period, and a few that it does not (as 'page: label | period | figure — note')."""
    checked, confirmed, failed = 0, 0, []
    for row in rows:
        if not row.verified or not re.search(r"\d", row.value_printed):
            continue  # a nil dash is no figure to quote
        checked += 1
        label = row.label
        located = kb.locate(document, row.page, row.value_printed, label=label, period=row.period)
        if located.verified:
            confirmed += 1
        elif len(failed) < 3:
            failed.append(f"p.{row.page}: {label} | {row.period} | {row.value_printed} — {located.note}")
    return checked, confirmed, failed


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


def _group(document: str) -> str:
    """Which part of the dev set a document is in: the tuned-on en/ and zh/, or the unfamiliar filings/."""
    return "filings" if document.startswith("filings/") else "zh" if has_cjk(document) else "en"


def evaluate(index: Path, gold: Path) -> dict[str, object]:
    kb = KnowledgeBase.open(index, default_cache_dir(), with_embedder=False)
    facts = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_group: dict[str, list[bool]] = defaultdict(list)
    wrong: dict[str, int] = defaultdict(int)
    misses = []
    for fact in facts:
        verdict = judge(fact, kb.financial_rows(fact["document"]))
        by_group[_group(fact["document"])].append(verdict == "found")
        wrong[_group(fact["document"])] += verdict == "wrong value"
        if verdict != "found":
            misses.append({**fact, "verdict": verdict})
    checked = {"confirmed": 0, "verified_rows": 0}
    unconfirmed: list[str] = []
    for document in dict.fromkeys(fact["document"] for fact in facts):
        rows = kb.financial_rows(document)
        figures, confirmed, failed = reverified(kb, document, rows)
        checked["confirmed"] += confirmed
        checked["verified_rows"] += figures
        unconfirmed += [f"{document}: {line}" for line in failed]
    return {
        "coverage": coverage(kb),
        "facts": len(facts),
        "found": sum(sum(v) for v in by_group.values()),
        "by_group": {group: [sum(v), len(v)] for group, v in by_group.items()},
        "wrong_figures": dict(wrong),
        "locate_quote": checked,
        "locate_quote_failures": unconfirmed,
        "misses": misses,
    }


def markdown(result: dict[str, object]) -> list[str]:
    total, found = result["facts"], result["found"]
    groups, wrong, checked = result["by_group"], result["wrong_figures"], result["locate_quote"]
    assert isinstance(total, int) and isinstance(found, int)
    assert isinstance(groups, dict) and isinstance(wrong, dict) and isinstance(checked, dict)
    names = {"en": "dev English", "zh": "dev Chinese", "filings": "the 23 unfamiliar filings of `dev/filings`"}
    languages = ", ".join(
        f"{names.get(group, group)} {ok}/{n} ({wrong.get(group, 0)} wrong)" for group, (ok, n) in groups.items()
    )
    covered = result.get("coverage", {})
    assert isinstance(covered, dict)
    return [
        "## Financial statements: facts as data",
        "",
        "`bench/financials_eval.py --index INDEX` (an index of `../shared/eval/dev`): "
        f"**{found} of {total}** gold statement facts returned by "
        "get_financials with the right value, period and page, verified (found again at their boxes, their scale, "
        "currency and period each read from the filing, their statement's identities holding) "
        f"({found / max(total, 1):.0%}; "
        f"target ≥ 95%, 0 wrong) — {languages}; **{sum(wrong.values())} wrong figures** (the gold figure with "
        "another value in units, or another figure, under the gold label and period). Every figure get_financials "
        f"verified (a nil dash aside), checked again by `locate_quote` with its label and period: "
        f"{checked['confirmed']} of {checked['verified_rows']} confirmed (the rest: the same figure printed twice "
        "under one label and period, or a column the claim reader sees unlabelled). "
        "Gold: `bench/gold/facts.jsonl`, from pdfplumber's words by "
        "`bench/make_fact_gold.py` (revenue, net income, operating income, diluted EPS, total assets, current "
        "liabilities, operating cash flow and an investing line of 13 English filings — 10-K, 10-Q, two non-US annual "
        "reports — and a 年报's key data and statements; for the 23 filings, also gross profit, current assets, total "
        "liabilities, cash, and investing and financing cash flows).",
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
