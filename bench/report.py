"""Write BENCHMARKS.md from the JSON that `make bench` collects (bench.py, dense_recall.py).

python bench/report.py BENCH_OUT_DIR > BENCHMARKS.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _fmt(value: Any, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "not measured"
    if isinstance(value, float):
        return f"{value:,.{digits}f}{unit}"
    return f"{value:,}{unit}"


def main() -> int:
    out = Path(sys.argv[1])
    bench, dense = _load(out / "bench.json"), _load(out / "dense.json")
    parse, build = bench.get("parse", {}), bench.get("build", {})
    server, local = bench.get("server", {}), bench.get("in_process", {})
    chunks = build.get("chunks")
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`bench/bench.py`, `bench/dense_recall.py`, `bench/report.py`); every figure is "
        "wall-clock on the machine below. Run it again to reproduce: `make bench CORPUS=DIR [BENCH_INDEX=DIR]`.",
        "",
        f"- machine: {bench.get('machine', 'unknown')}",
        f"- corpus: `{bench.get('corpus', '?')}` ({bench.get('files', '?')} files), embedder {bench.get('embedder')}",
        ""
        if build
        else "- the index was given (BENCH_INDEX), so this run has no build figures; run without it "
        "to measure the build",
        "",
        "| figure | measured | target (issue 6) |",
        "|---|---|---|",
        f"| parse alone (LiteParse, lines + boxes) | {_fmt(parse.get('pages_per_s'), ' pages/s')} | ≥ 100 pages/s "
        "(parse + chunk) |",
        f"| build end to end | {_fmt(build.get('end_to_end_pages_per_s'), ' pages/s', 2)} | — |",
        f"| chunks embedded | {_fmt(build.get('chunks_embedded_per_s'), ' chunks/s', 2)} | report |",
        f"| chunks in the index | {_fmt(chunks)} | — |",
        f"| index size on disk | {_fmt(build.get('index_mb'), ' MB')} | report |",
        f"| build peak RSS | {_fmt(build.get('build_peak_rss_mb'), ' MB', 0)} | report |",
        f"| server start → `tools/list` | {_fmt(server.get('start_to_tools_list_s'), ' s', 2)} | ≤ 1.5 s |",
        f"| server start → first search answered | {_fmt(server.get('start_to_first_search_s'), ' s', 2)} | ≤ 3 s |",
        f"| search via the MCP client, p50 / p95 | {_fmt(server.get('search_p50_ms'), ' ms')} / "
        f"{_fmt(server.get('search_p95_ms'), ' ms')} | ≤ 30 / 80 ms at 20k chunks |",
        f"| search in-process (recipe), p50 / p95 | {_fmt(local.get('recipe_p50_ms'), ' ms')} / "
        f"{_fmt(local.get('recipe_p95_ms'), ' ms')} | — |",
        f"| server peak RSS | {_fmt(server.get('server_peak_rss_mb'), ' MB', 0)} | ≤ 400 MB at 20k chunks |",
    ]
    if dense:
        lines += [
            "",
            f"## Dense search at {dense['vectors']:,} vectors (synthetic, labelled)",
            "",
            f"Vectors: the index's {dense['real_vectors']:,} real e5 vectors, each repeated with Gaussian noise and "
            "re-normalised; queries: real vectors with more noise. Exact = IndexFlatIP, HNSW = IndexHNSWFlat "
            "(M 32, efSearch 128), which the index switches to above 50,000 vectors.",
            "",
            "| | build | query p50 / p95 | recall@10 vs exact |",
            "|---|---|---|---|",
            f"| exact | {dense['exact_build_s']} s | {dense['exact_ms_p50']} / {dense['exact_ms_p95']} ms | 1 |",
            f"| HNSW | {dense['hnsw_build_s']} s | {dense['hnsw_ms_p50']} / {dense['hnsw_ms_p95']} ms | "
            f"{dense['hnsw_recall_at_10']} (target ≥ 0.95) |",
        ]
    lines += [
        "",
        "## Not measured yet",
        "",
        "- search latency through the MCP client on 20k- and 200k-chunk indexes (a synthetic index of that size with "
        "BM25 as well as vectors is not built yet); the dense part at 200k is above;",
        "- HTTP transport throughput under a load test from a second process;",
        "- profiles of the hot paths.",
        "",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
