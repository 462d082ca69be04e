"""Benchmark on a folder of PDFs and on synthetic indexes made from it: build throughput, server start, search
latency, memory, and the HTTP transport under load.

    python bench/bench.py CORPUS_DIR [--index INDEX | --keep-index DIR] [--sizes 1000,20000,200000] [--json out.json]

Builds a fresh index of the corpus (or reuses --index), then drives `filings-mcp` through the official MCP client
over stdio: on that index, and on synthetic indexes of each --sizes chunk count made from it (bench/synthetic.py:
real texts with varied figures, real vectors for one copy and noisy copies for the rest — labelled). Then loads the
HTTP transport from this process (bench/http_load.py) on the index of the middle size. Prints JSON; figures are
wall-clock on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from http_load import run_load_test
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from session_flood import run_flood_test
from stats import percentile
from synthetic import build_synthetic

from indexer.core.recipe import DEFAULT_RECIPE, PLAIN_RECIPE
from indexer.index.embed import DEFAULT_EMBEDDER
from indexer.index.store import read_manifest
from indexer.ingest.build import add_documents, build_index
from indexer.ingest.parse import PdfParser
from indexer.ingest.settings import BuildSettings, default_cache_dir
from indexer.ingest.sources import folder_sources
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest

# Analyst-style queries, each asked once per run (no query repeats, so no answer comes from a warm cache of
# that query): 50 English, 50 Chinese.
QUERIES = [
    "total revenue", "net income attributable to shareholders", "capital expenditures", "gross margin",
    "cash flow from operating activities", "risk factors competition", "share repurchase program",
    "dividends declared per share", "segment operating income", "long-term debt maturities",
    "diluted earnings per share", "operating lease liabilities", "goodwill impairment", "effective tax rate",
    "research and development expense", "inventory write-down", "free cash flow", "accounts receivable allowance",
    "stock-based compensation expense", "foreign currency exchange risk", "restructuring charges",
    "net interest income", "allowance for credit losses", "comparable sales growth", "backlog at year end",
    "number of employees", "revenue by geographic region", "cost of sales", "selling general and administrative",
    "depreciation and amortization", "total assets", "shareholders equity", "current liabilities",
    "cash and cash equivalents", "acquisitions during the year", "pension obligations", "litigation contingencies",
    "guidance for next quarter", "adjusted EBITDA", "operating margin 2022", "revenue growth 2023",
    "net loss per share", "deferred revenue", "interest expense", "capital return to shareholders",
    "subscription revenue", "commercial airplanes deliveries", "casino revenues Las Vegas", "credit card loans",
    "beverage volume growth",
    "营业收入", "归属于上市公司股东的净利润", "毛利率同比变化", "经营活动产生的现金流量净额", "研发投入",
    "扣除非经常性损益后的净利润", "基本每股收益", "加权平均净资产收益率", "总资产", "归属于上市公司股东的净资产",
    "应收账款", "存货", "固定资产", "在建工程", "短期借款", "长期借款", "营业成本", "销售费用", "管理费用",
    "财务费用", "研发费用", "所得税费用", "非经常性损益项目", "政府补助", "现金分红", "利润分配预案",
    "主营业务分行业情况", "前五名客户销售额", "前五名供应商采购额", "在手订单", "产能利用率", "募集资金使用情况",
    "会计政策变更", "商誉", "资产减值损失", "信用减值损失", "投资收益", "公允价值变动收益", "员工人数",
    "控股股东", "关联交易", "对外担保", "审计意见", "目标价", "投资评级", "盈利预测", "市盈率",
    "金刚线 产能", "光伏硅片切割", "风险提示",
]  # fmt: skip
FIRST_QUERY = "operating income"  # the first search after start (not one of the timed queries)


def _children_peak_rss_mb() -> float:
    """Peak resident memory (VmHWM) of this process's live children, i.e. the server, in MiB."""
    peak = 0.0
    me = str(os.getpid())
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == me and "VmHWM" in fields:
            peak = max(peak, int(fields["VmHWM"].split()[0]) / 1024)
    return peak


