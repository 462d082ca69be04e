import pytest

from indexer.core.recipe import DEFAULT_RECIPE
from indexer.core.sections import question_sections
from indexer.search.routing import classify, route


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What was Apple's total revenue in fiscal 2023?", "numeric"),
        ("贵州茅台2023年营业收入是多少？", "numeric"),
        ("Which segment had the highest operating income in 2022?", "ranking"),
        ("海外收入占比是多少？", "ranking"),
        ("How did gross margin change compared to the prior year?", "period"),
        ("净利润同比增长多少？", "period"),
        ("Compare the capex guidance of TSMC and Samsung", "cross_document"),
        ("华泰证券和中金公司对毛利率的预测有什么分歧？", "cross_document"),
        ("Why did operating margin decline in the fourth quarter?", "causal"),
        ("毛利率下降的原因是什么？", "causal"),
        ("What does the company attribute its 23% revenue growth to?", "causal"),  # what it says caused it
        ("What drove the rise in net operating income?", "causal"),
        ("What does management credit for the strength of comparable sales?", "causal"),
        ("Which factors weighed on the services business?", "causal"),
        ("What is net income attributable to shareholders?", "numeric"),  # attributable: whose, not why
        ("What are the principal risk factors?", "general"),
        ("What is management's revenue guidance for 2024?", "forecast"),
        ("券商给出的目标价是多少？", "forecast"),
        ("Why is revenue up despite falling net income?", "anomaly"),
        ("公司为何增收不增利？", "anomaly"),
        ("Tell me about the company", "general"),
    ],
)
def test_question_types(question: str, kind: str) -> None:
    assert classify(question) == kind


def test_a_route_takes_its_weights_from_the_recipe() -> None:
    """The kind of question picks its row of the recipe's table, so a sweep over the table changes what search runs
    (the defaults' reasons are measured in recipe.py, not restated here)."""
    numeric, causal = route("What was the total amount of debt?"), route("Why did sales fall?")
    assert (numeric.kind, causal.kind) == ("numeric", "causal")
    # a why-question leans on meaning more than a question for a figure does
    assert causal.dense_weight / causal.bm25_weight > numeric.dense_weight / numeric.bm25_weight
    changed = DEFAULT_RECIPE.model_copy(update={"routes": {**DEFAULT_RECIPE.routes, "numeric": (0.1, 0.9, 3.0)}})
    moved = route("What was the total amount of debt?", changed)
    assert (moved.bm25_weight, moved.dense_weight, moved.recall_factor) == (0.1, 0.9, 3.0)
    compare = route("Compare Coca-Cola and PepsiCo margins")
    assert compare.needs_several_documents and compare.recall_factor > numeric.recall_factor
    assert route("revenue up despite lower profit: unusual?").newest_first


def test_chinese_questions_lean_on_bm25() -> None:
    """Passages embedded under their header made e5-small's Chinese list useful (docs/search.md), so the discount
    of a Chinese question's dense weight is a half now, and the recipe sets it."""
    english = route("Why did gross margin fall?")
    chinese = route("毛利率下降的原因是什么？")
    assert chinese.kind == english.kind == "causal"
    assert chinese.dense_weight == pytest.approx(english.dense_weight * 0.5)
    none = route("毛利率下降的原因是什么？", DEFAULT_RECIPE.model_copy(update={"cjk_dense_factor": 1.0}))
    assert none.dense_weight == english.dense_weight


def test_a_causal_question_is_routed_to_the_mdna_by_the_same_words() -> None:
    """One list of causal cue words (the vocabulary's question_cues): a question it makes causal is routed to the
    MD&A first, and one it does not is not routed there by them."""
    for question in ("What drove the rise in net operating income?", "To what does X attribute its growth?"):
        assert classify(question) == "causal"
        assert question_sections(question, causal=True)[0] == "mdna"
    assert question_sections("What does the company attribute it to?") == ("mdna",)
    assert question_sections("What share of profit is attributable to minority holders?") == ()  # whose, not why
