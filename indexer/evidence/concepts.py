"""Analyst concepts (revenue, net_income, capex, eps_diluted …) for statement rows, from a bilingual data file.

``indexer/data/concepts.txt`` holds one ``concept | statements | pattern`` per line; a row label is normalised the
same way on every filing (see :func:`normalise_label`) and takes the first concept whose pattern matches it whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from indexer.core.text import CJK_RANGE
from indexer.core.tokenize import normalize_text
from indexer.data import data_lines

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


@cache
def concepts() -> tuple[Concept, ...]:
    """The concepts of the data file, in file order."""
    found = []
    for line in data_lines("concepts.txt"):
        name, statements, pattern = (part.strip() for part in line.split(" | ", 2))
        # a label is matched whole: anchored, so a search cannot retry the lookaheads from every position
        found.append(Concept(name, frozenset(statements.split(",")), re.compile(rf"\A(?:{pattern})\Z")))
    return tuple(found)


def concept_names() -> list[str]:
    return list(dict.fromkeys(concept.name for concept in concepts()))


def concept_of(label: str, statement: str) -> str | None:
    """The concept a row labelled ``label`` in ``statement`` reports; None when no pattern matches. Bracketed words
    are read too when the label without them matches nothing ('Net earnings per share (Diluted)')."""
    for text in (normalise_label(label), normalise_label(_BRACKET_MARKS.sub(" ", label))):
        found = next((c.name for c in concepts() if statement in c.statements and c.pattern.fullmatch(text)), None)
        if found is not None:
            return found
    return None


def concepts_named(item: str) -> set[str]:
    """The concepts an ``items`` word names: a concept's own name ('capex'), or a label its patterns accept
    ('net sales', '营业收入')."""
    wanted = item.strip().lower().replace(" ", "_")
    if wanted in concept_names():
        return {wanted}
    text = normalise_label(item)
    return {c.name for c in concepts() if c.pattern.fullmatch(text) is not None}