def bench_inprocess(index_dir: Path, cache: Path, queries: int) -> dict[str, float]:
    """Search latency without the protocol: the full recipe against plain hybrid (no expansion/routing/focus)."""
    kb = KnowledgeBase.open(index_dir, cache)
    out: dict[str, float] = {}
    for name, recipe in (("recipe", DEFAULT_RECIPE), ("plain", PLAIN_RECIPE)):
        kb.search(SearchRequest(query=FIRST_QUERY), recipe)
        latencies = []
        for n in range(queries):
            t0 = time.perf_counter()
            kb.search(SearchRequest(query=QUERIES[n % len(QUERIES)], top_k=5), recipe)
            latencies.append((time.perf_counter() - t0) * 1000)
        out[f"{name}_p50_ms"] = statistics.median(latencies)
        out[f"{name}_p95_ms"] = percentile(latencies, 0.95)
    return out


def bench_embedding(index: Path) -> dict[str, object]:
    """Chunks/s of the embedder on one thread and on the default (all cores), each in a fresh process."""
    script = Path(__file__).with_name("embed_rate.py")
    out: dict[str, object] = {}
    for name, threads in (("one_thread", "1"), ("all_cores", None)):
        env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"} | (
            {"OMP_NUM_THREADS": threads} if threads else {}
        )
        run = subprocess.run(
            [sys.executable, str(script), "--index", str(index)], env=env, capture_output=True, text=True, check=True
        )
        out[name] = json.loads(run.stdout.strip().splitlines()[-1])
    return out


def bench_build_without_vectors(corpus: Path, cache: Path) -> dict[str, float]:
    """A BM25-only build from scratch: parse + tables + chunk (two parse workers beside the main process)."""
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        settings = BuildSettings(docs_dir=corpus, index_dir=index, embedder="none", progress=False, cache_dir=cache)
        report = build_index(settings)
    return {
        "pages": report.pages,
        "parse_and_chunk_s": report.seconds["parse"],
        "parse_and_chunk_pages_per_s": report.pages / report.seconds["parse"],
        "total_s": report.seconds["total"],
    }


def bench_build_from_scratch(corpus: Path, index: Path, embedder: str, cache: Path) -> dict[str, object]:
    """A build with an empty vector cache: when the corpus is searchable by its words, and when semantic."""
    report = build_index(BuildSettings(docs_dir=corpus, index_dir=index, embedder=embedder, progress=False,
                                       cache_dir=cache))  # fmt: skip
    total, searchable = report.seconds["total"], report.seconds["searchable"]
    embed = report.seconds.get("embed", 0.0)
    manifest = read_manifest(index)
    return {
        "passage_text": manifest.embedder.passage_text if manifest.embedder else None,
        "pages": report.pages,
        "chunks": report.chunks,
        "embedded_chunks": report.embedded,
        "computed_vectors": report.computed_vectors,
        "seconds": report.seconds,
        "searchable_s": searchable,
        "searchable_pages_per_s": report.pages / searchable,
        "end_to_end_pages_per_s": report.pages / total,
        "chunks_embedded_per_s": (report.computed_vectors / embed) if embed else None,
        "build_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "index_mb": sum(f.stat().st_size for f in index.rglob("*") if f.is_file()) / 2**20,
    }


# The filing `add` is timed with (the 190-page 10-K), else the corpus's largest file.
ADDED = "BOEING_2022_10K.pdf"


