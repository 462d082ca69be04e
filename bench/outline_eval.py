"""How often get_outline finds a section where it starts: gold start pages (bench/gold/sections.jsonl, written by
bench/make_section_gold.py from pdfplumber's text) against the outline of an index of the same filings.

    python bench/outline_eval.py --index INDEX_OF_../shared/eval/dev [--gold bench/gold/sections.jsonl] [--markdown]

The filings' own contents pages (bench/gold/contents.jsonl, written by helpers from the pages alone): each entry's
start page as the helper found it by going to the page, against the outline section of the same Item, 节 or title;
and how many outline sections start on a contents page (target 0).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from gold_cli import gold_main

from indexer.core.text import normal_words
from indexer.evidence.outline import Section
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

GOLD = Path(__file__).parent / "gold" / "sections.jsonl"
CONTENTS = Path(__file__).parent / "gold" / "contents.jsonl"
_ITEM = re.compile(r"^item\s*(\d{1,2}[a-c]?)\b", re.I)
_PART = re.compile(r"^part\s+([ivx]+)\b", re.I)
_CHAPTER = re.compile(r"^(第[一二三四五六七八九十]+节)")


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
        "contents": _contents(kb) if CONTENTS.exists() else None,
    }


def _section_for(entry: str, sections: list[Section], used: set[int]) -> Section | None:
    """The first outline section not taken yet, and not before the last one taken, that a contents entry names:
    the same Item, Part or 节 (a 10-Q's Part II numbers its Items from 1 again), else the same title."""
    after = max((sections[i].page_start for i in used), default=0)  # entries come in the document's order
    unused = [s for i, s in enumerate(sections) if i not in used and s.page_start >= after]
    for pattern in (_ITEM, _PART, _CHAPTER):
        if found := pattern.match(entry.strip()):
            key = found.group(1).upper()
            return next((s for s in unused if s.key.split(".")[-1].upper() == key), None)
    wanted = normal_words(entry)
    return next((s for s in unused if normal_words(s.title).startswith(wanted[:40])), None)


def _contents(kb: KnowledgeBase) -> dict[str, object]:
    rows = [json.loads(line) for line in CONTENTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    indexed = {meta.document for meta in kb.documents()}
    rows = [row for row in rows if row["document"] in indexed]  # an index of other filings (the wide corpus)
    scored = exact = on_contents = 0
    misses = []
    for row in rows:
        sections = kb.outline(row["document"])
        on_contents += sum(s.page_start in row["contents_pages"] for s in sections)
        used: set[int] = set()
        for entry in row["entries"]:
            if entry.get("pdf_page") is None:
                continue
            found = _section_for(entry["title"], sections, used)
            if found is not None:
                used.add(sections.index(found))
            scored += 1
            exact += found is not None and found.page_start == entry["pdf_page"]
            if found is None or found.page_start != entry["pdf_page"]:
                misses.append({"document": row["document"], "title": entry["title"], "gold": entry["pdf_page"],
                               "found": found.page_start if found else None})  # fmt: skip
    return {"filings": len(rows), "entries": scored, "exact": exact, "starting_on_contents": on_contents,
            "misses": misses}  # fmt: skip


def markdown(result: dict[str, object]) -> list[str]:
    total, exact = result["sections"], result["exact"]
    assert isinstance(total, int) and isinstance(exact, int) and isinstance(result["by_kind"], dict)
    kinds = ", ".join(f"{kind} {ok}/{n}" for kind, (ok, n) in result["by_kind"].items())
    lines = [
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
    contents = result.get("contents")
    if isinstance(contents, dict):
        n, ok = contents["entries"], contents["exact"]
        lines += [
            f"The filings' own contents pages (`bench/gold/contents.jsonl`: {contents['filings']} filings, each "
            "entry's start page found by a helper going to the page, without this code): "
            f"**{ok} of {n}** entries start on the gold page in the outline ({ok / max(n, 1):.0%}); "
            f"{contents['starting_on_contents']} outline sections start on a contents page (target 0).",
            "",
        ]
    return lines


def main() -> int:
    return gold_main(__doc__, GOLD, evaluate, markdown)


if __name__ == "__main__":
    raise SystemExit(main())
