"""Page-level retrieval evaluation: hit@k, recall@k and MRR, shared and filtered, with baselines.

Reads JSONL questions ``{"id", "question", "document", "pages": [1-based], "lang", "kind", ...}``. The system
under test is ``KnowledgeBase.search`` with the default recipe, i.e. exactly what the ``search_reports`` tool runs;
the baselines run on the same index and chunks: BM25 alone, dense alone, and the seed article's page search (a
page's score is the number of whitespace-separated query words its lower-cased text contains).
"""

from __future__ import annotations

import glob
import json
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from indexer.core.errors import FilingsError
from indexer.core.recipe import DEFAULT_RECIPE, PLAIN_RECIPE, Recipe, recipe_id
from indexer.index.embed import embedder_version
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest

logger = logging.getLogger(__name__)

DEFAULT_KS = (1, 5, 10)
SYSTEMS = ("hybrid", "bm25", "dense", "seed-pages")
# Baselines run the same search code with the recipe switched off and one retriever.
BASELINES = {
    "bm25": PLAIN_RECIPE.model_copy(update={"retrievers": ("bm25",)}),
    "dense": PLAIN_RECIPE.model_copy(update={"retrievers": ("dense",)}),
}
MODES = ("shared", "filtered")
Ranked = list[tuple[str, int]]


class Question(BaseModel):
    id: str
    question: str
    document: str
    pages: list[int]
    lang: str = "unknown"
    kind: str = "unknown"
    source: str = "unknown"  # the benchmark a question comes from (financebench, erc-r2, …)
    dataset: str = "questions"


def load_questions(path: Path) -> list[Question]:
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as exc:
        raise FilingsError(f"cannot read questions file {path} ({exc.strerror})") from exc
    questions = []
    dataset = path.parent.name if path.stem == "questions" else path.stem
    for number, line in enumerate(lines, start=1):
        try:
            questions.append(Question.model_validate_json(line).model_copy(update={"dataset": dataset}))
        except ValueError as exc:
            raise FilingsError(f"{path}:{number} is not a valid question line ({exc})") from exc
    return questions


@dataclass
class Scores:
    """Per-question metric values; ``mean()`` summarises them."""

    values: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def add(self, metrics: dict[str, float]) -> None:
        for name, value in metrics.items():
            self.values[name].append(value)

    def mean(self) -> dict[str, float]:
        return {name: sum(v) / len(v) for name, v in self.values.items() if v}

    @property
    def count(self) -> int:
        return max((len(v) for v in self.values.values()), default=0)


def page_metrics(ranked: Ranked, document: str, pages: Iterable[int], ks: tuple[int, ...]) -> dict[str, float]:
    """hit@k, recall@k and MRR@10 over distinct (document, page) pairs, best first."""
    distinct = list(dict.fromkeys(ranked))
    gold = {(document, page) for page in pages}
    metrics: dict[str, float] = {}
    for k in ks:
        found = gold & set(distinct[:k])
        metrics[f"hit@{k}"] = 1.0 if found else 0.0
        metrics[f"recall@{k}"] = len(found) / len(gold) if gold else 0.0
    first = next((rank for rank, pair in enumerate(distinct[:10], start=1) if pair in gold), None)
    metrics["mrr"] = 1.0 / first if first else 0.0
    return metrics