def bench_add(corpus: Path, pdfs: list[Path], tmp: Path, embedder: str) -> dict[str, object]:
    """A filing added to an index of the others, with nothing of it in the vector cache: seconds from the start
    of `add` until it is searchable by its words, and until it is embedded."""
    named = [pdf for pdf in pdfs if pdf.name == ADDED]
    largest = named[0] if named else max(pdfs, key=lambda pdf: pdf.stat().st_size)
    others = tmp / "add-corpus"
    for pdf in pdfs:
        if pdf != largest:
            target = others / pdf.relative_to(corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(pdf.resolve())
    index, cache = tmp / "add-index", tmp / "empty-cache"  # the others' vectors are cached by the build above
    build_index(BuildSettings(docs_dir=others, index_dir=index, embedder=embedder, progress=False, cache_dir=cache,
                              follow_links=True))  # fmt: skip
    fresh = tmp / "add-cache"
    report = add_documents(BuildSettings(index_dir=index, progress=False, cache_dir=fresh), [largest])
    return {
        "document": largest.name,
        "pages": next(m.pages for m in read_manifest(index).documents if m.document.endswith(largest.name)),
        "computed_vectors": report.computed_vectors,
        "searchable_s": report.seconds["searchable"],
        "semantic_s": report.seconds["total"],
    }


def bench_parse(pdfs: list[Path]) -> dict[str, float]:
    parser = PdfParser()
    started = time.perf_counter()
    pages = sum(len(parser.parse(pdf)) for pdf in pdfs)
    seconds = time.perf_counter() - started
    return {"pages": pages, "seconds": seconds, "pages_per_s": pages / seconds}


async def bench_server(index: Path, cache: Path, queries: int) -> dict[str, float]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_server", "--index", str(index), "--cache-dir", str(cache)]
    )
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        to_list = time.perf_counter() - started
        first = await session.call_tool("search_reports", {"query": FIRST_QUERY})
        to_first = time.perf_counter() - started
        if first.is_error:
            raise RuntimeError(first.content[0].text)  # type: ignore[union-attr]
        latencies = []
        for n in range(queries):
            t0 = time.perf_counter()
            await session.call_tool("search_reports", {"query": QUERIES[n % len(QUERIES)], "top_k": 5})
            latencies.append((time.perf_counter() - t0) * 1000)
        server_rss = _children_peak_rss_mb()
    return {
        "start_to_tools_list_s": to_list,
        "start_to_first_search_s": to_first,
        "search_p50_ms": statistics.median(latencies),
        "search_p95_ms": percentile(latencies, 0.95),
        "search_p99_ms": percentile(latencies, 0.99),
        "search_max_ms": max(latencies),
        "server_peak_rss_mb": server_rss,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    parser.add_argument("--index", type=Path, default=None, help="reuse this index instead of building one")
    parser.add_argument("--keep-index", type=Path, default=None, help="build the index here and keep it")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--sizes", default="1000,20000,200000", help="synthetic index sizes, in chunks")
    parser.add_argument("--http-clients", type=int, default=8)
    parser.add_argument("--http-requests", type=int, default=400)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    pdfs = [s.path for s in folder_sources(args.corpus).sources if s.path.suffix.lower() == ".pdf"]
    cache = default_cache_dir()
    results: dict[str, object] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "corpus": str(args.corpus),
        "files": len(pdfs),
        "embedder": args.embedder,
    }
    results["parse"] = bench_parse(pdfs)
    results["lexical_build"] = bench_build_without_vectors(args.corpus, cache)
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index
        if index is None:
            index = args.keep_index or Path(tmp) / "index"
            results["build"] = bench_build_from_scratch(args.corpus, index, args.embedder, Path(tmp) / "empty-cache")
            results["add"] = bench_add(args.corpus, pdfs, Path(tmp), args.embedder)
        if (index / "dense.faiss").exists():
            results["embedding"] = bench_embedding(index)
        results["server"] = asyncio.run(bench_server(index, cache, args.queries))
        results["in_process"] = bench_inprocess(index, cache, args.queries)
        sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
        scale: dict[str, object] = {}
        for size in sizes:
            synthetic = Path(tmp) / f"synthetic-{size}"
            scale[str(size)] = build_synthetic(index, size, synthetic, cache) | asyncio.run(
                bench_server(synthetic, cache, args.queries)
            )
        results["scale"] = scale
        loaded = Path(tmp) / f"synthetic-{sizes[len(sizes) // 2]}" if sizes else index
        results["http"] = {"index_chunks": sizes[len(sizes) // 2] if sizes else None} | run_load_test(
            loaded, args.http_clients, args.http_requests, seconds=180
        )
        results["session_flood"] = run_flood_test(index, count=10_000)

    print(json.dumps(results, indent=2, ensure_ascii=False))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
