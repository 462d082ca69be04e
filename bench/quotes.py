"""Quote verification rate on evidence passages: figures and sentences from a gold page must be located there.

    python bench/quotes.py --index DIR ../shared/eval/dev/en/evidence.jsonl ../shared/eval/dev/zh/questions.jsonl

Reads lines with ``document``, ``page`` or ``pages``, and ``evidence_text`` or ``evidence``. From each passage it
takes the longest line (a sentence or a table row) and up to three figures, and calls the same function as the
``locate_quote`` tool on the gold page. A quote counts as verified when the tool says so and the text under its
boxes (pdfplumber's words inside them) contains the quote's letters and digits.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from collections import Counter
from pathlib import Path

import pdfplumber

from indexer.core.models import Box
from indexer.core.tokenize import normalize_text
from indexer.evidence.quotes import locate_on_page
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase


def _alnum(text: str) -> str:
    return "".join(c for c in normalize_text(text) if c.isalnum())


def text_under(pdf: pdfplumber.PDF, boxes: list[Box]) -> str:
    """pdfplumber's characters whose centres lie inside the boxes, in reading order: an independent check."""
    out = []
    for box in boxes:
        chars = [
            c
            for c in pdf.pages[box.page - 1].chars
            if box.x0 - 1 <= (c["x0"] + c["x1"]) / 2 <= box.x1 + 1
            and box.top - 1 <= (c["top"] + c["bottom"]) / 2 <= box.bottom + 1
        ]
        out.append("".join(c["text"] for c in sorted(chars, key=lambda c: (round(c["top"]), c["x0"]))))
    return "".join(out)


_FIGURE = re.compile(r"^[-(]?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?$|^[-(]?\d+\.\d+\)?%?$")


def quotes_from(evidence: str) -> list[str]:
    """A sentence (or table row) and up to three figures, as a model would quote them from the passage.

    A passage cut out of a page by a character window (the Chinese set) starts and ends mid-token: its first
    and last tokens are dropped. A Chinese table row is quoted as its label and first figure ("营业收入 1,175,…").
    """
    if "\n" not in evidence:
        evidence = " ".join(evidence.split()[1:-1])
    tokens = evidence.split()
    lines = [" ".join(line.split()) for line in re.split(r"\n|(?<=[.;])\s+|(?<=[。；])", evidence)]
    lines = [line for line in lines if len(re.sub(r"\W", "", line)) >= 12 and len(line.split()) <= 40]
    out = [max(lines, key=len)[:200]] if lines else []
    rows = [
        f"{label} {figure}"
        for label, figure in itertools.pairwise(tokens)
        if re.fullmatch(r"[\u4e00-\u9fff（）()]{2,}", label) and _FIGURE.match(figure)
    ]
    out += rows[:1]
    figures = [t.strip("()（）%") for t in tokens if _FIGURE.match(t) and len(re.sub(r"\D", "", t)) >= 3]
    return out + list(dict.fromkeys(figures))[:3]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--show-failures", action="store_true")
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.index, default_cache_dir(), with_embedder=False)
    by_name = {Path(meta.document).name: meta.document for meta in kb.documents()}
    for path in args.files:
        tiers: Counter[str] = Counter()
        verified = total = reproduced = 0
        pdfs: dict[str, pdfplumber.PDF] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            evidence = item.get("evidence_text") or item.get("evidence")
            name = by_name.get(item["document"])
            if not evidence or name is None:
                continue
            pages = [item["page"]] if "page" in item else item["pages"]
            for quote in quotes_from(evidence):
                total += 1
                results = [locate_on_page(kb.page(name, p), quote) for p in pages]
                best = next((r for r in results if r.verified), results[0])
                tiers[best.match] += 1
                verified += best.verified
                if best.verified:
                    if name not in pdfs:
                        pdfs[name] = pdfplumber.open(kb.pdf(name))
                    under = _alnum(text_under(pdfs[name], best.boxes))
                    reproduced += _alnum(quote) in under or _alnum(best.matched_text) in under
                if not best.verified and args.show_failures:
                    print(f"  MISS {name} p{pages} [{best.match}] {quote[:90]!r} {best.note}")
        rate = verified / total if total else 0.0
        print(f"{path}: {verified}/{total} quotes verified ({rate:.1%}); tiers: {dict(tiers)}")
        print(f"  boxes reproduce the quote (pdfplumber characters inside them): {reproduced}/{verified}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
