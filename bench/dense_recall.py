"""Exact (IndexFlatIP) against approximate (HNSW) dense search at scale: build time, query latency, recall@10.

    python bench/dense_recall.py --index INDEX_DIR [--n 200000] [--queries 200]

The vectors are synthetic, and labelled so: the index's real e5 vectors, each repeated with small Gaussian noise
(and re-normalised) until there are N — a realistic distribution (real filings' embeddings) at a size the dev
corpus does not reach. Queries are real chunk vectors with more noise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from indexer.index.dense import DenseIndex


def noisy(vectors: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """Each vector plus Gaussian noise of norm about ``noise``, re-normalised."""
    out = vectors + noise * rng.normal(size=vectors.shape).astype(np.float32) / np.sqrt(vectors.shape[1])
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def synthetic(real: np.ndarray, n: int, noise: float, rng: np.random.Generator) -> np.ndarray:
    return noisy(real[rng.integers(0, len(real), size=n)], noise, rng)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True, help="an index with real vectors (e.g. the dev set's)")
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    real = DenseIndex.load(args.index).vectors()
    vectors = synthetic(real, args.n, noise=0.3, rng=rng)
    queries = synthetic(real, args.queries, noise=0.6, rng=rng)
    rows = np.arange(args.n, dtype=np.int64)
    result: dict[str, object] = {"vectors": args.n, "dim": int(real.shape[1]), "real_vectors": len(real)}
    built = {}
    for name, threshold in (("exact", args.n + 1), ("hnsw", 0)):
        started = time.perf_counter()
        built[name] = DenseIndex.build(vectors, rows, real.shape[1], approximate_above=threshold)
        result[f"{name}_build_s"] = round(time.perf_counter() - started, 1)
    answers: dict[str, list[set[int]]] = {}
    for name, index in built.items():
        times, found = [], []
        for query in queries:
            started = time.perf_counter()
            ids, _ = index.top_k(query, 10)
            times.append((time.perf_counter() - started) * 1000)
            found.append(set(ids.tolist()))
        answers[name] = found
        result[f"{name}_ms_p50"] = round(statistics.median(times), 2)
        result[f"{name}_ms_p95"] = round(sorted(times)[int(0.95 * len(times)) - 1], 2)
    recall = [len(a & e) / 10 for a, e in zip(answers["hnsw"], answers["exact"], strict=True)]
    result["hnsw_recall_at_10"] = round(float(np.mean(recall)), 4)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
