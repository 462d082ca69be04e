"""The scale issue's measurements (docs/scale.md): Milvus against local files on the dev set, and a build on Ray
actors against one process.

    python bench/scale.py DEV_SET --out bench-out/scale

1. The dev set's PDFs indexed twice with ``--embedder none`` (local files; a milvus-lite folder), each build timed,
   then ``bench/milvus_parity.py`` on every dev question (BM25 overlap, dev eval, search time).
2. The committed samples built from an empty vector cache in one process and with ``--ray`` (2 local actors),
   timed.
3. ``bench/milvus_latency.py`` on synthetic indexes of 20k and 200k chunks made from those samples: search through
   the MCP client on local files and on a milvus-lite server, and that server's memory.
Writes ``scale.json`` in OUT and prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _build(docs: Path, index: Path, cache: Path, *extra: str) -> dict[str, object]:
    command = [sys.executable, "-m", "indexer", "build", str(docs), "--index", str(index), "--no-progress", "--json"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, *extra],
        cwd=ROOT,
        env={**os.environ, "FILINGS_CACHE_DIR": str(cache)},
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    return {"wall_s": round(time.perf_counter() - started, 1), "seconds": report["seconds"], "chunks": report["chunks"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dev_set", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    out = args.out.resolve()
    docs = out / "dev-docs"
    docs.mkdir(parents=True, exist_ok=True)
    for pdf in sorted(args.dev_set.glob("*/pdfs/*.pdf")):
        if not (docs / pdf.name).exists():
            shutil.copy(pdf, docs / pdf.name)
    result: dict[str, object] = {}
    for name, extra in (("local", ()), ("milvus", ("--backend", "milvus"))):
        result[f"dev_build_{name}"] = _build(docs, out / f"dev-{name}", out / "cache", "--embedder", "none", *extra)
    questions = sorted(str(p) for p in args.dev_set.glob("*/questions.jsonl"))
    parity = out / "parity.json"
    subprocess.run(
        [sys.executable, "bench/milvus_parity.py", *questions, "--local", str(out / "dev-local"), "--milvus",
         str(out / "dev-milvus"), "--json", str(parity)],
        cwd=ROOT, env={**os.environ, "FILINGS_CACHE_DIR": str(out / "cache")}, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    result["parity"] = json.loads(parity.read_text(encoding="utf-8"))
    for name, extra in (("one_process", ()), ("ray", ("--ray",))):
        cache = out / f"cache-{name}"
        shutil.rmtree(cache, ignore_errors=True)  # every vector computed
        result[f"samples_{name}"] = _build(ROOT / "data" / "samples", out / f"samples-{name}", cache, *extra)
    for chunks in (20_000, 200_000):  # search through MCP, local files against a milvus-lite server
        done = subprocess.run(
            [sys.executable, "bench/milvus_latency.py", "--source", str(out / "samples-one_process"), "--chunks",
             str(chunks), "--out", str(out / f"latency-{chunks}"), "--queries", "30"],
            cwd=ROOT, env={**os.environ, "FILINGS_CACHE_DIR": str(out / "cache")}, check=True, capture_output=True,
            text=True,
        )  # fmt: skip
        result[f"latency_{chunks}"] = json.loads(done.stdout)
    text = json.dumps(result, indent=1)
    (out / "scale.json").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
