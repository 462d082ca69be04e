"""How often the index names a document's company, form, fiscal year and period end right: the gold of
bench/gold/metadata.jsonl (bench/make_metadata_gold.py) against `list_documents` of an index of the same filings.
A company is right when the gold name and ours share their distinctive words (legal suffixes, case and punctuation
aside); a gold field left empty (a date the cover does not print) is not scored.

    python bench/metadata_eval.py --index INDEX_OF_../shared/eval/dev [--gold bench/gold/metadata.jsonl] [--markdown]
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from gold_cli import gold_main

from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

GOLD = Path(__file__).parent / "gold" / "metadata.jsonl"
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
    return {"documents": len(rows), "right": right, "scored": total, "fields": scores, "misses": misses}


def markdown(result: dict[str, object]) -> list[str]:
    right, scored, fields = result["right"], result["scored"], result["fields"]
    assert isinstance(right, int) and isinstance(scored, int) and isinstance(fields, dict)
    per_field = ", ".join(f"{field} {ok}/{n}" for field, (ok, n) in fields.items())
    return [
        "## Document metadata",
        "",
        "`bench/metadata_eval.py --index INDEX` (an index of `../shared/eval/dev`): "
        f"**{right} of {scored}** gold fields right ({right / max(scored, 1):.0%}; target ≥ 98%) — {per_field}, over "
        f"{result['documents']} documents. Gold: `bench/gold/metadata.jsonl` (company and fiscal year from the "
        "datasets' records, form and period end read off the covers by pdfplumber in `bench/make_metadata_gold.py`; "
        "for the 24 filings of `dev/filings`, glossy covers' form and year end read by hand).",
        "",
    ]


def main() -> int:
    return gold_main(__doc__, GOLD, evaluate, markdown)


if __name__ == "__main__":
    raise SystemExit(main())
