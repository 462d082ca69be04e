"""The onnx engine's batching: passages a second by padded-token budget per forward pass and by passages a call.

    python bench/e5_batching.py --index INDEX [--passages 256] [--json out.json]

The same passages (evenly spread over the index's embedded passages) are embedded once per setting, in calls of
32 or 256 passages, with ``BATCH_TOKENS`` set to each budget, after one warm-up call.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from stats import emit

import indexer.index.onnx_embedder as engine
from indexer.index.store import read_chunks
from indexer.ingest.settings import default_cache_dir
from indexer.ingest.vectors import EMBEDDED_KINDS

BUDGETS = (512, 1024, 2048, 4096, 16384)
CALLS = (32, 256)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--passages", type=int, default=256)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    body = [c.text for c in read_chunks(args.index.resolve()) if c.kind in EMBEDDED_KINDS]
    texts = [body[i] for i in np.linspace(0, len(body) - 1, args.passages).astype(int)]
    embedder = engine.OnnxE5Embedder(default_cache_dir())
    embedder.embed_passages(texts[:32])  # warm-up
    results = []
    for call in CALLS:
        for budget in BUDGETS:
            engine.BATCH_TOKENS = budget
            started = time.perf_counter()
            for start in range(0, len(texts), call):
                embedder.embed_passages(texts[start : start + call])
            rate = len(texts) / (time.perf_counter() - started)
            results.append({"passages_per_call": call, "batch_tokens": budget, "passages_per_s": round(rate, 1)})
            print(json.dumps(results[-1]), flush=True)
    if args.json:
        emit(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
