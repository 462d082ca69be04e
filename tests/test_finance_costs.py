"""The finance-costs family (issue 41): 财务费用 (net finance costs) is not 利息费用 (interest expense), and
get_financials' concepts, its ``items`` words and search's glossary agree on which is which."""

from __future__ import annotations

import pytest

from indexer.evidence.concepts import concept_of, concepts_named
from indexer.search.expand import glossary_terms

GROSS = "interest_expense"
NET = "net_finance_costs"


@pytest.mark.parametrize(
    ("label", "concept"),
    [
        ("财务费用", NET),
        ("财务费用（收益以“－”号填列）", NET),
        ("其中：利息费用", GROSS),
        ("利息支出", GROSS),
        ("Interest expense", GROSS),
        ("Total interest expense", GROSS),
        ("Interest expense, net of amounts capitalized", GROSS),  # capitalised interest is not interest income
        ("Finance costs", GROSS),  # IFRS: printed beside finance income, not net of it
        ("Finance costs, net (Note 22)", NET),
        ("Net finance costs", NET),
        ("Interest expense, net", NET),
        ("Financial expenses", NET),  # how 财务费用 is put in English reports of Chinese issuers
        ("Interest income", None),
        ("Noninterest expense", None),
    ],
)
def test_each_label_of_the_family_has_its_own_concept(label: str, concept: str | None) -> None:
    assert concept_of(label, "income") == concept


@pytest.mark.parametrize(("chinese", "concept"), [("财务费用", NET), ("利息费用", GROSS)])
def test_search_and_items_agree_on_every_term_of_a_group(chinese: str, concept: str) -> None:
    group = [chinese, *glossary_terms(chinese)]
    assert len(group) >= 3
    for term in group:
        assert concepts_named(term) == {concept}, term  # get_financials(items=[term]) reads this concept's rows
        assert set(group) <= set(glossary_terms(term)) | {term}, term  # search expands it to its whole group
