"""Shared text vocabulary: which characters are Chinese (CJK ideographs) and the patterns built on them, defined once
for the tokenizer, chunking, tables, quotes, highlights, query expansion, routing and metadata."""

from __future__ import annotations

import re

# CJK Unified Ideographs, Extension A and the Compatibility Ideographs: every Han character a filing prints.
CJK_RANGE = "\u3400-\u9fff\uf900-\ufaff"
FULLWIDTH_RANGE = "\uff00-\uffef"  # full-width digits, letters and punctuation (（）：，)
CJK = re.compile(f"[{CJK_RANGE}]")


def has_cjk(text: str) -> bool:
    return CJK.search(text) is not None


# A line that ends in a page number, as a contents page's lines do ("Item 7. Management's … 23", "第三节 …....8").
ENDS_WITH_PAGE_REF = re.compile(r"(?:(?<!\.)\.{3,}+|(?<!…)…{2,}+|(?<!\s)\s)\s*+\d{1,4}+\s*+$")


def normal_words(text: str) -> str:
    """``text`` lower-cased, its punctuation and underscores as single spaces: how titles and keys are compared."""
    return re.sub(r"[\W_]+", " ", text.lower()).strip()
