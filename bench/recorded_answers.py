"""Every tool's answers on the sample filings, recorded, so that a change meant to keep answers can show it did.

    python bench/recorded_answers.py --index INDEX --out answers.json        # record
    python bench/recorded_answers.py --index INDEX --compare answers.json    # record again and list what changed

The calls are fixed (generic English and Chinese questions, then the pages, quotes, outlines, sections and statements
of what they find) and each is made in every ``detail`` mode through an in-process MCP client. A call's record is its
text content and its structuredContent; ``--compare`` prints each call whose record differs, with the first line
that differs, and exits 1 when any does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from fastmcp import Client

from indexer.ingest.settings import default_cache_dir
from mcp_server.loader import IndexLoader
from mcp_server.server import build_server
from mcp_server.settings import ServerSettings

QUERIES = [
    "total revenue and net income", "capital expenditures", "risk factors", "cash dividends declared per share",
    "operating income by segment", "Why did gross margin change?", "营业收入和归属于上市公司股东的净利润",
    "经营活动产生的现金流量净额", "商誉", "毛利率", "风险因素",
]  # fmt: skip
MODES = ("compact", "full")


async def _call(client: Client, tool: str, arguments: dict[str, Any], modes: tuple[str, ...] = MODES) -> dict:
    answers = {}
    for mode in modes:
        found = await client.call_tool(tool, {**arguments, "detail": mode} if mode else arguments, raise_on_error=False)
        text = "\n".join(getattr(part, "text", "") for part in found.content)
        answers[mode or "-"] = {"error": found.is_error, "text": text, "structured": found.structured_content}
    return answers


async def _record(index: Path) -> dict[str, Any]:
    cache = default_cache_dir()
    server = build_server(ServerSettings(index_dir=index, cache_dir=cache), IndexLoader(index, cache, 300))
    calls: dict[str, Any] = {}
    pages: dict[tuple[str, int], None] = {}
    async with Client(server) as client:
        calls["list_documents"] = await _call(client, "list_documents", {})
        for query in QUERIES:
            found = await _call(client, "search_reports", {"query": query, "top_k": 5})
            calls[f"search_reports {query}"] = found
            for hit in (found["compact"]["structured"] or {}).get("hits", [])[:2]:
                pages[(hit["document"], hit["page"])] = None
        documents = list(dict.fromkeys(document for document, _ in pages))
        claims: list[dict[str, Any]] = []
        for document, number in pages:
            page = await _call(client, "get_page", {"document": document, "page": number})
            calls[f"get_page {document} {number}"] = page
            text = (page["compact"]["structured"] or {}).get("text", "")
            line = next((line for line in text.splitlines() if len(line) > 8), None)
            if line:
                arguments = {"document": document, "page": number, "quote": line[:40]}
                calls[f"locate_quote {document} {number}"] = await _call(client, "locate_quote", arguments)
                claims.append(arguments)
        calls["verify_claims"] = await _call(client, "verify_claims", {"claims": claims[:20]})
        for document in documents:
            outline = await _call(client, "get_outline", {"document": document})
            calls[f"get_outline {document}"] = outline
            for section in ((outline["compact"]["structured"] or {}).get("sections") or [])[:4]:
                arguments = {"document": document, "section": section["key"]}
                calls[f"read_section {document} {section['key']}"] = await _call(client, "read_section", arguments)
            for statement in ("income", "balance", "cash_flow", "key_data"):
                arguments = {"document": document, "statement": statement}
                calls[f"get_financials {document} {statement}"] = await _call(client, "get_financials", arguments)
            arguments = {"document": document, "items": ["revenue", "net_income", "goodwill"]}
            calls[f"get_financials {document} items"] = await _call(client, "get_financials", arguments)
    return calls


SHOWN_CHANGES = 4  # changed values shown per call
SHOWN_CHARS = 100


def _changed(before: Any, after: Any, path: str = "") -> list[str]:
    """The paths whose values differ between two answers, each with its old and new value (shortened)."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [line for key in sorted(before.keys() | after.keys(), key=str)
                for line in _changed(before.get(key), after.get(key), f"{path}.{key}")]  # fmt: skip
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            line for i, (x, y) in enumerate(zip(before, after, strict=True)) for line in _changed(x, y, f"{path}[{i}]")
        ]
    if before == after:
        return []
    if isinstance(before, str) and isinstance(after, str):
        at = next(
            (i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y), min(len(before), len(after))
        )
        before, after = before[max(0, at - 30) : at + 50], after[max(0, at - 30) : at + 50]
    return [f"{path}: {json.dumps(before, ensure_ascii=False)[:SHOWN_CHARS]} → "
            f"{json.dumps(after, ensure_ascii=False)[:SHOWN_CHARS]}"]  # fmt: skip


def _differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    out = []
    for call in sorted(before.keys() | after.keys()):
        if before.get(call) == after.get(call):
            continue
        if call not in before or call not in after:
            out.append(f"{call}: {'new' if call not in before else 'gone'}")
            continue
        changes = [
            line for line in _changed(before[call], after[call]) if ".text:" not in line or "structured" not in line
        ]
        more = f"\n  … and {len(changes) - SHOWN_CHANGES} more" if len(changes) > SHOWN_CHANGES else ""
        out.append(f"{call}:\n  " + "\n  ".join(changes[:SHOWN_CHANGES]) + more)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="an index of data/samples")
    parser.add_argument("--out", type=Path, help="write the answers here")
    parser.add_argument("--compare", type=Path, help="answers recorded before: list the calls whose answers differ")
    args = parser.parse_args()
    answers = asyncio.run(_record(args.index))
    if args.out:
        args.out.write_text(json.dumps(answers, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
    if args.compare:
        differences = _differences(json.loads(args.compare.read_text(encoding="utf-8")), answers)
        print("\n".join(differences) or f"all {len(answers)} calls answer as recorded")
        return 1 if differences else 0
    print(f"{len(answers)} calls recorded")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
