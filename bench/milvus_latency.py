"""Search latency through the MCP client, local files against a milvus-lite server, on the same synthetic index;
and the milvus-lite server's memory (for sizing).

    python bench/milvus_latency.py --source INDEX_WITH_VECTORS --chunks 20000 --out bench-out/milvus [--queries 50]

Makes a synthetic index of CHUNKS chunks from SOURCE (bench/synthetic.py: its documents repeated with their figures
varied, synthetic vectors), a copy of it whose BM25 and vectors are in a milvus-lite server started here on a free
loopback port, then drives `filings-mcp` over stdio on both (bench/bench.py's client) and prints one JSON object:
each side's p50/p95, the server's peak memory, the time to write the collections.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from synthetic import build_synthetic

from bench import bench_server
from indexer.core.tokenize import Tokenizer
from indexer.index.dense import DenseIndex
from indexer.index.milvus_client import connect
from indexer.index.milvus_writer import MilvusWriter
from indexer.index.publish import publish, staging_folder
from indexer.index.store import link_or_copy, read_chunks, read_manifest, write_manifest
from indexer.ingest.backend import write_lexical
from indexer.ingest.settings import BuildSettings, default_cache_dir

NOT_COPIED = ("bm25", "bm25_table_rows", "dense.faiss", "manifest.json")  # dense_rows.npy: the same rows


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def to_milvus(local: Path, target: Path, uri: str, cache: Path) -> float:
    """A copy of the index ``local`` with its BM25 and vectors written to Milvus at ``uri``; seconds taken."""
    started = time.perf_counter()
    source = local.resolve()
    manifest = read_manifest(source)
    chunks = read_chunks(source)
    staging = staging_folder(target)
    for path in source.rglob("*"):
        relative = path.relative_to(source)
        if path.is_file() and relative.parts[0] not in NOT_COPIED:
            link_or_copy(path, staging / relative)
    settings = replace(BuildSettings(index_dir=target, cache_dir=cache), backend="milvus", milvus_uri=uri)
    info = write_lexical(staging, chunks, Tokenizer(cache / "jieba"), settings, manifest.documents)  # type: ignore[arg-type]
    assert info is not None
    dense = DenseIndex.load(source)
    vectors = MilvusWriter(connect(uri), info.prefix).write_vectors(chunks, dense.rows, dense.vectors())
    write_manifest(staging, manifest.model_copy(update={"milvus": info.model_copy(update={"vectors": vectors})}))
    publish(staging, target)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--chunks", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    out, cache = args.out.resolve(), default_cache_dir()
    out.mkdir(parents=True, exist_ok=True)
    local = out / f"local-{args.chunks}"
    made = build_synthetic(args.source, args.chunks, local, cache)
    port = _free_port()
    command = [str(Path(sys.executable).parent / "milvus-lite"), "server", "--data-dir", str(out / f"db-{port}"),
               "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    # started through a shell that exits, so that it is not a child of this process: bench_server reads the peak
    # memory of this process's children as the MCP server's
    started = subprocess.run(
        ["sh", "-c", " ".join(shlex.quote(part) for part in command) + " >/dev/null 2>&1 & echo $!"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    server = int(started.stdout.strip())
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        uri = f"http://127.0.0.1:{port}"
        os.environ["FILINGS_MILVUS_URI"] = uri  # the Milvus this run names (the build, and the server it starts)
        written = to_milvus(local, out / f"milvus-{args.chunks}", uri, cache)
        result = {
            "chunks": made["chunks"],
            "vectors": made["vectors"],
            "milvus_write_s": round(written, 1),
            "local": asyncio.run(bench_server(local, cache, args.queries)),
            "milvus_lite_server": asyncio.run(bench_server(out / f"milvus-{args.chunks}", cache, args.queries)),
            "milvus_lite_server_peak_rss_mb": _peak_rss_mb(server),
        }
    finally:
        os.kill(server, signal.SIGTERM)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
