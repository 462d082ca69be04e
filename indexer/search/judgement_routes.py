"""Where a judgement question is answered, derived from the line items it implies: "Is X capital-intensive?" names
none of the figures that answer it, and the vocabulary's judgements say which they are (capital expenditures,
property and equipment, total assets); its concepts say which statements print each line item. Such a question is
routed to those statements first, then to the MD&A that discusses them and the notes that detail them — no route
is written by hand for a judgement, and a new judgement in the vocabulary is routed by the same rule.

A question that names one of the judgement's line items ("Did gross margin improve?") is routed by what it names
(core/sections.py's routes), not by this rule."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from indexer.core.statement_names import LABEL_OF_STATEMENT
from indexer.data.vocabulary import vocabulary
from indexer.evidence.concepts import concepts_named

DISCUSSED_IN = ("mdna", "notes")  # after the statements: the part that discusses them, the part that details them


@functools.cache
def _derived() -> tuple[tuple[re.Pattern[str], tuple[str, ...], tuple[str, ...]], ...]:
    """(pattern, sections, line items) of each judgement of the vocabulary."""
    words = vocabulary()
    found = []
    for judgement in words.judgements:
        sections: list[str] = []
        for term in judgement.terms:
            for name in sorted(concepts_named(term)):
                for statement in words.concept(name).statements:
                    label = LABEL_OF_STATEMENT.get(statement)
                    if label and label not in sections:
                        sections.append(label)
        sections += [part for part in DISCUSSED_IN if part not in sections]
        found.append((re.compile(judgement.pattern, re.I), tuple(sections), tuple(t.lower() for t in judgement.terms)))
    return tuple(found)


def judgement_sections(question: str, tokenize: Callable[[str], list[str]]) -> tuple[str, ...]:
    """The sections that answer the judgements ``question`` asks without naming any of their line items, most
    specific first (the statements that print those line items, then the MD&A and the notes); empty when it asks
    none. A line item is named when the question holds each of its words, read with ``tokenize`` (the index's
    tokenizer), in any order and form: "paid dividends" names "dividends paid"."""
    words = set(tokenize(question))

    def named(item: str) -> bool:
        tokens = set(tokenize(item))
        return bool(tokens) and tokens <= words

    found: list[str] = []
    for pattern, sections, items in _derived():
        if pattern.search(question) and not any(named(item) for item in items):
            found.extend(s for s in sections if s not in found)
    return tuple(found)
