"""Analyst concepts (revenue, net_income, capex, eps_diluted …) for statement rows, from the vocabulary.

Each concept of ``indexer/data/vocabulary.toml`` with labels is a statement line; a row label is normalised the same
way on every filing (see :func:`normalise_label`) and takes the first concept whose labels match it whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from indexer.core.text import CJK_RANGE
from indexer.core.tokenize import normalize_text
from indexer.data.vocabulary import Vocabulary, vocabulary

MAX_LABEL_CHARS = 300  # labels are cut to this before matching (the patterns are ours; the text is the filing's)
_BRACKET_MARKS = re.compile(r"[()（）\[\]]")
_BRACKETED = re.compile(r"[(（\[][^()（）\[\]]{0,80}[)）\]]")
_PREFIX = re.compile(r"^\s*(?:[一二三四五六七八九十]+\s*[、.]|[(（][一二三四五六七八九十\d]+[)）]|\d+\s*[.、])\s*")
_CN_LEAD = re.compile(r"^\s*(?:其中|加|减|包括)\s*[:：]\s*")
_NOTE_REF = re.compile(r"[一二三四五六七八九十]+、\s*\d+(?:\s*[(（]\d+[)）])?")  # a 年报's note column: 七、61
_FOOTNOTE = re.compile(r"(?=.{0,40}$)(?:\s*\(\d\)|\s\d{1,2}|[¹²³⁴⁵⁶⁷⁸⁹*†])+$")  # marks end a label: 40 chars
_BETWEEN_CJK = re.compile(f"(?<=[{CJK_RANGE}]) (?=[{CJK_RANGE}])")


@dataclass(frozen=True)
class Concept:
    name: str
    statements: frozenset[str]
    pattern: re.Pattern[str]


def normalise_label(label: str) -> str:
    """A label as the concept patterns read it: 'Net cash provided by (used in) operating activities¹' → 'net cash
    provided by used in operating activities'; '其中：营业收入' → '营业收入'; '一、营业总收入' → '营业总收入'."""
    text = normalize_text(label[:MAX_LABEL_CHARS]).lower().replace("’", "'")
    text = _CN_LEAD.sub("", _PREFIX.sub("", _NOTE_REF.sub(" ", text)))
    text = _FOOTNOTE.sub("", _BRACKETED.sub(" ", text))
    text = " ".join(re.sub(r"[^\w%]+", " ", text.replace("'s", "s")).split())
    return _BETWEEN_CJK.sub("", text)


class ConceptLabels:
    """The statement concepts of a vocabulary as matchers: which concept a row label reports, which an ``items``
    word names."""

    def __init__(self, words: Vocabulary) -> None:
        found = []
        for name, concept in words.statement_concepts.items():
            pattern = "|".join(f"(?:{label})" for label in concept.labels)
            # a label is matched whole: anchored, so a search cannot retry the lookaheads from every position
            found.append(Concept(name, frozenset(concept.statements), re.compile(rf"\A(?:{pattern})\Z")))
        self.concepts = tuple(found)
        self.names = frozenset(c.name for c in found)
        self._by_term: dict[str, set[str]] = {}  # a concept's terms, normalised as labels are → the concepts named
        for name, concept in words.statement_concepts.items():
            for term in concept.terms:
                self._by_term.setdefault(normalise_label(term), set()).add(name)

    def of(self, label: str, statement: str) -> str | None:
        """The concept a row labelled ``label`` in ``statement`` reports; None when no pattern matches. Bracketed
        words are read too when the label without them matches nothing ('Net earnings per share (Diluted)')."""
        for text in (normalise_label(label), normalise_label(_BRACKET_MARKS.sub(" ", label))):
            found = next(
                (c.name for c in self.concepts if statement in c.statements and c.pattern.fullmatch(text)), None
            )
            if found is not None:
                return found
        return None

    def matching(self, text: str) -> set[str]:
        """The concepts whose labels match a normalised label ``text`` whole, in any statement."""
        return {c.name for c in self.concepts if c.pattern.fullmatch(text) is not None}

    def named(self, item: str) -> set[str]:
        """The concepts an ``items`` word names: a concept's own name ('capex'), a label its patterns accept
        ('net sales', '营业收入'), or one of its terms ('top line', 'cogs')."""
        wanted = item.strip().lower().replace(" ", "_")
        if wanted in self.names:
            return {wanted}
        text = normalise_label(item)
        return self.matching(text) or set(self._by_term.get(text, ()))


@cache
def concept_labels() -> ConceptLabels:
    """The package vocabulary's concepts, built once."""
    return ConceptLabels(vocabulary())


def concepts() -> tuple[Concept, ...]:
    """The statement concepts of the vocabulary, in file order, each with its labels as one pattern."""
    return concept_labels().concepts


def concept_of(label: str, statement: str) -> str | None:
    return concept_labels().of(label, statement)


def concepts_named(item: str) -> set[str]:
    return concept_labels().named(item)
