"""Every knob of the search recipe in one settings object: which retrievers and stages run, and their weights and
depths. `search_reports` runs :data:`DEFAULT_RECIPE`; eval's baselines switch stages off (:data:`PLAIN_RECIPE`);
`filings-index eval` records the recipe it ran with its results, so a sweep over these values is reproducible."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from indexer.core.models import BODY, BOILERPLATE, CONTENTS, GLOSSARY

Retriever = Literal["bm25", "dense"]
# The kinds of question search/routing.py tells apart, each with its row of `routes`.
QuestionKind = Literal["numeric", "ranking", "period", "cross_document", "causal", "forecast", "anomaly", "general"]


class Recipe(BaseModel):
    model_config = ConfigDict(frozen=True)

    retrievers: tuple[Retriever, ...] = Field(default=("bm25", "dense"), description="the ranked lists that run")
    expand: bool = Field(default=True, description="keyword, translated and period variants of the query")
    judgements: bool = Field(
        default=True, description="the keyword variant adds the line items printed where a judgement is answered"
    )
    routing: bool = Field(default=True, description="the kind of question sets the weights and the recall depth")
    document_focus: bool = Field(default=True, description="a company, year or form named in the query narrows it")
    sections: bool = Field(default=True, description="sections the question points at are boosted and routed to")
    highlights: bool = Field(default=True, description="boxes of the query's terms in each hit")
    proximity: bool = Field(default=True, description="within one filing, a list by how near its words print")
    routed_lists: bool = Field(default=True, description="BM25 lists within the sections the question points at")
    bigrams: bool = Field(default=False, description="a BM25 list over the question's CJK character pairs")
    absence: bool = Field(default=True, description="a note on what the searched filings do not hold")
    per_page: int = Field(default=1, description="chunks of one page in the results at most (0: no limit)")

    recall_factor: int = Field(default=10, description="depth of each ranked list before fusion, × the hits asked for")
    min_recall: int = Field(
        default=100,
        description="… and at least this deep: so deep that the first hits do not depend on how many are asked "
        "for (up to 10). At 50 a search for 5 hits read shallower lists than one for 10, and ranked its five "
        "differently: on the dev sets at top_k 5, hybrid, judgement MRR@5 0.623 against 0.733 at top_k 10, "
        "dev/filings hit@5 0.875 against 0.896; at 100 both ask the same",
    )
    depth_per_document: int = Field(
        default=4,
        description="lists reach this many times deeper when several filings are in scope (at most that many "
        "filings' worth), so each filing is ranked as deep as one searched alone; on the dev set's shared index "
        "English hit@5 0.725 (1) → 0.754 (2) → 0.768 (4, and the same at 6 and 10)",
    )
    rrf_k: int = Field(default=60, description="reciprocal-rank fusion: score = Σ weight / (k + rank)")
    rrf_k_within: int = Field(
        default=60,
        description="the fusion's k for a search within one filing whose own words are the evidence (where the "
        "proximity list runs). Issue 42 set it to 25 (a first place worth more within one filing) from the dev sets "
        "alone: filtered MRR rose (dev/filings 0.713 → 0.752 words only) with no hit@5 gained on any set. On 47 "
        "filings nobody tuned on it lost (issue 55, hybrid): English filtered hit@5 / MRR 0.641 / 0.537 at 60 "
        "against 0.628 / 0.527 at 25, judgement questions 0.478 / 0.430 against 0.435 / 0.409. Back to 60, as "
        "across filings: on the dev sets words only no hit@5 changes, shared or filtered (BENCHMARKS.md)",
    )
    expansion_weight: float = Field(
        default=0.6, description="weight of the keyword and translated variants of a query (the query itself: 1)"
    )
    routes: dict[QuestionKind, tuple[float, float, float]] = Field(
        default={
            "numeric": (0.7, 0.15, 1.0),
            "ranking": (0.7, 0.15, 1.0),
            "period": (0.5, 0.25, 1.0),
            "cross_document": (0.5, 0.25, 2.0),
            "causal": (0.3, 0.35, 1.0),
            "forecast": (0.3, 0.35, 1.0),
            "anomaly": (0.5, 0.25, 1.5),
            "general": (0.5, 0.25, 1.0),
        },
        description="kind of question → (BM25 weight, dense weight, recall multiplier); the seed's dense weights "
        "halved: on the dev set (passages embedded with their header) English hit@5 shared/filtered 0.768/0.826 at "
        "the seed's weights, 0.812/0.855 at half, 0.812/0.841 at a quarter — the dense list alone reaches 0.49/0.55, "
        "so its votes should break ties between lexical matches, not override them",
    )
    cjk_dense_factor: float = Field(
        default=0.5,
        description="a Chinese question's dense weight is multiplied by this; 0.25 while e5-small read passages "
        "without their header (dense alone: Chinese hit@5 0.22); with it dense alone reaches 0.70 shared / 0.83 "
        "filtered: on the dev set Chinese hit@5 0.957 at 0.25, 0.5 and 1.0, MRR 0.649 / 0.675 / 0.704, but at 1.0 "
        "'总资产' ranks a page of non-recurring items above the key-data row of total assets (BM25 with jieba "
        "stays the more precise list for a Chinese figure's label)",
    )
    table_rows_weight: float = Field(
        default=0.15,
        description="weight of the table-row BM25 list (each row voting for its passage) relative to the passages'; "
        "measured on the dev sets: at 0.15 Chinese hit@5 0.913 → 0.957; at 0.3, or for every kind of question, "
        "English hit@5 fell (statement pages crowd out prose answers)",
    )
    bigram_weight: float = Field(
        default=1.0,
        description="weight (when `bigrams` is on) of the CJK-bigram BM25 list (the question's adjacent character "
        "pairs: a phrase printed on a page matches whatever the segmenter made of it) relative to the passages' word "
        "list. `bigrams` is off: on unseen "
        "年报 (issue 55, hybrid) Chinese filtered hit@5 / MRR was 0.967 / 0.806 without it, 0.933 / 0.752 with it; "
        "on the dev sets words only Chinese hit@5 is the same without it (0.957), MRR 0.874 → 0.867. The index "
        "keeps the list: a phrase search can switch it on (1.0 found 190 of 200 cut phrases in the top 5, against "
        "183 without)",
    )
    table_row_questions: tuple[QuestionKind, ...] = Field(
        default=("numeric", "period", "ranking"),
        description="kinds of question whose table rows vote (the others only show a hit's best row)",
    )
    row_candidates: int = Field(
        default=12,
        description="best-ranked table rows remembered per page; of them, the one whose own label shares the most "
        "terms with the question is shown (a long table title can rank every row of its table above the answer)",
    )
    demotion: dict[str, float] = Field(
        default={BOILERPLATE: 0.3, CONTENTS: 0.3, GLOSSARY: 0.3, BODY: 1.0},
        description="share of its fused score a chunk of this kind keeps (real passages rank first; a glossary "
        "page keeps it all when the question asks what a term means: its route)",
    )
    parent_only_share: float = Field(
        default=0.8,
        description="share of its fused score kept by a passage of the parent company's own statements or notes "
        "(母公司资产负债表, a UK report's Company balance sheet) when the question does not ask for the parent "
        "company: a group's figure is the consolidated one, and the parent's statement prints the same rows "
        "beside it. Dev sets, filtered MRR words only: Chinese 0.831 → 0.896 (0.5: 0.897; 四方科技's 总资产 "
        "from the parent's balance sheet to the key figures), the other sets unchanged",
    )
    other_document: float = Field(
        default=0.6, description="share kept by chunks outside the filings a question points at (other year, form)"
    )
    section_boost: tuple[float, ...] = Field(
        default=(1.3, 1.0),
        description="factor for chunks in the sections a question points at, best first (the last factor for the "
        "rest): only the first, most specific, is boosted (the statement it names, or whose line items it names); "
        "the later ones are broad fallbacks (MD&A, the notes) whose pages need not answer. Filtered MRR, words only "
        "/ hybrid, (1.3, 1.15, 1.1) → (1.3, 1.0): English 0.692 → 0.693 / 0.710 → 0.707, judgement 0.692 → 0.707 / "
        "0.700 → 0.746 (hit@5 0.818 → 0.855 / 0.855 → 0.873), dev/filings 0.589 → 0.598 / 0.641 → 0.645, Chinese "
        "unchanged",
    )
    routed_weights: tuple[float, ...] = Field(
        default=(0.5, 0.25),
        description="weight of a BM25 list within the question's first, second … routed section (where the inputs "
        "of the concepts it names are printed: the routes in indexer/data/vocabulary.toml), relative to BM25's",
    )
    section_coverage: float = Field(
        default=0.5,
        description="a section the question is routed to counts for a passage (its routed list votes for it, its "
        "boost applies) only when the passage holds at least this share of the question's terms that the "
        "best-covered candidate holds (a coordination level: a balance sheet that prints the one line item a "
        "question names no longer outranks the note that answers it); 0: every passage of the section. Dev sets, "
        "filtered MRR words only / hybrid, 0 → 0.5: English 0.684 → 0.692 / 0.702 → 0.710, Chinese 0.663 → 0.764 / "
        "0.717 → 0.808, judgement 0.671 → 0.692 / 0.680 → 0.700, dev/filings 0.576 → 0.589 / 0.629 → 0.641; hit@5 "
        "the same or higher on every set (0.75: dev/filings 0.624 / 0.677, but English and judgement MRR fall)",
    )
    coverage_candidates: int = Field(
        default=30, description="first rows of each list whose coverage sets the best a section's passage is held to"
    )
    proximity_weight: float = Field(
        default=0.7,
        description="weight, relative to BM25's, of the list that ranks a filing's passages by how close together "
        "they print the question's words (search/proximity.py; a search scoped to one filing, not a judgement "
        "asked without naming its line items). Dev sets, off → 0.7, words only / hybrid: dev/filings filtered MRR "
        "0.598 → 0.666 / 0.645 → 0.708 (hybrid hit@5 0.854 → 0.875); English hit@5 0.812/0.841 → 0.826/0.855 "
        "shared/filtered in both modes, filtered MRR 0.693 → 0.699 / 0.707 → 0.701; Chinese and judgement "
        "unchanged (0.5: dev/filings 0.654 / —; 1.0: 0.666 / 0.694). Run for a judgement that names what it asks "
        'about too ("What explains the rise in operating margin?"): dev/filings 0.664 → 0.679 / 0.703 → 0.704, '
        "the other sets unchanged",
    )
    proximity_window: int = Field(
        default=12, description="tokens from the first to the last question word of a stretch that counts as near"
    )
    proximity_candidates: int = Field(
        default=30,
        description="first passages of each BM25 list that the proximity list reads (it tokenizes them): on the dev "
        "sets 30, 50 and 100 rank the same",
    )
    max_highlights: int = Field(default=40, description="highlight boxes per hit at most")


DEFAULT_RECIPE = Recipe()


def recipe_id(recipe: Recipe) -> str:
    """A short fingerprint of the recipe's values, to tell two eval runs' settings (or a build's and a server's)
    apart at a glance."""
    values = json.dumps(recipe.model_dump(mode="json"), sort_keys=True)
    return hashlib.sha256(values.encode()).hexdigest()[:12]


PLAIN_RECIPE = Recipe(
    expand=False, routing=False, document_focus=False, sections=False, highlights=False, proximity=False
)
