"""How often the index names a document's company, form, fiscal year and period end right: the gold of
bench/gold/metadata.jsonl (bench/make_metadata_gold.py) against `list_documents` of an index of the same filings.
A company is right when the gold name and ours share their distinctive words (legal suffixes, case and punctuation
aside); a gold field left empty (a date the cover does not print) is not scored.

Covers by agreement: bench/gold/covers.jsonl gives each filer as printed on its cover and where else it is printed
(written by a helper from the pages alone, not from this code). Scored: the company against it, how many of ours
are established (company_verified: two places agree), and how many established ones are wrong (target 0).

    python bench/metadata_eval.py --index INDEX_OF_../shared/eval/dev [--gold bench/gold/metadata.jsonl] [--markdown]
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from gold_cli import gold_main

from indexer.core.models import DocumentMeta
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

GOLD = Path(__file__).parent / "gold" / "metadata.jsonl"
COVERS = Path(__file__).parent / "gold" / "covers.jsonl"
FIELDS = ("company", "form", "year", "period_end")
_SUFFIXES = re.compile(r"\b(?:inc|incorporated|corp|corporation|co|company|ltd|limited|plc|llc|group|holdings?|the)\b")


def _words(name: str) -> set[str]:
    plain = re.sub(r"['’]", "", name.lower())  # McDonald's, McDonalds
    return set(_SUFFIXES.sub(" ", re.sub(r"[^\w]+", " ", plain)).split())


def _same(field: str, gold: object, ours: object) -> bool:
    if field == "company":
        wanted, have = _words(str(gold)), _words(str(ours or ""))
        plain = re.sub(r"[^\w]+", " ", str(ours or "").lower()).split()
        initials = "".join(word[0] for word in plain if not _SUFFIXES.fullmatch(word))
        acronym = len(wanted) == 1 and next(iter(wanted)) == initials  # AMD: Advanced Micro Devices
        if re.search(r"[\u4e00-\u9fff]", str(gold)) and ours:  # 四方科技 is the short name of 四方科技集团股份有限公司
            return str(ours) in str(gold) or str(gold) in str(ours)
        return acronym or (bool(wanted) and bool(have) and (wanted <= have or have <= wanted))
    if field == "form":
        return str(gold).lower().replace(" ", "") == str(ours or "").lower().replace(" ", "")
    return gold == ours


def evaluate(index: Path, gold: Path) -> dict[str, object]:
    kb = KnowledgeBase.open(index, default_cache_dir(), with_embedder=False)
    ours = {meta.document: meta for meta in kb.documents()}
    rows = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    scores: dict[str, list[int]] = {field: [0, 0] for field in FIELDS}
    misses = []
    for row in rows:
        meta = ours[row["document"]]
        for field in FIELDS:
            if row.get(field) is None:
                continue
            right = _same(field, row[field], getattr(meta, field))
            scores[field][0] += right
            scores[field][1] += 1
            if not right:
                misses.append({"document": row["document"], "field": field, "gold": row[field],
                               "ours": getattr(meta, field)})  # fmt: skip
    right, total = sum(ok for ok, _ in scores.values()), sum(n for _, n in scores.values())
    return {
        "documents": len(rows), "right": right, "scored": total, "fields": scores, "misses": misses,
        "covers": _covers(ours) if COVERS.exists() else None,
    }  # fmt: skip


def _covers(ours: dict[str, DocumentMeta]) -> dict[str, object]:
    rows = [json.loads(line) for line in COVERS.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts: dict[str, int] = {"documents": len(rows), "company right": 0, "established": 0, "established and wrong": 0}
    for field in ("form", "period_end"):
        counts |= {f"{field} established": 0, f"{field} established and wrong": 0}
    wrong: list[dict[str, object]] = []
    for row in rows:
        meta = ours[row["document"]]
        right = _same("company", row["company"], meta.company)
        counts["company right"] += right
        counts["established"] += bool(meta.company_verified)
        counts["established and wrong"] += bool(meta.company_verified) and not right
        if not right:
            wrong.append({"document": row["document"], "gold": row["company"], "ours": meta.company,
                          "established": meta.company_verified})  # fmt: skip
        for field, verified in (("form", meta.form_verified), ("period_end", meta.period_end_verified)):
            counts[f"{field} established"] += bool(verified)
            gold_value = row.get(field)
            mistaken = bool(verified) and gold_value is not None and not _same(field, gold_value, getattr(meta, field))
            counts[f"{field} established and wrong"] += mistaken
            if mistaken:
                wrong.append({"document": row["document"], "field": field, "gold": gold_value,
                              "ours": getattr(meta, field), "note": row.get("notes", "")})  # fmt: skip
    return counts | {"wrong": wrong}


def markdown(result: dict[str, object]) -> list[str]:
    right, scored, fields = result["right"], result["scored"], result["fields"]
    assert isinstance(right, int) and isinstance(scored, int) and isinstance(fields, dict)
    per_field = ", ".join(f"{field} {ok}/{n}" for field, (ok, n) in fields.items())
    lines = [
        "## Document metadata",
        "",
        "`bench/metadata_eval.py --index INDEX` (an index of `../shared/eval/dev`): "
        f"**{right} of {scored}** gold fields right ({right / max(scored, 1):.0%}; target ≥ 98%) — {per_field}, over "
        f"{result['documents']} documents. Gold: `bench/gold/metadata.jsonl` (company and fiscal year from the "
        "datasets' records, form and period end read off the covers by pdfplumber in `bench/make_metadata_gold.py`; "
        "for the 24 filings of `dev/filings`, glossy covers' form and year end read by hand).",
        "",
    ]
    covers = result.get("covers")
    if isinstance(covers, dict):
        n = covers["documents"]
        lines += [
            f"Covers by agreement (`bench/gold/covers.jsonl`, the filer as printed on the cover and where else, read "
            f"from the pages by a helper who never saw this code): company right {covers['company right']}/{n}; "
            f"established by two places {covers['established']}/{n}, of which wrong "
            f"{covers['established and wrong']} (target 0); form established {covers['form established']}/{n} "
            f"({covers['form established and wrong']} wrong); period end established "
            f"{covers['period_end established']}/{n} ({covers['period_end established and wrong']} wrong).",
            "",
        ]
        disagreements = [w for w in covers["wrong"] if w.get("field")]
        shown = [
            f"{Path(str(w['document'])).name} {w['field']} ours {w['ours']!r}, gold {w['gold']!r}"
            for w in disagreements
        ]
        bound = all((w["ours"], w["gold"]) == ("annual report", "10-K") for w in disagreements)
        why = " (each an annual report that binds a full Form 10-K: both are printed, the gold records the 10-K)"
        if disagreements:
            lines += ["Established and not the gold's: " + "; ".join(shown) + (why if bound else "") + ".", ""]
    return lines


def main() -> int:
    return gold_main(__doc__, GOLD, evaluate, markdown)


if __name__ == "__main__":
    raise SystemExit(main())