class Evaluator:
    def __init__(self, kb: KnowledgeBase, ks: tuple[int, ...] = DEFAULT_KS, recipe: Recipe = DEFAULT_RECIPE) -> None:
        self.kb = kb
        self.ks = ks
        self.recipe = recipe  # the hybrid system's recipe (the baselines keep theirs)
        self.depth = max(ks)
        self._page_counts = {meta.document: meta.pages for meta in kb.documents()}
        self._by_basename = {Path(name).name: name for name in self._page_counts}
        self._page_texts: dict[str, list[str]] | None = None

    def resolve(self, document: str) -> str | None:
        return document if document in self._page_counts else self._by_basename.get(Path(document).name)

    def _pages(self) -> dict[str, list[str]]:
        if self._page_texts is None:
            self._page_texts = {
                name: [self.kb.page(name, n).text.lower() for n in range(1, pages + 1)]
                for name, pages in self._page_counts.items()
            }
        return self._page_texts

    def seed_page_search(self, query: str, only: str | None) -> Ranked:
        terms = query.lower().split()
        scored = []
        for name, texts in self._pages().items():
            if only is not None and name != only:
                continue
            for number, text in enumerate(texts, start=1):
                score = sum(1 for term in terms if term in text)
                if score:
                    scored.append((-score, name, number))
        scored.sort()
        return [(name, number) for _, name, number in scored[: self.depth]]

    def _embedder(self) -> dict[str, object] | None:
        built = self.kb.manifest.embedder
        if built is None:
            return None
        return {
            "passages": built.model_dump(mode="json"),
            "version": embedder_version(built.spec, built.id),  # the release whose model made the vectors
            "queries": self.kb.query_embedder,
        }

    def run_system(self, system: str, query: str, only: str | None) -> tuple[Ranked, bool]:
        """The pages ``system`` ranks for ``query`` and whether the result says the index may not hold the answer."""
        if system == "seed-pages":
            return self.seed_page_search(query, only), False
        recipe = BASELINES.get(system, self.recipe)
        documents = glob.escape(only) if only is not None else None
        request = SearchRequest(query=query, top_k=self.depth, documents=documents)
        outcome = self.kb.search(request, recipe)
        return [(hit.document, hit.page) for hit in outcome.hits], outcome.note is not None

    def evaluate(
        self,
        questions: list[Question],
        systems: tuple[str, ...] = SYSTEMS,
        modes: tuple[str, ...] = MODES,
        progress: Callable[[int], None] | None = None,
    ) -> dict[str, object]:
        if not self.kb.dense_search:
            systems = tuple(s for s in systems if s != "dense")
        groups: dict[tuple[str, str, str], Scores] = defaultdict(Scores)
        per_question: list[dict[str, object]] = []
        missing = sorted({q.document for q in questions if self.resolve(q.document) is None})
        for question in questions:
            name = self.resolve(question.document)
            row: dict[str, object] = {"id": question.id}
            for system in systems:
                for mode in modes:
                    ranked: Ranked = []
                    noted = False
                    if name is not None:
                        only = name if mode == "filtered" else None
                        ranked, noted = self.run_system(system, question.question, only)
                    metrics = page_metrics(ranked, name or question.document, question.pages, self.ks)
                    metrics["noted"] = float(noted)  # a "may not be in the knowledge base" note: false on dev
                    groups_of = (
                        "all",
                        f"set={question.dataset}",
                        f"lang={question.lang}",
                        f"source={question.source}",
                        f"kind={question.kind}",
                    )
                    for group in groups_of:
                        groups[(system, mode, group)].add(metrics)
                    row[f"{system}/{mode}"] = {"hit@5": metrics.get("hit@5"), "top": ranked[:5]}
            per_question.append(row)
            if progress:
                progress(1)
        return {
            "questions": len(questions),
            "recipe": self.recipe.model_dump(mode="json"),  # what was measured: every knob's value
            "recipe_id": recipe_id(self.recipe),
            "embedder": self._embedder(),  # the passages' vectors and the queries': two runs compare only when equal
            "missing_documents": missing,
            "ks": list(self.ks),
            "results": [
                {"system": s, "mode": m, "group": g, "n": scores.count, **scores.mean()}
                for (s, m, g), scores in groups.items()
            ],
            "per_question": per_question,
        }


def format_table(report: dict[str, object]) -> str:
    """A plain-text table: every system overall and per question set, then the hybrid system by language, source
    and kind."""
    ks = report["ks"]
    assert isinstance(ks, list)
    columns = [f"hit@{k}" for k in ks] + [f"recall@{k}" for k in ks if k > 1] + ["mrr", "noted"]
    header = f"{'system':<11} {'mode':<9} {'group':<24} {'n':>3} " + " ".join(f"{c:>9}" for c in columns)
    lines = [header, "-" * len(header)]
    results = report["results"]
    assert isinstance(results, list)

    def order(row: dict) -> tuple:  # type: ignore[type-arg]
        group = row["group"]
        return (not group.startswith("set="), group != "all", group, SYSTEMS.index(row["system"]), row["mode"])

    for row in sorted(results, key=order):
        if not row["group"].startswith("set=") and row["group"] != "all" and row["system"] != "hybrid":
            continue
        values = " ".join(f"{row.get(c, 0.0):>9.3f}" for c in columns)
        lines.append(f"{row['system']:<11} {row['mode']:<9} {row['group']:<24} {row['n']:>3} {values}")
    lines.append(f"recipe {report.get('recipe_id')} (its values: filings-index eval --json, key 'recipe')")
    embedder = report.get("embedder")
    if isinstance(embedder, dict):
        built = embedder["passages"]
        version = embedder.get("version") or "unknown"
        lines.append(
            f"passages embedded with {built['spec']} ({built['id']}, version {version}); "
            f"queries with {embedder['queries']}"
        )
    else:
        lines.append("no vectors: hybrid ranks by words alone and there is no dense system")
    missing = report.get("missing_documents")
    if missing:
        lines.append(f"documents not in the index (their questions score 0): {', '.join(missing)}")  # type: ignore[arg-type]
    return "\n".join(lines)


def dump(report: dict[str, object]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)
