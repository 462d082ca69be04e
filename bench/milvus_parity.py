"""The Milvus backend against local files on the same documents: BM25 top-10 overlap with bm25s for every question,
the dev eval on both, and search latency (in process) on both.

    python bench/milvus_parity.py QUESTIONS.jsonl … --local LOCAL_INDEX --milvus MILVUS_INDEX [--json OUT]

Both indexes must hold the same documents (build one with ``--backend milvus``). Prints one JSON object: the mean
top-10 overlap of the passage and table-row BM25 lists (unscoped and scoped to the question's document), hit@5 and
MRR of each index in shared and filtered mode per language, and the median search time of each.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from stats import emit

from indexer.evaluate import Evaluator, load_questions
from indexer.index.reader import allowed_rows, load_index
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest

GROUPS = ("set=en", "set=zh")


def _overlap(first: np.ndarray, second: np.ndarray) -> float | None:
    return len(set(first.tolist()) & set(second.tolist())) / len(first) if len(first) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("questions", nargs="+", type=Path)
    parser.add_argument("--local", type=Path, required=True)
    parser.add_argument("--milvus", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    cache = default_cache_dir()
    local, milvus = load_index(args.local, cache), load_index(args.milvus, cache)  # the engines compared list by list
    if set(local.documents) != set(milvus.documents):
        raise SystemExit("the two indexes hold different documents")
    questions = [q for path in args.questions for q in load_questions(path)]
    overlaps: dict[str, list[float]] = {"passages": [], "table_rows": [], "passages_scoped": []}
    for question in questions:
        tokens = local.tokenizer.tokenize(question.question)
        scoped = allowed_rows(local, [question.document]) if question.document in local.documents else None
        for name, allowed in (("passages", None), ("passages_scoped", scoped)):
            if name == "passages_scoped" and allowed is None:
                continue
            value = _overlap(local.storage.passages(tokens, 10, allowed), milvus.storage.passages(tokens, 10, allowed))
            if value is not None:
                overlaps[name].append(value)
        ours, theirs = local.storage.table_rows(tokens, 10, None), milvus.storage.table_rows(tokens, 10, None)
        if ours is not None and theirs is not None and (value := _overlap(ours, theirs)) is not None:
            overlaps["table_rows"].append(value)
    report: dict[str, object] = {
        "questions": len(questions),
        "bm25_top10_overlap": {name: round(float(np.mean(v)), 4) for name, v in overlaps.items() if v},
    }
    for label, index in (("local", local), ("milvus", milvus)):
        kb = KnowledgeBase(index, cache)
        evaluation = Evaluator(kb, (1, 5, 10)).evaluate(questions, ("hybrid",), ("shared", "filtered"))
        rows = {(r["mode"], r["group"]): r for r in evaluation["results"]}  # type: ignore[union-attr, index]
        report[label] = {
            f"{mode} {group}": {"hit@5": round(row["hit@5"], 3), "mrr": round(row["mrr"], 3)}
            for (mode, group), row in sorted(rows.items())
            if group in GROUPS
        }
        times = []
        for question in questions:
            started = time.perf_counter()
            kb.search(SearchRequest(query=question.question, top_k=5))
            times.append((time.perf_counter() - started) * 1000)
        report[label]["search_p50_ms"] = round(statistics.median(times), 1)  # type: ignore[index]
    emit(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
