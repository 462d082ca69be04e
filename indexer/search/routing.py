"""Question-type routing by rules: which retriever to trust, how deep to recall, what to do after fusion.

The seed article's table: numeric and ranking questions lean on BM25 (figures and terms must match literally),
causal and forecast questions on dense retrieval (the same idea is worded many ways), comparisons sit between
and recall more. The dense weights are half the seed's (measured on the dev set: recipe.py). Chinese questions
once had their dense weight cut to a quarter (dense alone found 22% of the Chinese gold pages); with passages
embedded under their header it finds 83% in a known filing, and the cut is a half (``cjk_dense_factor``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from indexer.core.recipe import DEFAULT_RECIPE, QuestionKind, Recipe
from indexer.core.text import CJK
from indexer.data.vocabulary import vocabulary

RouteKind = QuestionKind | Literal["plain", "regex"]  # plain: routing switched off (eval's baselines); regex: a pattern

# A figure, not a year: thousands separators, decimals, a percent sign, or five digits and more.
_FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+(?:\.\d+)?\s*%|\d{5,}")

# (kind, pattern) in order of precedence: the first that matches decides.
_RULES: list[tuple[QuestionKind, re.Pattern[str] | None]] = [
    (
        "cross_document",
        re.compile(
            r"\b(?:compare|comparison|versus|vs\.?|differ(?:ence|ent)?\s+between)\b.*\b(?:and|with|to)\b|"
            r"(?:对比|比较|相比|分歧|差异).*(?:和|与|及|跟)|(?:和|与).*(?:对比|比较|分歧|差异)",
            re.I,
        ),
    ),
    ("anomaly", re.compile(r"anomal|unusual|unexpected|despite|inconsisten|增收不增利|异常|背离|反常|矛盾", re.I)),
    ("causal", None),  # the vocabulary's question_cues.causal, which its route to MD&A shares
    (
        "forecast",
        re.compile(
            r"forecast|guidance|outlook|\bexpect|projection|target price|price target|\b(?:19|20)\d{2}e\b|"
            r"预测|指引|展望|目标价|预计|预期",
            re.I,
        ),
    ),
    (
        "ranking",
        re.compile(
            r"\b(?:largest|highest|lowest|smallest|biggest|top|most|least|worst|best[- ]performing|rank\w*|"
            r"share of|proportion|percentage of)\b|占比|比例|排名|最高|最低|最大|最小|前五|前十",
            re.I,
        ),
    ),
    (
        "period",
        re.compile(
            r"\bchange[ds]?\b|\bincrease|\bdecrease|\bgrowth\b|\bgrew\b|\bdecline|\byoy\b|year[- ]over[- ]year|"
            r"compared (?:to|with)|\bfrom\b.*\bto\b|\bimprov\w*|\btrend\w*|\bhistorical\w*|\bconsisten\w*|"
            r"\bprofile\b|同比|环比|增长|下降|变化|变动|增减|趋势",
            re.I,
        ),
    ),
    (
        "numeric",
        re.compile(
            r"\bhow (?:much|many)\b|\bwhat (?:is|was|were|are) (?:the )?(?:amount|value|number|total)|"
            r"\bwhat (?:is|was|were|are)\b.*\b(?:total|revenues?|sales|income|earnings|profits?|expenses?|costs?|"
            r"cash|assets|liabilities|debt|capex|capital expenditures?|dividends?|eps|rate)\b|"
            r"\bamount\b|\bratio\b|\bmargin\b|多少|金额|数额|是多少|几",
            re.I,
        ),
    ),
]


@functools.cache
def _rules() -> list[tuple[QuestionKind, re.Pattern[str]]]:
    """The rules with the vocabulary's cue words compiled in their place (once, on first use)."""
    cues = vocabulary().question_cues
    return [(kind, pattern or re.compile(getattr(cues, kind), re.I)) for kind, pattern in _RULES]


@dataclass(frozen=True)
class Route:
    kind: RouteKind
    bm25_weight: float
    dense_weight: float
    recall_factor: float

    @property
    def needs_several_documents(self) -> bool:
        return self.kind == "cross_document"

    @property
    def newest_first(self) -> bool:
        return self.kind == "anomaly"


def classify(query: str) -> QuestionKind:
    for kind, pattern in _rules():
        if pattern.search(query):
            return kind
    return "numeric" if _FIGURE.search(query) else "general"


def route(query: str, recipe: Recipe = DEFAULT_RECIPE) -> Route:
    kind = classify(query)
    bm25, dense, recall = recipe.routes[kind]
    if CJK.search(query):
        dense *= recipe.cjk_dense_factor
    return Route(kind, bm25, dense, recall)
