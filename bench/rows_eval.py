"""Statement rows as printed: every line pdfplumber reads on a gold statement page (the pages of
bench/gold/facts.jsonl) that prints a label and amounts, against the table rows of an index of the same filings —
the row with that label on that page, and whether it holds the same amounts. An independent extractor's lines (not
LiteParse's) decide what was printed; a label found with other amounts is a merged or split row, a label not found
is a row lost or joined to another ('GoodwillBrands…').

    python bench/rows_eval.py --index INDEX_OF_../shared/eval/dev [--gold bench/gold/facts.jsonl] [--markdown]
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pdfplumber
from gold_cli import gold_main

from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

GOLD = Path(__file__).parent / "gold" / "facts.jsonl"
# An amount as statements print it: thousands separated, or decimals, perhaps negative in brackets.
_AMOUNT = re.compile(r"(?<![\w.,])\(?-?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?(?![\w,])|(?<![\w.,])\(?-?\d+\.\d+\)?(?![\w.,])")
_LABEL = re.compile(r"^([A-Za-z\u4e00-\u9fff][^\d$€£¥(]*?)\s*(?:\(?\d|[$€£¥]|$)")


def _words(label: str) -> str:
    return re.sub(r"[^a-z\u4e00-\u9fff]+", "", label.lower())


def _printed_lines(pdf: Path, page: int) -> list[tuple[str, list[str]]]:
    """(label, amounts) of each pdfplumber line on the page that prints a label and at least one amount."""
    with pdfplumber.open(pdf) as document:
        text = document.pages[page - 1].extract_text() or ""
    found = []
    for line in text.splitlines():
        amounts = _AMOUNT.findall(line)
        label = _LABEL.match(line.strip())
        if amounts and label and len(_words(label.group(1))) >= 3:
            found.append((label.group(1).strip(), [a.strip("()-") for a in amounts]))
    return found


def evaluate(index: Path, gold: Path) -> dict[str, object]:
    kb = KnowledgeBase.open(index, default_cache_dir(), with_embedder=False)
    rows = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    pages = sorted({(row["document"], row["page"]) for row in rows})
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # group → as printed, other amounts, not found
    examples: list[str] = []
    for document, page in pages:
        group = document.split("/")[0]
        ours: dict[str, list[set[str]]] = defaultdict(list)
        for table in kb.tables(document, page):
            for row in table.rows:
                texts = [row.label, *(cell.text for cell in row.cells)]  # a par value stays in the label
                amounts = {a.strip("()-") for text in texts for a in _AMOUNT.findall(text)}
                ours[_words(row.label)].append(amounts)
        for label, amounts in _printed_lines(kb.pdf(document), page):
            key = _words(label)
            # our label may hold its parent before it or the rest of a wrapped label after it
            candidates = ours.get(key) or [a for k, v in ours.items() if key in k for a in v]
            verdict = 0 if any(set(amounts) <= have for have in candidates) else 1 if candidates else 2
            counts[group][verdict] += 1
            if verdict and len(examples) < 40:
                what = "other amounts" if verdict == 1 else "not found"
                examples.append(f"{document} p.{page}: {label} {amounts} — {what}")
    total = [sum(c[i] for c in counts.values()) for i in range(3)]
    return {"pages": len(pages), "lines": sum(total), "as_printed": total[0], "other_amounts": total[1],
            "not_found": total[2], "by_group": dict(counts), "examples": examples}  # fmt: skip


def markdown(result: dict[str, object]) -> list[str]:
    lines, printed = result["lines"], result["as_printed"]
    assert isinstance(lines, int) and isinstance(printed, int) and isinstance(result["by_group"], dict)
    groups = ", ".join(f"{group} {ok}/{ok + other + lost}" for group, (ok, other, lost) in result["by_group"].items())
    return [
        "## Statement rows as printed",
        "",
        "`bench/rows_eval.py --index INDEX` (an index of `../shared/eval/dev`): of the "
        f"{lines} lines pdfplumber reads with a label and amounts on the {result['pages']} gold statement pages, "
        f"**{printed}** ({printed / max(lines, 1):.0%}) are a table row of ours with that label and those amounts — "
        f"{groups}; {result['other_amounts']} have the label with other amounts (a row merged or split), "
        f"{result['not_found']} no row of that label (lost, or joined to another label).",
        "",
    ]


def main() -> int:
    return gold_main(__doc__, GOLD, evaluate, markdown)


if __name__ == "__main__":
    raise SystemExit(main())
