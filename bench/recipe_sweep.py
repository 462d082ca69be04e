"""Measure recipe variants on one loaded index: the dev eval (both modes) per variant, one line per group.

    python bench/recipe_sweep.py --index INDEX QUESTIONS.jsonl … --variant '{}' --variant '{"coverage_full": 0.6}'

Each variant is a JSON object of Recipe fields (indexer/search/recipe.py) over the default recipe; ``--options``
switches the retrievers and stages too (e.g. '{"retrievers": ["bm25"]}'). The index is loaded once, so a sweep costs
the searches only. Prints hit@5 and MRR for every question, English and Chinese, each source and kind.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from indexer.evaluate import Evaluator, load_questions
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.search.recipe import DEFAULT_RECIPE, Recipe

GROUPS = ("all", "set=en", "set=zh", "source=financebench", "source=erc-r2")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("questions", nargs="+", type=Path)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--variant", action="append", default=[], help="JSON object of Recipe fields")
    parser.add_argument("--options", default="{}", help="JSON object of Recipe fields, for every variant")
    parser.add_argument("--kinds", action="store_true", help="also print each kind of question")
    parser.add_argument("--json", type=Path, help="write every variant's full report here")
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.index, default_cache_dir())
    questions = [q for path in args.questions for q in load_questions(path)]
    options = json.loads(args.options)
    reports = []
    for text in args.variant or ["{}"]:
        recipe = Recipe.model_validate({**DEFAULT_RECIPE.model_dump(), **options, **json.loads(text)})
        evaluator = Evaluator(kb, (1, 5, 10), recipe)
        report = evaluator.evaluate(questions, ("hybrid",), ("shared", "filtered"))
        reports.append({"variant": text, **report})
        rows = {(r["mode"], r["group"]): r for r in report["results"]}  # type: ignore[union-attr, index]
        groups = sorted({g for _, g in rows}, key=lambda g: (g not in GROUPS, GROUPS.index(g) if g in GROUPS else g))
        print(f"== {text}")
        for group in groups:
            if group not in GROUPS and not (args.kinds and group.startswith("kind=")):
                continue
            s, f = rows.get(("shared", group), {}), rows.get(("filtered", group), {})
            print(
                f"  {group:26} n={s.get('n', 0):3}  shared hit@5 {s.get('hit@5', 0):.3f} mrr {s.get('mrr', 0):.3f}"
                f"  | filtered hit@5 {f.get('hit@5', 0):.3f} mrr {f.get('mrr', 0):.3f}"
            )
    if args.json:
        args.json.write_text(json.dumps(reports, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
