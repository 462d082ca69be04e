"""How often get_outline finds a section where it starts: gold start pages (bench/gold/sections.jsonl, written by
bench/make_section_gold.py from pdfplumber's text) against the outline of an index of the same filings.

    python bench/outline_eval.py --index INDEX_OF_../shared/eval/dev [--gold bench/gold/sections.jsonl] [--markdown]
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from gold_cli import gold_main

from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

GOLD = Path(__file__).parent / "gold" / "sections.jsonl"


def evaluate(index: Path, gold: Path) -> dict[str, object]:
    kb = KnowledgeBase.open(index, default_cache_dir(), with_embedder=False)
    rows = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_kind: dict[str, list[bool]] = defaultdict(list)
    misses = []
    for row in rows:
        found = next((s for s in kb.outline(row["document"]) if s.key == row["key"]), None)
        exact = found is not None and found.page_start == row["page"]
        kind = (
            "年报 节" if row["key"].startswith("第")
            else "annual report section" if "_" in row["key"]
            else "10-Q Item" if "10Q" in row["document"]
            else "20-F Item" if "pintec" in row["document"]
            else "10-K Item"
        )  # fmt: skip
        by_kind[kind].append(exact)
        if not exact:
            misses.append({**row, "found": found.page_start if found else None})
    return {
        "sections": len(rows),
        "exact": sum(sum(v) for v in by_kind.values()),
        "by_kind": {kind: [sum(v), len(v)] for kind, v in by_kind.items()},
        "misses": misses,
    }


def markdown(result: dict[str, object]) -> list[str]:
    total, exact = result["sections"], result["exact"]
    assert isinstance(total, int) and isinstance(exact, int) and isinstance(result["by_kind"], dict)
    kinds = ", ".join(f"{kind} {ok}/{n}" for kind, (ok, n) in result["by_kind"].items())
    return [
        "## Outline: section start pages",
        "",
        "`bench/outline_eval.py --index INDEX` (an index of `../shared/eval/dev`): "
        f"**{exact} of {total}** gold section starts found on the exact page "
        f"({exact / max(total, 1):.0%}; target ≥ 95%) — {kinds}. Gold: `bench/gold/sections.jsonl`, from pdfplumber's "
        "text by `bench/make_section_gold.py` (10-K Items 1, 1A, 7, 8 of 8 filings, 10-Q Item 2 of 2, the 12 节 of a "
        "年报, and the sections printed once under their own titles in 4 annual reports of other countries; of "
        "`dev/filings`: the Items of 9 10-Ks, 2 10-Qs and a 20-F, and 4 annual reports' own sections).",
        "",
    ]


def main() -> int:
    return gold_main(__doc__, GOLD, evaluate, markdown)


if __name__ == "__main__":
    raise SystemExit(main())
