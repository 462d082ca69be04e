"""A routed section's list votes only for passages that print enough of the question (issue 42): within a section
every page ranks, however little of the question it holds, so a balance sheet that prints the one line item a
question names would outvote the note that answers it."""

from __future__ import annotations

from indexer.core.recipe import DEFAULT_RECIPE
from indexer.index.reader import LoadedIndex
from indexer.search.fusion import RankedList
from indexer.search.routed_lists import well_covered

QUESTION = "gross profit operating income net revenue"


def test_a_routed_passage_must_hold_half_the_terms_the_best_candidate_holds(samples_index: LoadedIndex) -> None:
    storage = samples_index.storage
    wanted = set(samples_index.tokenizer.tokenize(QUESTION))
    candidates = storage.passages(sorted(wanted), 30, None).tolist()
    best = max(len(storage.held(row, wanted)) for row in candidates)
    assert best >= 4  # the samples' income statements print most of these words
    one_word = [r for r in storage.passages(["gross"], 200, None).tolist() if len(storage.held(r, wanted)) == 1]
    assert one_word  # passages that print "gross" and nothing else of the question
    routed = one_word[:5] + candidates[:5]
    kept = well_covered(samples_index, routed, [RankedList("bm25", candidates)], wanted, DEFAULT_RECIPE)
    assert kept == [r for r in routed if 2 * len(storage.held(r, wanted)) >= best]
    assert kept and not set(kept) & set(one_word[:5])  # the best candidates vote; a one-word passage does not
    everyone = DEFAULT_RECIPE.model_copy(update={"routed_coverage": 0.0})
    assert well_covered(samples_index, routed, [RankedList("bm25", candidates)], wanted, everyone) == routed
