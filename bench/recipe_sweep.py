"""Measure recipe variants on one loaded index: the dev eval (both modes) per variant, one line per group.

    python bench/recipe_sweep.py --index INDEX QUESTIONS.jsonl … --variant '{}' --variant '{"coverage_full": 0.6}'
    python bench/recipe_sweep.py --index INDEX QUESTIONS.jsonl … --ablations [--markdown FILE]

Each variant is a JSON object of Recipe fields (indexer/core/recipe.py) over the default recipe; ``--options``
switches the retrievers and stages too (e.g. '{"retrievers": ["bm25"]}'). The index is loaded once, so a sweep costs
the searches only. Prints hit@5 and MRR for every question, English and Chinese, each source and kind.

``--ablations`` runs the recipe with each stage switched off in turn, and plain BM25 over the same chunks (the
floor), and prints hit@1, hit@5 and MRR, shared and filtered, for each question set side by side: a stage that
loses on a set it was not written for shows there.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from indexer.core.models import BODY, BOILERPLATE, CONTENTS
from indexer.core.recipe import DEFAULT_RECIPE, Recipe
from indexer.evaluate import Evaluator, load_questions
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.search.stages import ablations

GROUPS = ("all", "set=en", "set=zh", "set=filings", "set=judgement")
SETS = ("set=en", "set=zh", "set=judgement", "set=filings")
FLOOR = "plain BM25 (the floor)"
# Each stage of the recipe switched the other way (search/stages.py: "− term proximity", "+ CJK bigrams", the stages
# dropped in issue 55 switched on so that they keep being measured), then the weights that are no stage of their own,
# each at the value that takes it out, and k 25 within a filing (dropped in issue 55).
PARAMETERS: dict[str, dict[str, object]] = {
    "− table-row votes (weight 0)": {"table_rows_weight": 0.0},
    "− section boosts (factor 1)": {"section_boost": [1.0]},
    "− boilerplate/contents discounts (share 1)": {"demotion": {BOILERPLATE: 1.0, CONTENTS: 1.0, BODY: 1.0}},
    "+ k 25 within a filing (dropped)": {"rrf_k_within": 25},
}
ABLATIONS: dict[str, dict[str, object]] = {"recipe (all stages)": {}, **ablations(), **PARAMETERS}
METRICS = ("hit@1", "hit@5", "mrr")


def _rows(report: dict[str, object], system: str) -> dict[tuple[str, str], dict[str, float]]:
    return {(r["mode"], r["group"]): r for r in report["results"] if r["system"] == system}  # type: ignore[attr-defined,index,misc]


def ablations(kb: KnowledgeBase, questions: list, options: dict[str, object]) -> dict[str, dict]:  # type: ignore[type-arg]
    """Each ablation's results by (mode, group), and the floor's."""
    found: dict[str, dict] = {}  # type: ignore[type-arg]
    for name, change in ABLATIONS.items():
        if name == "− dense" and not kb.dense_search:  # the dense stage has nothing to switch off
            continue
        recipe = Recipe.model_validate({**DEFAULT_RECIPE.model_dump(), **options, **change})
        found[name] = _rows(Evaluator(kb, (1, 5, 10), recipe).evaluate(questions, ("hybrid",)), "hybrid")
    found[FLOOR] = _rows(Evaluator(kb, (1, 5, 10)).evaluate(questions, ("bm25",)), "bm25")
    return found


def markdown(found: dict[str, dict]) -> str:  # type: ignore[type-arg]
    """One table per question set: a row per variant, hit@1, hit@5 and MRR shared and filtered; a value under the
    floor's in the same column is marked ▼."""
    lines = []
    for group in SETS:
        floor = found[FLOOR]
        n = floor.get(("shared", group), {}).get("n", 0)
        if not n:
            continue
        lines += [f"**{group.split('=')[1]}** ({n} questions)", ""]
        lines.append("| variant | " + " | ".join(f"{m} {k}" for m in ("shared", "filtered") for k in METRICS) + " |")
        lines.append("|---|" + "---:|" * 6)
        for name, rows in found.items():
            cells = []
            for mode in ("shared", "filtered"):
                for metric in METRICS:
                    value = rows.get((mode, group), {}).get(metric, 0.0)
                    low = name != FLOOR and value < floor.get((mode, group), {}).get(metric, 0.0) - 1e-9
                    cells.append(f"{value:.3f}{' ▼' if low else ''}")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("questions", nargs="+", type=Path)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--variant", action="append", default=[], help="JSON object of Recipe fields")
    parser.add_argument("--options", default="{}", help="JSON object of Recipe fields, for every variant")
    parser.add_argument("--kinds", action="store_true", help="also print each kind of question")
    parser.add_argument("--json", type=Path, help="write every variant's full report here")
    parser.add_argument("--ablations", action="store_true", help="each stage switched off, and the BM25 floor")
    parser.add_argument("--markdown", type=Path, help="with --ablations: write the tables here too")
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.index, default_cache_dir())
    questions = [q for path in args.questions for q in load_questions(path)]
    options = json.loads(args.options)
    if args.ablations:
        tables = markdown(ablations(kb, questions, options))
        print(tables)
        if args.markdown:
            args.markdown.write_text(tables + "\n", encoding="utf-8")
        return 0
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
