"""Notes that are right (issue 30): on questions the index can answer, no note that it may not; on questions about
companies it does not hold, a note. Questions: bench/gold/absence.jsonl (written for the dev set: abbreviations,
years a filing prints but is not of, an English question about a Chinese report, a segmentation artefact; and
off-corpus companies).

    python bench/absence_eval.py --index DEV [--questions bench/gold/absence.jsonl] [--more QUESTIONS.jsonl ...]

``--more``: eval question files (every one answerable) whose notes count as false notes too.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--questions", type=Path, default=HERE / "gold" / "absence.jsonl")
    parser.add_argument("--more", type=Path, nargs="*", default=[])
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.index, default_cache_dir(), with_embedder=False)
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    for path in args.more:
        rows += [
            {"id": q["id"], "question": q["question"], "answerable": True}
            for q in map(json.loads, path.read_text(encoding="utf-8").splitlines())
        ]
    false_notes, noted_off, off = [], [], 0
    for row in rows:
        note = kb.search(SearchRequest(query=row["question"], top_k=5)).note
        if row["answerable"] and note:
            false_notes.append((row["id"], note))
        if not row["answerable"]:
            off += 1
            if note:
                noted_off.append(row["id"])
            else:
                print(f"not noted: {row['id']}: {row['question']}")
    answerable = sum(1 for row in rows if row["answerable"])
    for qid, note in false_notes:
        print(f"false note: {qid}: {note[:160]}")
    print(json.dumps({"answerable": answerable, "false_notes": len(false_notes), "off_corpus": off,
                      "off_corpus_noted": len(noted_off)}))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
