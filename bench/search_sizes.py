"""What a top-5 search costs the model on real questions (issue 43): for every question of the given sets, searched
as an agent would (no filter), the compact answer's structuredContent as a client forwards it and its text, and
whether each hit's shown text holds one of the terms that matched it.

    python bench/search_sizes.py --index DEV ../shared/eval/dev/*/questions.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from indexer.evaluate import load_questions
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest
from mcp_server.renderings import answer_parts
from mcp_server.tools.search_reports import search_brief


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("questions", type=Path, nargs="+")
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.index, default_cache_dir(), with_embedder=True)
    structured, texts, shown, matched = [], [], 0, 0
    for question in (q for path in args.questions for q in load_questions(path)):
        result = kb.search_reports(SearchRequest(query=question.question, top_k=5))
        text, content = answer_parts(result, "compact")
        structured.append(len(json.dumps(content, ensure_ascii=False, separators=(",", ":"))))
        texts.append(len(text))
        for hit, brief in zip(result.hits, search_brief(result).hits, strict=True):
            terms = {h.text.casefold() for h in hit.highlights}
            if terms:
                matched += 1
                shown += any(term in brief.text.casefold() for term in terms)  # type: ignore[union-attr]
    print(f"{len(texts)} questions, top 5 each (characters)")
    for name, values in (("structuredContent", structured), ("text", texts)):
        print(f"{name}: median {statistics.median(values):,.0f}, max {max(values):,}")
    print(f"hits whose shown text holds a matched term: {shown} of {matched}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
