"""The search recipe as a declared list of stages (search/stages.py): each switched by one recipe field, run in
order over one question read once (search/query.py), and the ablation harness's rows derived from the list."""

from __future__ import annotations

from indexer.core.recipe import DEFAULT_RECIPE, Recipe
from indexer.index.reader import LoadedIndex
from indexer.search.query import read_query
from indexer.search.request import SearchRequest
from indexer.search.stages import RANKING_STEPS, STAGES, ablations, run_stages
from tests.conftest import BESTBUY_10Q

STEPS = ("query", "lists", "fuse", "adjust", "select", "annotate")


def test_stages_run_in_the_declared_order_and_each_is_switched_by_one_recipe_field() -> None:
    assert [STEPS.index(stage.step) for stage in STAGES] == sorted(STEPS.index(stage.step) for stage in STAGES)
    assert [stage.step for stage in STAGES if stage.switch is None] == ["fuse", "adjust", "select"]
    for stage in STAGES:
        if stage.switch is None:
            continue
        assert stage.switch in Recipe.model_fields, stage.name
        switched = Recipe.model_validate({**DEFAULT_RECIPE.model_dump(), stage.switch: stage.off})
        assert not stage.on(switched), stage.name
        assert (stage.run is None) == (stage.step == "query"), stage.name  # reading the question runs the query steps


def test_the_ablation_rows_come_from_the_stage_list() -> None:
    rows = ablations()
    ranking = [s for s in STAGES if s.switch is not None and s.step in RANKING_STEPS]
    assert len(rows) == len(ranking) >= 10
    assert rows["− term proximity"] == {"proximity": False} and rows["+ CJK bigrams"] == {"bigrams": True}
    assert "− highlights" not in rows  # an annotation ranks nothing


def _lists(index: LoadedIndex, recipe: Recipe) -> list[tuple[str, str]]:
    request = SearchRequest(query="goodwill", top_k=5, documents=BESTBUY_10Q.name)
    ranking = run_stages(index, read_query(index, request, recipe), recipe)
    assert ranking.hits and ranking.hits[0].document == BESTBUY_10Q.name
    return [(ranked.source, ranked.detail) for ranked in ranking.lists]


def test_a_stage_switched_off_adds_nothing(samples_index: LoadedIndex) -> None:
    every = _lists(samples_index, DEFAULT_RECIPE)
    assert ("routed", "balance_sheet") in every and any(source == "passages" for source, _ in every)
    without = _lists(samples_index, DEFAULT_RECIPE.model_copy(update={"routed_lists": False}))
    assert without == [entry for entry in every if entry[0] != "routed"]
    bigrams = _lists(samples_index, DEFAULT_RECIPE.model_copy(update={"bigrams": True}))
    assert ("bigrams", "") not in every and len(bigrams) >= len(every)
