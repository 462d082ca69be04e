"""Whether get_financials establishes what a figure is: each gold statement's scale, currency and change columns, and
its identities, against the rows get_financials reads on that page.

Gold (bench/gold/units.jsonl): every primary statement of the 66 dev filings (and a 年报's key data), read from the
pages alone by readers who never saw this code (pdfplumber's text, pages rendered and looked at where in doubt; their
instructions are bench/gold/units_instructions.md): the scale as printed and where, the currency and what establishes
it (a sign or code over the figures, the filing's presentation-currency sentence, a bare $ on a US SEC form), the
change columns, and the balance and cash identities with whether they hold.

Per statement: **scale** and **currency** are *right* (ours equals the gold's), *missing* (ours not established where
the gold's is: the figures unverified, not wrong) or **wrong** (ours established and not the gold's, or established
where the filing establishes none). A **wrong verified figure** is a verified row on a gold page whose scale or
currency is not the gold's. A **change column read as a period** is a row whose period is a gold change column.

    python bench/units_eval.py --index INDEX_OF_../shared/eval/dev [--gold bench/gold/units.jsonl] [--markdown]
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from gold_cli import gold_main

from indexer.core.text import has_cjk
from indexer.evidence.financials import FinancialRow
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

GOLD = Path(__file__).parent / "gold" / "units.jsonl"
TEXT_CHECK = "the scale agrees with the text"
_TRANSLATION = re.compile(r"dollars|yen|euros?|thousands|millions", re.I)
_UNITS = {"units": "", "元": ""}  # the gold's 'units' is our '' (figures in units); 元 is units in yuan


def _group(document: str) -> str:
    return "filings" if document.startswith("filings/") else "zh" if has_cjk(document) else "en"


def _scale(name: str | None) -> str | None:
    return None if name is None else _UNITS.get(name, name)


def _words(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _judge(ours: str | None, gold: str | None) -> str:
    if ours == gold:
        return "right"
    return "missing" if ours is None else "wrong"


def judge_statement(gold: dict, rows: list[FinancialRow]) -> dict[str, str | int]:
    """The verdicts for one gold statement over our rows on its page."""
    money = [r for r in rows if r.unit == "currency"]
    if not money:
        return {"read": "not read"}
    scales = _scale(Counter(r.scale for r in money).most_common(1)[0][0])
    currencies = Counter(r.currency for r in money).most_common(1)[0][0]
    gold_scale, gold_currency = _scale(gold.get("scale")), gold.get("currency")
    wrong_verified = sum(
        r.verified and (_scale(r.scale) != gold_scale or r.currency != gold_currency) for r in money
        if not _TRANSLATION.search(r.period)  # a column headed 'Thousands of U.S. dollars' is its own unit
    )  # fmt: skip
    changes = [_words(c) for c in gold.get("change_columns") or []]
    as_period = sum(any(c and c in _words(r.period) for c in changes) for r in rows)
    return {
        "read": "read",
        "scale": _judge(scales, gold_scale),
        "currency": _judge(currencies, gold_currency),
        "wrong_verified": wrong_verified,
        "verified": sum(r.verified for r in money),
        "figures": len(money),
        "change_as_period": as_period,
    }


def evaluate(index: Path, gold: Path) -> dict[str, object]:
    kb = KnowledgeBase.open(index, default_cache_dir(), with_embedder=False)
    statements = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    totals: dict[str, Counter] = defaultdict(Counter)
    problems = []
    identities = Counter()
    for statement in statements:
        group = _group(statement["document"])
        rows = [
            r for r in kb.financial_rows(statement["document"])
            if r.page == statement["page"] and r.statement == statement["statement"]
        ]  # fmt: skip
        verdict = judge_statement(statement, rows)
        totals[group]["statements"] += 1
        totals[group][f"read {verdict['read']}"] += 1
        for part in ("scale", "currency"):
            if part in verdict:
                totals[group][f"{part} {verdict[part]}"] += 1
        for count in ("wrong_verified", "verified", "figures", "change_as_period"):
            totals[group][count] += int(verdict.get(count, 0))
        if (
            verdict.get("read") != "read"
            or "missing" in (verdict.get("scale"), verdict.get("currency"))
            or "wrong" in (verdict.get("scale"), verdict.get("currency"))
            or verdict.get("wrong_verified")
        ):
            problems.append({**{k: statement[k] for k in ("document", "statement", "page")}, **verdict})
        ours = [i for i in kb.identities(statement["document"]) if i.page == statement["page"]]
        for identity in statement.get("identities") or []:
            name = "balance" if "assets" in identity["name"] else "cash"
            mine = [i for i in ours if ("assets" in i.name) == (name == "balance") and "rows above" not in i.name]
            status = "unchecked" if not mine else "holds" if mine[0].holds else "fails"
            identities[f"{name}: gold {'holds' if identity['holds'] else 'fails'}, ours {status}"] += 1
    every = Counter()
    for meta in kb.documents():
        tables = {(r.page, r.statement) for r in kb.financial_rows(meta.document) if r.statement != "key_data"}
        found = kb.identities(meta.document)
        every["statements"] += len(tables)
        every["checked"] += len(tables & {(i.page, i.statement) for i in found})
        every["hold"] += sum(i.holds for i in found)
        every["fail"] += sum(not i.holds for i in found)
        spoken = [i for i in found if i.name == TEXT_CHECK]
        every["text agrees"] += sum(i.holds for i in spoken)
        every["text disagrees"] += sum(not i.holds for i in spoken)
    return {
        "all_statements": dict(every),
        "statements": len(statements),
        "by_group": {group: dict(counts) for group, counts in totals.items()},
        "identities": dict(identities),
        "problems": problems,
    }


def markdown(result: dict[str, object]) -> list[str]:
    groups = result["by_group"]
    assert isinstance(groups, dict)
    names = {"en": "dev English", "zh": "dev Chinese", "filings": "`dev/filings`"}
    lines = [
        "## Financial statements: what establishes a figure",
        "",
        "`bench/units_eval.py --index INDEX` (an index of `../shared/eval/dev`), against `bench/gold/units.jsonl`: "
        f"{result['statements']} statements of the 66 dev filings read from their pages by readers who never saw "
        "the code. Scale and currency per statement: right / not established (figures unverified) / wrong.",
        "",
        "| set | statements | read | scale right / missing / wrong | currency right / missing / wrong | "
        "verified figures | wrong verified | change column as period |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for group, c in groups.items():
        lines.append(
            f"| {names.get(group, group)} | {c.get('statements', 0)} | {c.get('read read', 0)} | "
            f"{c.get('scale right', 0)} / {c.get('scale missing', 0)} / {c.get('scale wrong', 0)} | "
            f"{c.get('currency right', 0)} / {c.get('currency missing', 0)} / {c.get('currency wrong', 0)} | "
            f"{c.get('verified', 0)} of {c.get('figures', 0)} | {c.get('wrong_verified', 0)} | "
            f"{c.get('change_as_period', 0)} |"
        )
    identities = result["identities"]
    assert isinstance(identities, dict)
    every = result["all_statements"]
    assert isinstance(every, dict)
    lines += ["", f"Identities over every statement table get_financials reads on the dev set: {every['statements']} "
              f"tables, {every['checked']} with at least one identity checked; {every['hold']} identities hold, "
              f"{every['fail']} fail (those figures unverified: 'does not add up'). Among them, a key figure's scale "
              f"against the amount the filing's text states in words ('net sales of $34.2 billion'): "
              f"{every['text agrees']} agree, {every['text disagrees']} disagree."]  # fmt: skip
    lines += ["", "Identities the gold records, as ours checked them: "
              + "; ".join(f"{name} {n}" for name, n in sorted(identities.items())) + ".", ""]  # fmt: skip
    return lines


def main() -> int:
    return gold_main(__doc__, GOLD, evaluate, markdown)


if __name__ == "__main__":
    raise SystemExit(main())
