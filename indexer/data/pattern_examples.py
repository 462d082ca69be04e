"""Strings a regular expression matches, one for each way through it: what the vocabulary's loader runs every
section title through, to refuse a title that another kind would read as its own.

Each alternative of a branch, and an optional part with and without it, gives its own strings (up to a bound);
a repeat is taken its fewest times (once when it may be absent, as with the optional part); a character class
gives its first member (``\\s`` a space, ``\\w`` a letter, ``\\d`` a digit). Anchors and lookarounds add nothing.
"""

from __future__ import annotations

import itertools
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

MAX_EXAMPLES = 64  # strings per pattern at most: the product of a few optional parts stays under it
_CATEGORY = {
    sre.CATEGORY_SPACE: " ", sre.CATEGORY_WORD: "a", sre.CATEGORY_DIGIT: "1", sre.CATEGORY_NOT_SPACE: "a",
    sre.CATEGORY_NOT_WORD: ".", sre.CATEGORY_NOT_DIGIT: "a",
}  # fmt: skip
_SILENT = {sre.AT, sre.ASSERT, sre.ASSERT_NOT, sre.GROUPREF}


def examples(pattern: str) -> list[str]:
    """Strings ``pattern`` matches whole, one for each way through it (at most :data:`MAX_EXAMPLES`)."""
    found = _sequence(list(sre_parse.parse(pattern)))
    return list(dict.fromkeys(" ".join(text.split()) for text in found))[:MAX_EXAMPLES]


def _sequence(items: list[tuple[Any, Any]]) -> list[str]:
    out = [""]
    for op, value in items:
        choices = _item(op, value)
        out = [head + tail for head, tail in itertools.islice(itertools.product(out, choices), MAX_EXAMPLES)]
    return out


def _item(op: Any, value: Any) -> list[str]:
    if op is sre.LITERAL:
        return [chr(value)]
    if op is sre.ANY:
        return ["'"]  # a title's any-character stands for an apostrophe: "management.?s"
    if op is sre.NOT_LITERAL:
        return ["x"]
    if op is sre.IN:
        return [_member(value)]
    if op is sre.CATEGORY:
        return [_CATEGORY.get(value, "a")]
    if op is sre.BRANCH:
        return [text for branch in value[1] for text in _sequence(list(branch))][:MAX_EXAMPLES]
    if op is sre.SUBPATTERN:
        return _sequence(list(value[-1]))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
        low, _, body = value
        once = _sequence(list(body))
        return ["", *once] if low == 0 else ["".join(parts) for parts in zip(*[once] * low, strict=True)] or [""]
    if op is getattr(sre, "ATOMIC_GROUP", None):
        return _sequence(list(value))
    if op in _SILENT:
        return [""]
    raise ValueError(f"no example for a regular expression's {op} part")


def _member(members: list[tuple[Any, Any]]) -> str:
    op, value = members[0]
    if op is sre.NEGATE:
        return "x"
    if op is sre.LITERAL:
        return chr(value)
    if op is sre.RANGE:
        return chr(value[0])
    if op is sre.CATEGORY:
        return _CATEGORY.get(value, "a")
    return "a"
