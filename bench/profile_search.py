"""Where a search's time goes: pyinstrument over the search tool (no protocol), on an index of your choice.

    python bench/profile_search.py --index INDEX [--calls 150] [--html profile.html]

Prints the call tree (frames under 2% hidden). `make bench` writes it to bench-out/profile.txt.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pyinstrument import Profiler

from bench import QUERIES
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--calls", type=int, default=150)
    parser.add_argument("--html", type=Path, default=None)
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.index, default_cache_dir())
    kb.search_reports(SearchRequest(query=QUERIES[0]))  # first call: lazy imports and caches are not the hot path
    profiler = Profiler(interval=0.0005)
    profiler.start()
    for n in range(args.calls):
        kb.search_reports(SearchRequest(query=QUERIES[n % len(QUERIES)], top_k=5))
    profiler.stop()
    print(
        profiler.output_text(
            unicode=True, color=False, time="percent_of_total", processor_options={"filter_threshold": 0.02}
        )
    )
    if args.html:
        args.html.write_text(profiler.output_html(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
