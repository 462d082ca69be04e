"""Query expansion by rules (no model call): periods both ways and a bilingual finance glossary.

Each variant is searched by every retriever and the lists are fused; the original query keeps the most weight.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from indexer.core.fiscal import QUARTER_NUMERALS_ZH, QUARTER_ORDINAL, QUARTER_ORDINALS, QUARTER_SPELLED, quarter_number
from indexer.core.recipe import DEFAULT_RECIPE
from indexer.core.text import CJK, has_cjk
from indexer.core.tokenize import Tokenizer, normalize_text
from indexer.data import data_lines
from indexer.data.vocabulary import vocabulary


@dataclass(frozen=True)
class Variant:
    text: str
    weight: float
    reason: str


def _year(text: str) -> int:
    value = int(text)
    return value if value >= 100 else 2000 + value


_QUARTER_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"((?:19|20)\d{{2}})\s*年\s*第?({QUARTER_SPELLED})\s*季度"), "yq"),
    (re.compile(r"(?<![a-z0-9])([1-4])q(\d{2})(?![a-z0-9])"), "qy"),
    (re.compile(r"(?<![a-z0-9])(\d{2})q([1-4])(?![a-z0-9])"), "yq"),
    (re.compile(r"(?<![a-z0-9])((?:19|20)\d{2})\s*q([1-4])(?![a-z0-9])"), "yq"),
    (re.compile(r"(?<![a-z0-9])q([1-4])\s*(?:of\s+)?(?:fiscal\s+|fy\s*)?'?((?:19|20)?\d{2})(?![a-z0-9])"), "qy"),
    (
        re.compile(
            rf"(?<![a-z])({QUARTER_ORDINAL})\s+quarter\s+(?:of\s+)?(?:fiscal\s+|fy\s*)?((?:19|20)\d{{2}})(?!\d)"
        ),
        "qy",
    ),
]
_FULL_YEAR = [
    re.compile(r"((?:19|20)\d{2})\s*年\s*(?:全年|年度)"),
    re.compile(r"(?<![a-z0-9])fy\s*'?((?:19|20)?\d{2})(?![a-z0-9])"),
    re.compile(r"(?<![a-z])fiscal\s+(?:year\s+)?((?:19|20)\d{2})(?!\d)"),
]
_FORECAST = [
    re.compile(r"(?<![a-z0-9])((?:19|20)\d{2})e(?![a-z0-9])"),
    re.compile(r"((?:19|20)\d{2})\s*年\s*(?:预测|预计)"),
]


def period_terms(query: str) -> list[str]:
    """Other spellings of the periods a query names: 2025年第一季度 ↔ 1Q25 / 25Q1 / Q1 2025, FY2025 ↔ 2025年全年."""
    text = normalize_text(query)
    terms: list[str] = []
    for pattern, order in _QUARTER_PATTERNS:
        for match in pattern.finditer(text):
            first, second = match.groups()
            if order == "yq":
                year, quarter = _year(first), quarter_number(second)
            else:
                quarter = quarter_number(first)
                year = _year(second)
            yy = year % 100
            terms += [
                f"{quarter}Q{yy:02d}",
                f"{yy:02d}Q{quarter}",
                f"Q{quarter} {year}",
                f"{year}Q{quarter}",
                f"{year}年第{QUARTER_NUMERALS_ZH[quarter - 1]}季度",
                f"{QUARTER_ORDINALS[quarter - 1]} quarter {year}",
            ]
    for pattern in _FULL_YEAR:
        for match in pattern.finditer(text):
            year = _year(match.group(1))
            terms += [f"FY{year}", f"{year}年", f"{year}年度", f"fiscal {year}"]
    for pattern in _FORECAST:
        for match in pattern.finditer(text):
            year = _year(match.group(1))
            terms += [f"{year}E", f"{year}年预测"]
    seen = text.replace(" ", "")

    def present(term: str) -> bool:
        compact = re.escape(normalize_text(term).replace(" ", ""))
        return re.search(rf"(?<![a-z0-9]){compact}(?![a-z0-9])", seen) is not None

    return [t for t in dict.fromkeys(terms) if not present(t)]


@lru_cache(maxsize=1)
def glossary() -> tuple[tuple[str, ...], ...]:
    """Each concept's equivalent terms (the vocabulary's ``terms``), lower case."""
    return vocabulary().glossary


GlossaryPatterns = tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]


def compile_glossary(groups: tuple[tuple[str, ...], ...]) -> GlossaryPatterns:
    """Each group of equivalent terms as one pattern: a Chinese term anywhere, a Latin one as whole words."""
    compiled = []
    for group in groups:
        alternatives = []
        for term in sorted(group, key=len, reverse=True):
            escaped = re.escape(term).replace(r"\ ", r"[\s-]+")
            alternatives.append(escaped if has_cjk(term) else rf"(?<![a-z0-9]){escaped}(?![a-z0-9])")
        compiled.append((re.compile("|".join(alternatives)), group))
    return tuple(compiled)


@lru_cache(maxsize=1)
def _glossary_patterns() -> GlossaryPatterns:
    return compile_glossary(glossary())


def _matched_groups(query: str, patterns: GlossaryPatterns | None = None) -> list[tuple[str, ...]]:
    text = normalize_text(query)
    return [group for pattern, group in patterns or _glossary_patterns() if pattern.search(text)]


def glossary_terms(query: str, patterns: GlossaryPatterns | None = None) -> list[str]:
    """Equivalent terms (both languages) of every glossary concept the query mentions (in ``patterns``, made by
    :func:`compile_glossary`; the package vocabulary's when None)."""
    text = normalize_text(query)
    terms = [t for group in _matched_groups(query, patterns) for t in group if t not in text]
    return list(dict.fromkeys(terms))


@lru_cache(maxsize=1)
def _judgements() -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    return tuple((re.compile(j.pattern, re.I), tuple(t.lower() for t in j.terms)) for j in vocabulary().judgements)


def judgement_terms(query: str) -> list[str]:
    """The line items printed where an analyst's judgement is answered ("capital-intensive" → capital expenditures,
    property and equipment, total assets: the vocabulary's ``judgements``), those the query does not already say."""
    text = normalize_text(query)
    terms = [t for pattern, group in _judgements() if pattern.search(text) for t in group if t not in text]
    return list(dict.fromkeys(terms))


def translation_terms(query: str, limit: int = 5) -> list[str]:
    """One term in the other language per concept the query mentions (营业收入 for 'revenue', and back)."""
    chinese_query = CJK.search(query) is not None
    terms = []
    for group in _matched_groups(query)[:limit]:
        other = next((t for t in group if (CJK.search(t) is None) == chinese_query), None)
        if other is not None and other not in terms:
            terms.append(other)
    return terms


# Answer-format instructions and hedges that analysts append to questions; they name no content to find.
_INSTRUCTIONS = [
    # what to answer when there is nothing: "If data is not available, return 'N/A'.", "… return False."
    re.compile(
        r"(?:\bif\b[^.?!]*?\b(?:not\s+available|no\s+data|not\s+(?:mentioned|disclosed|found))\b[^.?!]*[.?!]?)|"
        r"(?<![^.?!])[^.?!]*\breturn\s+['\"]?(?:n/?a|false|true|null|none)['\"]?[^.?!]*[.?!]?",
        re.I,
    ),
    # where to look and how to read it: "According to the annual report,", "(within the last period or at the end of
    # the last period)", "(in USD)", "Answer the following question by primarily using …:"
    re.compile(
        r"^\s*according\s+to\s+the\s+(?:annual\s+)?report\s*,?|"
        r"\((?:within|at\s+the\s+end\s+of|as\s+of)\s+the\s+(?:last|latest|reporting)\s+period[^)]*\)|"
        r"\(in\s+[A-Z]{3}\)|"
        r"\banswer\s+the\s+following\s+question[^:?]*[:?]",
        re.I,
    ),
    # how to answer: "Answer in units of percents and round to one decimal place." (an imperative starting a sentence)
    re.compile(
        r"(?:^|(?<=[.?!。？！]))\s*(?:please\s+)?(?:answer|respond|reply|round|express|give|provide|report)\b"
        r"[^.?!。？！]*?"
        r"\b(?:units?|decimals?|decimal places?|percent(?:age)?s?|billions?|millions?|thousands?|usd|format)\b"
        r"[^.?!。？！]*[.?!。？！]?",
        re.I,
    ),
    re.compile(
        r"\bif\b[^.?!]*?\b(?:is|are)\s+not\s+(?:a\s+)?(?:relevant|useful|meaningful|applicable)\b[^.?!]*[.?!]?"
        r"(?:[^.?!]*\b(?:state|explain)\b[^.?!]*[.?!]?)?",
        re.I,
    ),
    re.compile(r"(?:请)?保留[一二两三四\d]+位小数|(?:请)?用[^，。？]*(?:表示|回答)"),
]


def strip_instructions(query: str) -> str:
    """The question without answer-format instructions ("Answer in units of percents…", "保留两位小数")."""
    stripped = query
    for pattern in _INSTRUCTIONS:
        stripped = pattern.sub(" ", stripped)
    stripped = " ".join(stripped.split())
    return stripped if len(stripped) >= 3 else query


def expand(query: str, weight: float = DEFAULT_RECIPE.expansion_weight, judgements: bool = True) -> list[Variant]:
    """The query, a keyword variant with every other spelling of its periods and terms (and, with ``judgements``,
    the line items printed where a judgement it asks is answered) for BM25, and a short cross-language variant with
    one translated term per concept (for dense retrieval), when there are any."""
    variants = [Variant(query, 1.0, "original")]
    judged = judgement_terms(query) if judgements else []
    extra = list(dict.fromkeys(period_terms(query) + glossary_terms(query) + judged))
    if extra:
        variants.append(Variant(f"{query} {' '.join(extra)}", weight, "keywords"))
    translated = translation_terms(query)
    if translated:
        variants.append(Variant(f"{query} {' '.join(translated)}", weight, "translated"))
    return variants


@lru_cache(maxsize=4)
def generic_words(tokenizer: Tokenizer) -> frozenset[str]:
    return frozenset(t for w in data_lines("generic_query_words.txt") for t in tokenizer.tokenize(w))


def content_tokens(tokens: list[str], tokenizer: Tokenizer) -> list[str]:
    """A question's tokens without the words that only name the document or the act of reporting ("annual report",
    "company", "disclosed": ``indexer/data/generic_query_words.txt``), unless nothing else is left."""
    generic = generic_words(tokenizer)
    kept = [t for t in tokens if t not in generic]
    return kept or tokens
