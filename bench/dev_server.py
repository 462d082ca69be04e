"""Search cost at the size of the whole dev set (issue 30 item 5): server start → first search, and search latency
through the MCP client, on the real dev index (every filing of ../shared/eval/dev, its real chunks, BM25 and pages).

    python bench/dev_server.py --index DEV_LEXICAL --embedded DEV_INDEX [--json out.json]

Two indexes of the same filings: words only (``filings-index build … --embedder none``) and embedded for real
(``bench/dev_build.py``: every passage's vector from the model, HNSW above 50,000 vectors). The server embeds each
query with the index's own engine.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from stats import emit

from bench import bench_server
from indexer.index.store import read_manifest
from indexer.ingest.settings import default_cache_dir


def markdown(results: dict[str, dict[str, Any]]) -> list[str]:
    """The BENCHMARKS.md section (issue 30's targets: p50 ≤ 60 ms, start → first search ≤ 3 s)."""
    if not results:
        return []
    lines = [
        "",
        "## Search at the size of the dev set",
        "",
        "`bench/dev_server.py`: the index of every dev filing (`../shared/eval/dev`), words only and embedded for "
        "real (`bench/dev_build.py`: every passage's own vector), through the MCP client over stdio.",
        "",
        "| index | chunks | vectors | start → first search (≤ 3 s) | search p50 (≤ 60 ms) / p95 / p99 | peak RSS |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in results.items():
        first, p50 = row["start_to_first_search_s"], row["search_p50_ms"]
        lines.append(
            f"| {name.replace('_', ' ')} | {row['chunks']:,.0f} | {row.get('vectors', 0):,.0f} | {first:.2f} s"
            f"{' (met)' if first <= 3 else ' (**not met**)'} | {p50:.1f}{' (met)' if p50 <= 60 else ' (**not met**)'}"
            f" / {row['search_p95_ms']:.1f} / {row['search_p99_ms']:.1f} ms | {row['server_peak_rss_mb']:,.0f} MB |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="the words-only index of the dev set")
    parser.add_argument("--embedded", type=Path, required=True, help="the same filings, embedded (dev_build.py)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    cache = default_cache_dir()
    results: dict[str, object] = {
        "words_only": {"chunks": read_manifest(args.index).chunk_count}
        | asyncio.run(bench_server(args.index, cache, args.queries)),
    }
    embedded = read_manifest(args.embedded)
    results["embedded"] = {"chunks": embedded.chunk_count, "vectors": embedded.embedded_chunks} | asyncio.run(
        bench_server(args.embedded, cache, args.queries)
    )
    emit(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
