"""What a calling model reads, in characters: each tool's text content (compact, the default) against the whole
result as JSON text (``detail="full"``, what the text content was before), through a real MCP client.

    python bench/answer_sizes.py --index INDEX [--json out.json] [--markdown]

Queries are generic (they fit any filings corpus), in English and Chinese; `get_page` is measured on the pages of the
searches' top hits, against each page's own text. Targets (issue 13): a top-5 search ≤ 8,000 characters with passage
text the majority; `get_page` ≤ 2.5 × the page's text + 2,000.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from pathlib import Path
from typing import Any

from fastmcp import Client

from indexer.ingest.settings import default_cache_dir
from mcp_server.loader import IndexLoader
from mcp_server.server import build_server
from mcp_server.settings import ServerSettings

QUERIES = {
    "en": ["total revenue and net income", "capital expenditures", "risk factors competition",
           "cash dividends declared per share", "operating income by segment"],
    "zh": ["营业收入和归属于上市公司股东的净利润", "经营活动产生的现金流量净额", "总资产", "研发投入", "毛利率"],
}  # fmt: skip
SEARCH_LIMIT = 8_000
PAGE_FACTOR, PAGE_EXTRA = 2.5, 2_000


async def _measure(index: Path, cache: Path) -> dict[str, Any]:
    server = build_server(ServerSettings(index_dir=index, cache_dir=cache), IndexLoader(index, cache, 300))
    searches: list[dict[str, Any]] = []
    pages: dict[tuple[str, int], dict[str, Any]] = {}
    async with Client(server) as client:
        for language, queries in QUERIES.items():
            for query in queries:
                for top_k in (5, 20):
                    compact = await client.call_tool("search_reports", {"query": query, "top_k": top_k})
                    full = await client.call_tool("search_reports", {"query": query, "top_k": top_k, "detail": "full"})
                    hits = compact.structured_content["hits"]
                    text = compact.content[0].text
                    shown = sum(len(line) for line in text.splitlines() if not line.startswith(("[", "box:", "row:")))
                    searches.append({
                        "language": language, "query": query, "top_k": top_k, "hits": len(hits),
                        "text_chars": len(text), "full_chars": len(full.content[0].text),
                        "passage_share": round(shown / len(text), 3) if text else 0.0,
                    })  # fmt: skip
                    for hit in hits[:2] if top_k == 5 else []:
                        pages.setdefault((hit["source"]["document"], hit["source"]["page"]), {"language": language})
        for (document, number), row in pages.items():
            compact = await client.call_tool("get_page", {"document": document, "page": number})
            full = await client.call_tool("get_page", {"document": document, "page": number, "detail": "full"})
            own = len(compact.structured_content["text"])
            row.update(
                document=document, page=number, page_text_chars=own, text_chars=len(compact.content[0].text),
                full_chars=len(full.content[0].text), limit=PAGE_FACTOR * own + PAGE_EXTRA,
            )  # fmt: skip
        financials = []
        for document in dict.fromkeys(document for document, _ in pages):
            for arguments in ({"statement": "income"}, {"items": ["revenue", "net_income", "total_assets"]}):
                compact = await client.call_tool("get_financials", {"document": document, **arguments},
                                                 raise_on_error=False)  # fmt: skip
                if compact.is_error:
                    continue  # a document without statements (a research note)
                full = await client.call_tool("get_financials", {"document": document, **arguments, "detail": "full"})
                financials.append({
                    "document": document, "call": "statement" if "statement" in arguments else "items",
                    "rows": len(compact.structured_content["rows"]), "text_chars": len(compact.content[0].text),
                    "full_chars": len(full.content[0].text),
                })  # fmt: skip
    return {"index": str(index), "searches": searches, "pages": list(pages.values()), "financials": financials}


def markdown(results: dict[str, Any]) -> list[str]:
    """The BENCHMARKS.md section (also written by `make bench` through bench/report.py)."""
    if not results:
        return []
    lines = [
        "## What the model reads (text content, characters)",
        "",
        f"`bench/answer_sizes.py --index {results['index']}`: each tool's text content (compact, the default) against "
        'the whole result as JSON text (`detail="full"`, the text content before issue 13); passage share = '
        "characters of passage text (not headers, boxes or rows) in the compact text. Targets: top-5 search ≤ "
        f"{SEARCH_LIMIT:,}; `get_page` ≤ {PAGE_FACTOR} × page text + {PAGE_EXTRA:,}.",
        "",
        "| call | n | compact: median / max | full JSON: median / max | passage share (median) | target |",
        "|---|---|---|---|---|---|",
    ]
    for language in ("en", "zh"):
        for top_k in (5, 20):
            rows = [r for r in results["searches"] if r["language"] == language and r["top_k"] == top_k]
            if not rows:
                continue
            texts, fulls = [r["text_chars"] for r in rows], [r["full_chars"] for r in rows]
            met = "" if top_k != 5 else ("met" if max(texts) <= SEARCH_LIMIT else "**not met**")
            lines.append(
                f"| search_reports top_k={top_k}, {language} | {len(rows)} | {statistics.median(texts):,.0f} / "
                f"{max(texts):,} | {statistics.median(fulls):,.0f} / {max(fulls):,} | "
                f"{statistics.median(r['passage_share'] for r in rows):.0%} | {met} |"
            )
    pages = results["pages"]
    if pages:
        over = [p for p in pages if p["text_chars"] > p["limit"]]
        texts, fulls = [p["text_chars"] for p in pages], [p["full_chars"] for p in pages]
        ratio = statistics.median(p["text_chars"] / max(p["page_text_chars"], 1) for p in pages)
        lines.append(
            f"| get_page (top hits' pages) | {len(pages)} | {statistics.median(texts):,.0f} / {max(texts):,} | "
            f"{statistics.median(fulls):,.0f} / {max(fulls):,} | {ratio:.2f}× page text | "
            f"{'met' if not over else f'**not met** on {len(over)}'} |"
        )
    for call, what in (("statement", "income statement"), ("items", "revenue, net income, total assets")):
        rows = [r for r in results.get("financials", []) if r["call"] == call]
        if rows:
            texts, fulls = [r["text_chars"] for r in rows], [r["full_chars"] for r in rows]
            per_row = statistics.median(r["text_chars"] / max(r["rows"], 1) for r in rows)
            lines.append(
                f"| get_financials ({what}; the hits' documents) | {len(rows)} | {statistics.median(texts):,.0f} / "
                f"{max(texts):,} | {statistics.median(fulls):,.0f} / {max(fulls):,} | {per_row:.0f} per row | |"
            )
    return [*lines, ""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--markdown", action="store_true", help="print the BENCHMARKS.md section")
    args = parser.parse_args()
    results = asyncio.run(_measure(args.index, default_cache_dir()))
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    print("\n".join(markdown(results)) if args.markdown else json.dumps(results, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
