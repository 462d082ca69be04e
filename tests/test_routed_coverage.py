"""A section the question is routed to counts only for passages that print enough of the question (issue 42):
within a section every page ranks, however little of the question it holds, so a balance sheet that prints the one
line item a question names would outvote, and be boosted above, the note that answers it."""

from __future__ import annotations

from indexer.core.recipe import DEFAULT_RECIPE
from indexer.index.reader import LoadedIndex
from indexer.search.fusion import RankedList
from indexer.search.routed_lists import Coverage

QUESTION = "gross profit operating income net revenue"


def test_a_passage_must_hold_half_the_terms_the_best_candidate_holds(samples_index: LoadedIndex) -> None:
    storage = samples_index.storage
    wanted = set(samples_index.tokenizer.tokenize(QUESTION))
    candidates = storage.passages(sorted(wanted), 30, None).tolist()
    best = max(len(storage.held(row, wanted)) for row in candidates)
    assert best >= 4  # the samples' income statements print most of these words
    coverage = Coverage(samples_index, wanted, [RankedList("bm25", candidates)], DEFAULT_RECIPE)
    assert coverage.floor == best / 2
    one_word = [r for r in storage.passages(["gross"], 200, None).tolist() if len(storage.held(r, wanted)) == 1]
    assert one_word and not any(coverage.enough(r) for r in one_word)  # print "gross" and nothing else asked
    assert [coverage.enough(r) for r in candidates] == [2 * len(storage.held(r, wanted)) >= best for r in candidates]
    assert coverage.enough(candidates[0])
    everyone = Coverage(
        samples_index,
        wanted,
        [RankedList("bm25", candidates)],
        DEFAULT_RECIPE.model_copy(update={"section_coverage": 0}),
    )
    assert all(everyone.enough(r) for r in one_word)
