"""What a calling model reads, in characters, in every client: each tool's text content and its structuredContent
(as Claude Code forwards it: ``JSON.stringify``, no spaces, non-ASCII kept) for every mode, and what tools/list costs.

    python bench/answer_sizes.py --index INDEX [--json out.json] [--markdown]

Queries are generic (they fit any filings corpus), in English and Chinese; `get_page`, `locate_quote`,
`get_outline` and `get_financials` are measured on the documents and pages of the searches' top hits. Targets
(issues 13 and 29): a top-5 search ≤ 8,000 characters of text and of structuredContent, an income statement's
structuredContent ≤ 8,000, a survey (`detail="pages"`) top-10 ≤ 1,500, tools/list descriptions + input schemas ≤
8,000 (issue 58); `get_page` text ≤ 2.5 × the page's text + 2,000.
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
SURVEY_LIMIT = 1_500
LISTING_LIMIT = 3_000  # issue 58: list_documents at any size of index
TOOLS_LIST_LIMIT = 8_000  # issue 58 (9,000 since issue 43)
PAGE_FACTOR, PAGE_EXTRA = 2.5, 2_000
MODES = ("compact", "full")


def as_forwarded(structured: dict[str, Any] | None) -> str:
    """structuredContent as a client that forwards it to the model writes it (JavaScript's JSON.stringify)."""
    return json.dumps(structured, ensure_ascii=False, separators=(",", ":")) if structured is not None else ""


async def _sizes(
    client: Client, tool: str, arguments: dict[str, Any], modes: tuple[str, ...] = MODES
) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": tool}
    for mode in modes:
        result = await client.call_tool(tool, {**arguments, "detail": mode}, raise_on_error=False)
        if result.is_error:
            return {}
        out[mode] = {"text": len(result.content[0].text), "structured": len(as_forwarded(result.structured_content))}
        out.setdefault("result", result.structured_content)
        if mode == "full" and result.structured_content is not None:
            out["whole"] = result.structured_content.get("full")
    return out


async def _tools_list(client: Client) -> dict[str, int]:
    tools = await client.list_tools()
    return {
        "descriptions_and_inputs": sum(len(t.description or "") + len(as_forwarded(t.input_schema)) for t in tools),
        "output_schemas": sum(len(as_forwarded(t.outputSchema)) for t in tools if t.outputSchema),
        "tools": len(tools),
    }


async def _measure(index: Path, cache: Path) -> dict[str, Any]:
    server = build_server(ServerSettings(index_dir=index, cache_dir=cache), IndexLoader(index, cache, 300))
    calls: list[dict[str, Any]] = []
    pages: dict[tuple[str, int], str] = {}
    async with Client(server) as client:
        tools_list = await _tools_list(client)
        for language, queries in QUERIES.items():
            for query in queries:
                for top_k in (5, 20):
                    found = await _sizes(client, "search_reports", {"query": query, "top_k": top_k})
                    calls.append(found | {"language": language, "call": f"top_k={top_k}"})
                    for hit in found["result"]["hits"][:2] if top_k == 5 else []:
                        pages.setdefault((hit["document"], hit["page"]), language)
                survey = await _sizes(client, "search_reports", {"query": query, "top_k": 10}, ("pages",))
                calls.append(survey | {"language": language, "call": "top_k=10 pages"})
        for (document, number), language in pages.items():
            page = await _sizes(client, "get_page", {"document": document, "page": number})
            whole = page.pop("whole", None) or {}
            calls.append(page | {"language": language, "page_text": len(whole.get("text", ""))})
            lines = page["result"]["text"].splitlines()
            first_line = next((line for line in lines if len(line) > 8 and not line.startswith("[table ")), None)
            if first_line:
                quote = {"document": document, "page": number, "quote": first_line[:40]}
                calls.append(await _sizes(client, "locate_quote", quote) | {"language": language})
        for document in dict.fromkeys(document for document, _ in pages):
            language = pages[next(key for key in pages if key[0] == document)]
            calls.append(await _sizes(client, "get_outline", {"document": document}) | {"language": language})
            for arguments in ({"statement": "income"}, {"items": ["revenue", "net_income", "total_assets"]}):
                found = await _sizes(client, "get_financials", {"document": document, **arguments})
                if found:  # a document without statements (a research note) answers with an error
                    call = "income statement" if "statement" in arguments else "3 items"
                    calls.append(found | {"language": language, "call": call})
        calls.append(await _sizes(client, "list_documents", {}) | {"language": "all"})
    for call in calls:
        call.pop("result", None)
        call.pop("whole", None)
    return {"index": str(index), "tools_list": tools_list, "calls": [c for c in calls if c.get("tool")]}


def _median_max(values: list[int]) -> str:
    return f"{statistics.median(values):,.0f} / {max(values):,}" if values else "—"


def _target(rows: list[dict[str, Any]]) -> str:
    tool, call = rows[0]["tool"], rows[0].get("call", "")
    if tool == "search_reports" and call == "top_k=5":
        worst = max(max(r["compact"]["text"], r["compact"]["structured"]) for r in rows)
        return f"≤ {SEARCH_LIMIT:,}: {'met' if worst <= SEARCH_LIMIT else '**not met**'}"
    if tool == "search_reports" and call.endswith("pages"):
        worst = max(max(r["pages"]["text"], r["pages"]["structured"]) for r in rows)
        return f"≤ {SURVEY_LIMIT:,}: {'met' if worst <= SURVEY_LIMIT else '**not met**'}"
    if tool == "get_financials" and call == "income statement":
        worst = max(r["compact"]["structured"] for r in rows)
        return f"structured ≤ {SEARCH_LIMIT:,}: {'met' if worst <= SEARCH_LIMIT else '**not met**'}"
    if tool == "list_documents":
        worst = max(max(r["compact"]["text"], r["compact"]["structured"]) for r in rows)
        return f"≤ {LISTING_LIMIT:,}: {'met' if worst <= LISTING_LIMIT else '**not met**'}"
    if tool == "get_page":
        over = [r for r in rows if r["compact"]["text"] > PAGE_FACTOR * r["page_text"] + PAGE_EXTRA]
        return f"text ≤ {PAGE_FACTOR} × page + {PAGE_EXTRA:,}: " + (
            "met" if not over else f"**not met** on {len(over)}"
        )
    return ""


def markdown(results: dict[str, Any]) -> list[str]:
    """The BENCHMARKS.md section (also written by `make bench` through bench/report.py)."""
    if not results or "calls" not in results:
        return []
    listing = results["tools_list"]
    met = "met" if listing["descriptions_and_inputs"] <= TOOLS_LIST_LIMIT else "**not met**"
    lines = [
        "## What the model reads, in every client (characters)",
        "",
        f"`bench/answer_sizes.py --index {results['index']}`: each tool's text content and its structuredContent "
        "as a client that forwards it writes it (JSON.stringify: no spaces, non-ASCII kept; Claude Code shows the "
        "model only this), for each `detail` mode; median / max over generic English and Chinese queries and the "
        "documents and pages of their top hits.",
        "",
        f"tools/list ({listing['tools']} tools): descriptions + input schemas {listing['descriptions_and_inputs']:,} "
        f"(target ≤ {TOOLS_LIST_LIMIT:,}: {met}); output schemas {listing['output_schemas']:,}.",
        "",
        "| call | n | mode | text: median / max | structuredContent: median / max | target |",
        "|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for call in results["calls"]:
        groups.setdefault((call["tool"], call.get("call", ""), call["language"]), []).append(call)
    for (tool, call, language), rows in groups.items():
        name = f"{tool} {call}".strip() + f", {language}"
        modes = [m for m in ("compact", "pages", "full") if m in rows[0]]
        for mode in modes:
            texts = [r[mode]["text"] for r in rows]
            structured = [r[mode]["structured"] for r in rows]
            target = _target(rows) if mode != "full" else ""
            lines.append(
                f"| {name} | {len(rows)} | {mode} | {_median_max(texts)} | {_median_max(structured)} | {target} |"
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
