"""Exact Chinese phrases (issue 30, item 4): does plain search find the page a phrase is printed on, whatever the
segmenter makes of the phrase and of the page? Phrases are taken verbatim from the pages of the index's Chinese
documents (CJK runs of 4 to 8 characters, drawn with a fixed seed), each searched within its own document.

    python bench/phrase_eval.py --index INDEX [--phrases 200] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from indexer.core.text import CJK_RANGE
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest

_RUN = re.compile(f"[{CJK_RANGE}]{{4,}}")


def _phrases(kb: KnowledgeBase, count: int, seed: int) -> list[tuple[str, int, str]]:
    """(document, page, phrase) drawn from the Chinese documents' body lines, at most one per line."""
    pool = []
    for meta in kb.documents():
        name = meta.document
        if meta.language != "zh":
            continue
        for number in range(1, meta.pages + 1):
            for line in kb.page(name, number).lines:
                for run in _RUN.findall(line.text):
                    pool.append((name, number, run))
    rng = random.Random(seed)
    picked = rng.sample(pool, min(count, len(pool)))
    out = []
    for name, number, run in picked:
        size = rng.randint(4, min(8, len(run)))
        start = rng.randint(0, len(run) - size)
        out.append((name, number, run[start : start + size]))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--phrases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.index, default_cache_dir(), with_embedder=False)
    found = 0
    missed = []
    phrases = _phrases(kb, args.phrases, args.seed)
    for name, number, phrase in phrases:
        hits = kb.search(SearchRequest(query=phrase, top_k=5, documents=name)).hits
        pages = {hit.page for hit in hits}
        # the phrase may be printed on other pages too: any page that prints it counts
        printed = {number} | {hit.page for hit in hits if phrase in "".join(hit.content.split())}
        if pages & printed:
            found += 1
        else:
            missed.append(phrase)
    print(json.dumps({"phrases": len(phrases), "found_in_top5": found, "missed_examples": missed[:15]},
                     ensure_ascii=False))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
