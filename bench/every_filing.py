"""Every filing at hand in one index (issue 58 item 5): the samples, the dev sets and the wide corpus, words only,
measured as an agent meets it, and projected to 1,000 and 10,000 filings.

    python bench/every_filing.py --wide WIDE_CORPUS --index OUT [--reuse] [--queries 200]
                                 [--json out.json] [--markdown | --splice BENCHMARKS.md]

1. A folder of links to every filing (``data/samples``, ``../shared/eval/dev/*/pdfs``, the wide corpus's files) is
   built into OUT with ``--embedder none`` and an empty cache (nothing parsed before is reused), timed: the
   words-only build time. ``--reuse`` measures OUT as it is.
2. Through the MCP client, in process: ``list_documents`` with no filter (both renderings), its second page (the
   cursor), one company's filings, tools/list (descriptions and input schemas) and the instructions' size.
3. Through the MCP client over stdio (a server process of its own): start → first search, search p50 / p95 / p99
   over generic queries, and the server's peak RSS. The samples' own index is served the same way, so the
   projection has two points.
4. The projection to 1,000 and 10,000 filings: pages, passages and build time grow with the filings (the average
   filing here); the server's memory and a search's time are drawn through the two measured points (the samples and
   everything), linearly in passages — BM25 scores every passage holding a query's words, so its time grows with the
   passages at most linearly. A projection, labelled as one, not a measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from answer_sizes import as_forwarded
from fastmcp import Client
from scale_report import spliced

from bench import bench_server
from indexer.index.store import read_manifest
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings, default_cache_dir
from mcp_server.loader import IndexLoader
from mcp_server.server import build_server
from mcp_server.settings import ServerSettings

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
DEV = ROOT.parent / "shared" / "eval" / "dev"
HEADING = "## Every filing at hand, words only, and a thousand projected (issue 58)"
TARGETS = {"listing": 3_000, "tools_list": 8_000, "p50_ms": 60.0, "p95_ms": 150.0, "first_s": 3.0}
FILINGS = (1_000, 10_000)
SUFFIXES = {".pdf", ".htm", ".html"}


def gather(wide: Path, folder: Path) -> int:
    """Links to every filing, one folder per source (file names stay unique); how many."""
    sources = {"samples": [SAMPLES], "dev": sorted(DEV.glob("*/pdfs")), "wide": [wide]}
    count = 0
    for name, roots in sources.items():
        for root in roots:
            target = folder / name / (root.parent.name if name == "dev" else "")
            target.mkdir(parents=True, exist_ok=True)
            for path in sorted(root.iterdir()):
                if path.suffix.lower() in SUFFIXES and path.is_file():
                    (target / path.name).symlink_to(path.resolve())
                    count += 1
    return count


def build(docs: Path, index: Path, cache: Path) -> dict[str, Any]:
    started = time.perf_counter()
    report = build_index(BuildSettings(docs_dir=docs, index_dir=index, embedder="none", progress=False,
                                       cache_dir=cache, follow_links=True))  # fmt: skip
    return {
        "build_s": round(time.perf_counter() - started, 1),
        "failures": [f"{f.document}: {f.reason}" for f in report.failures],
    }


def _size(result: Any) -> dict[str, int]:
    return {"text": len(result.content[0].text), "structured": len(as_forwarded(result.structured_content))}


async def answer_sizes(index: Path, cache: Path) -> dict[str, Any]:
    """What the model reads of the catalogue at this size: the listing (first page, second page, one company),
    tools/list and the instructions."""
    server = build_server(ServerSettings(index_dir=index, cache_dir=cache), IndexLoader(index, cache, 600))
    async with Client(server) as client:
        tools = await client.list_tools()
        first = await client.call_tool("list_documents", {})
        full = await client.call_tool("list_documents", {"detail": "full"})
        cursor = (first.structured_content or {}).get("next_cursor")
        second = await client.call_tool("list_documents", {"cursor": cursor}) if cursor else None
        companies = (first.structured_content or {}).get("companies") or []
        busiest = max(companies, key=lambda line: len(line["filings"]))["company"] if companies else None
        one = await client.call_tool("list_documents", {"company": busiest}) if busiest else None
        return {
            "instructions": len(client.instructions or ""),
            "tools_list": sum(len(t.description or "") + len(as_forwarded(t.input_schema)) for t in tools),
            "listing": _size(first),
            "listing_full": _size(full),
            "listing_page_2": _size(second) if second else None,
            "listing_one_company": (_size(one) | {"company": busiest}) if one else None,
            "first_page": (first.content[0].text.splitlines() or [""])[0],
        }


def _served(index: Path, cache: Path, queries: int) -> dict[str, Any]:
    manifest = read_manifest(index)
    return {
        "filings": len(manifest.documents),
        "pages": sum(m.pages for m in manifest.documents),
        "chunks": manifest.chunk_count,
        "index_mb": round(sum(f.stat().st_size for f in index.rglob("*") if f.is_file()) / 2**20, 1),
    } | asyncio.run(bench_server(index, cache, queries))


def projection(small: dict[str, Any], every: dict[str, Any], build_s: float | None) -> list[dict[str, Any]]:
    """Each measure at 1,000 and 10,000 filings of the average filing here (see the module's note)."""
    per_filing = {key: every[key] / every["filings"] for key in ("pages", "chunks", "index_mb")}
    span = every["chunks"] - small["chunks"]

    def drawn(key: str, chunks: float) -> float:
        return small[key] + (every[key] - small[key]) * (chunks - small["chunks"]) / span

    rows = []
    for filings in FILINGS:
        chunks = per_filing["chunks"] * filings
        rows.append({
            "filings": filings,
            "pages": round(per_filing["pages"] * filings),
            "chunks": round(chunks),
            "index_mb": round(per_filing["index_mb"] * filings),
            "build_min": round(build_s / every["pages"] * per_filing["pages"] * filings / 60) if build_s else None,
            "server_rss_mb": round(drawn("server_peak_rss_mb", chunks)),
            "search_p50_ms": round(drawn("search_p50_ms", chunks), 1),
            "search_p95_ms": round(drawn("search_p95_ms", chunks), 1),
        })  # fmt: skip
    return rows


def _met(value: float, target: float) -> str:
    return f"{value:,.1f}" + (" (met)" if value <= target else " (**not met**)")


def markdown(result: dict[str, Any]) -> list[str]:
    every, sizes, built = result["every"], result["sizes"], result.get("build") or {}
    listing, second, one = sizes["listing"], sizes["listing_page_2"], sizes["listing_one_company"]
    build_line = (
        f"words-only build from an empty cache: {built['build_s'] / 60:.1f} min "
        f"({every['pages'] / built['build_s']:.0f} pages/s, 2 cores), {len(built['failures'])} file(s) refused "
        "with their reason"
        if built
        else "build: not timed in this run (--reuse)"
    )
    lines = [
        "",
        HEADING,
        "",
        f"`bench/every_filing.py`: every filing at hand in one index — the samples, the three dev sets and the wide "
        f"corpus: **{every['filings']} filings, {every['pages']:,} pages, {every['chunks']:,} passages** "
        f"({every['index_mb']:,.0f} MB on disk); {build_line}.",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| list_documents, no filter: text / structuredContent | {listing['text']:,} / {listing['structured']:,} | "
        f"≤ 3,000: {'met' if max(listing.values()) <= TARGETS['listing'] else '**not met**'} |",
        f"| its second page (the cursor) | {second['text']:,} / {second['structured']:,} | ≤ 3,000 |"
        if second
        else "| its second page | (one page holds every company) | |",
        f"| one company ({one['company']}) | {one['text']:,} / {one['structured']:,} | ≤ 3,000 |"
        if one
        else "| one company | (a short listing names each filing) | |",
        f"| list_documents, detail=full | {sizes['listing_full']['text']:,} / {sizes['listing_full']['structured']:,}"
        " | (asked for) |",
        f"| tools/list: descriptions + input schemas | {sizes['tools_list']:,} | "
        f"≤ 8,000: {'met' if sizes['tools_list'] <= TARGETS['tools_list'] else '**not met**'} |",
        f"| the server's instructions | {sizes['instructions']:,} | one sentence of catalogue |",
        f"| start → first search (stdio, a process of its own) | {_met(every['start_to_first_search_s'], 3.0)} s "
        "| ≤ 3 s |",
        f"| search p50 / p95 / p99 ({result['queries']} generic queries) | {_met(every['search_p50_ms'], 60.0)} / "
        f"{_met(every['search_p95_ms'], 150.0)} / {every['search_p99_ms']:.1f} ms | p50 ≤ 60, p95 ≤ 150 |",
        f"| server peak RSS | {every['server_peak_rss_mb']:,.0f} MB | reported |",
        "",
        f"The listing's first line: `{sizes['first_page']}`",
        "",
        f"Projected (not measured) from the average filing here and two served indexes — the samples "
        f"({result['small']['chunks']:,} passages: {result['small']['server_peak_rss_mb']:,.0f} MB, p50 "
        f"{result['small']['search_p50_ms']:.1f} ms) and everything — drawn linearly in passages:",
        "",
        "| filings | pages | passages | index on disk | words-only build (2 cores) | server RSS | search p50 / p95 |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in result["projection"]:
        build_min = f"{row['build_min']:,} min" if row["build_min"] is not None else "—"
        lines.append(
            f"| {row['filings']:,} | {row['pages']:,} | {row['chunks']:,} | {row['index_mb'] / 1024:,.1f} GB | "
            f"{build_min} | {row['server_rss_mb'] / 1024:,.1f} GB | {row['search_p50_ms']:,.0f} / "
            f"{row['search_p95_ms']:,.0f} ms |"
        )
    lines += [
        "",
        "What moves past one machine: the listing, tools/list and the instructions do not grow with the filings "
        "(grouped by company, one page at a time; the catalogue is one sentence). What grows is the passages: the "
        "BM25 matrices and pages held by one server process, and a search that scores every passage holding a "
        "query's words. Past the point where one process's memory or p95 no longer fits, `--backend milvus` keeps "
        "the passages (BM25 as a sparse field, vectors beside it) in a Milvus server that shards them across "
        "machines, the MCP server only reading pages and answering; `--ray` spreads the parsing of a build over a "
        "cluster (docs/scale.md).",
    ]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wide", type=Path, required=True, help="the folder holding the wide corpus's files")
    parser.add_argument("--index", type=Path, required=True, help="where the index of every filing is built")
    parser.add_argument("--reuse", action="store_true", help="measure the index as it is, without building")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", action="store_true", help="print BENCHMARKS.md's section instead of JSON")
    parser.add_argument("--splice", type=Path, help="replace the section in this file (BENCHMARKS.md)")
    args = parser.parse_args()
    cache = default_cache_dir()
    result: dict[str, Any] = {"queries": args.queries}
    with tempfile.TemporaryDirectory() as tmp:
        if not args.reuse:
            docs = Path(tmp) / "docs"
            result["linked"] = gather(args.wide, docs)
            result["build"] = build(docs, args.index, Path(tmp) / "empty-cache")
        small = Path(tmp) / "samples-index"
        build_index(BuildSettings(docs_dir=SAMPLES, index_dir=small, embedder="none", progress=False, cache_dir=cache))
        result["small"] = _served(small, cache, args.queries)
    result["every"] = _served(args.index, cache, args.queries)
    result["sizes"] = asyncio.run(answer_sizes(args.index, cache))
    result["projection"] = projection(result["small"], result["every"], (result.get("build") or {}).get("build_s"))
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    section = markdown(result)
    if args.splice:
        args.splice.write_text(spliced(args.splice.read_text(encoding="utf-8"), section, HEADING), encoding="utf-8")
    print("\n".join(section) if args.markdown else json.dumps(result, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
