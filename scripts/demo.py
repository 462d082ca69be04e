"""Drive filings-mcp with the official MCP Python client over stdio and print what an agent would get."""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EVIDENCE_PNG = Path(__file__).resolve().parent.parent / "docs" / "evidence.png"
CITATION = {
    "document": "finglm_603339_四方科技_2019_年度报告_p1-12.pdf",
    "page": 5,
    "quote": "营业收入 1,175,301,034.32",
}
FINANCIALS = {"document": "BESTBUY_2024Q2_10Q.pdf", "items": ["revenue", "eps_diluted"], "year": 2024}
QUERIES = [
    {"query": "Best Buy revenue and comparable sales in the second quarter of fiscal 2024", "top_k": 3},
    {"query": "四方科技2019年营业收入和归属于上市公司股东的净利润", "top_k": 3},
]


def _print_hits(result: dict) -> None:
    for rank, hit in enumerate(result["hits"], start=1):
        source = hit["source"]
        first = next((line for line in hit["content"].splitlines() if line.strip()), "")
        print(f"  {rank}. {source['document']}  page {source['page']}  score {hit['score']:.4f}")
        print(f"     {first[:100]}")
        for box in hit["bboxes"][:3]:
            print(
                f"     box p{box['page']}: x0={box['x0']:.1f} top={box['top']:.1f} "
                f"x1={box['x1']:.1f} bottom={box['bottom']:.1f}"
            )
        if len(hit["bboxes"]) > 3:
            print(f"     … {len(hit['bboxes']) - 3} more line boxes")
        row = hit.get("table_row")
        if row and row["cells"]:
            cell = row["cells"][0]
            box = cell["bboxes"][0]
            print(f"     table row: {row['label']} | {cell['header'] or 'column 1'}: {cell['text']}")
            print(f"       cell box p{box['page']}: x0={box['x0']:.1f} top={box['top']:.1f} x1={box['x1']:.1f}")


async def run(index: Path) -> int:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server", "--index", str(index)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        print("tools:", ", ".join(tool.name for tool in tools.tools))
        docs = await session.call_tool("list_documents", {"detail": "full"})  # full: with each document's title
        for doc in (docs.structured_content or {}).get("full", {}).get("documents", []):
            print(f"  {doc['document']}: {doc['title']} ({doc['pages']} pages, {doc['language']})")
        for arguments in QUERIES:
            print(f"\nsearch_reports {json.dumps(arguments, ensure_ascii=False)}")
            result = await session.call_tool("search_reports", {**arguments, "detail": "full"})  # every line box
            if result.is_error:
                print("  error:", result.content[0].text)  # type: ignore[union-attr]
                return 1
            _print_hits((result.structured_content or {}).get("full", {}))
        print(f"\nlocate_quote {json.dumps(CITATION, ensure_ascii=False)}")
        located = (await session.call_tool("locate_quote", CITATION)).structured_content or {}
        print(f"  verified={located.get('verified')} match={located.get('match')} page={located.get('page')}")
        for box in located.get("bboxes", []):
            print(f"  box: x0={box['x0']:.1f} top={box['top']:.1f} x1={box['x1']:.1f} bottom={box['bottom']:.1f}")
        claims = [
            {
                "document": CITATION["document"],
                "page": 5,
                "quote": "1,175,301,034.32",
                "label": "营业收入",
                "period": "2019年",
            },
            {
                "document": CITATION["document"],
                "page": 5,
                "quote": "1,175,301,034.32",
                "label": "营业收入",
                "period": "2018年",
            },
        ]
        print("\nverify_claims (two claims in one call; the second puts the figure in the wrong year)")
        checked = await session.call_tool("verify_claims", {"claims": claims})
        print("  " + checked.content[0].text.replace("\n", "\n  "))  # type: ignore[union-attr]
        print(f"\nget_financials {json.dumps(FINANCIALS, ensure_ascii=False)}")
        figures = (await session.call_tool("get_financials", {**FINANCIALS, "detail": "full"})).structured_content or {}
        for row in figures.get("full", {}).get("rows", []):
            box = row["bboxes"][-1]
            print(
                f"  p.{row['page']} {row['label']} [{row['concept']}] {row['period']}: {row['value_printed']} "
                f"= {row['value']} {row['currency']} verified={row['verified']} "
                f"box: x0={box['x0']:.1f} top={box['top']:.1f} x1={box['x1']:.1f} bottom={box['bottom']:.1f}"
            )
        rendered = await session.call_tool("render_page", {**CITATION, "dpi": 110})
        image = next((block for block in rendered.content if block.type == "image"), None)
        if image is None:
            print("  render_page failed:", rendered.content[0].text)  # type: ignore[union-attr]
            return 1
        EVIDENCE_PNG.parent.mkdir(parents=True, exist_ok=True)
        EVIDENCE_PNG.write_bytes(base64.b64decode(image.data))  # type: ignore[union-attr]
        print(f"render_page → {EVIDENCE_PNG} ({EVIDENCE_PNG.stat().st_size:,} bytes)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--index", type=Path, default=Path("data/index"))
    args = parser.parse_args()
    return asyncio.run(run(args.index.resolve()))


if __name__ == "__main__":
    raise SystemExit(main())
