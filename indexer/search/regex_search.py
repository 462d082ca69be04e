"""Regex mode: find chunks whose text matches a pattern (case-insensitive), bounded in time.

Uses the ``regex`` package, whose matching functions take a ``timeout``: a catastrophic pattern such as
``(a+)+$`` stops at the deadline with a clear error instead of hanging the server. One :class:`Budget` covers the
whole request: matching the passages here and highlighting the matches in the hits afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import regex

from indexer.core.budget import REQUEST_BUDGET_S, Budget
from indexer.core.errors import QueryError, shown

MAX_PATTERN_CHARS = 500


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    if not pattern.strip():
        raise QueryError(r"the regular expression is empty; pass a pattern such as '\$[\d,]+\s*million'")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise QueryError(
            f"the regular expression has {len(pattern)} characters, over the limit of {MAX_PATTERN_CHARS}; "
            "search for a shorter pattern"
        )
    try:
        return regex.compile(pattern, regex.IGNORECASE | regex.V1)
    except regex.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise QueryError(
            f"invalid regular expression {shown(pattern)}: {exc.msg}{where}; fix it, or search with use_regex=false"
        ) from exc


def regex_budget(pattern: str, seconds: float = REQUEST_BUDGET_S) -> Budget:
    """The deadline of one regex search, from matching the passages to highlighting the hits."""
    return Budget(
        seconds,
        f"the regular expression {shown(pattern)} took longer than {seconds:g}s (the limit for one search) and was "
        "stopped; simplify it (avoid nested repetition such as (a+)+) or narrow it with documents/company",
    )


@dataclass
class Tally:
    r"""The matches of one regex search: those that hold a letter or digit, and those of separators alone (a bare
    "," of ``[0-9,]+``, a run of spaces), which every page prints and which say nothing about it."""

    meaningful: int = 0
    separators: int = 0

    def note(self, pattern: str) -> str | None:
        """What to say when most matches are separators alone."""
        if self.separators <= self.meaningful:
            return None
        return (
            f"{self.separators} of the {self.separators + self.meaningful} matches of {shown(pattern)} are only "
            "separators or spaces (such as a bare ','), which every page prints: make the pattern require a digit "
            r"or a letter (e.g. \d[\d,.]* rather than [\d,]+); passages with real matches are ranked first"
        )


def count_matches(compiled: regex.Pattern[str], text: str, budget: Budget) -> tuple[int, int]:
    """(matches that hold a letter or digit, matches of separators or spaces alone) in ``text``; a pattern that can
    only match empty, such as a lookahead, counts 1 where it matches at all. Within the budget."""
    try:
        count = separators = 0
        empty = False
        for match in compiled.finditer(text, timeout=budget.remaining()):
            if match.end() <= match.start():
                empty = True
            elif any(char.isalnum() for char in match.group()):
                count += 1
            else:
                separators += 1
        return (count or int(empty and not separators)), separators
    except TimeoutError as exc:
        raise budget.exceeded() from exc


def regex_matches(
    pattern: str, rows: Iterable[int], text_of: Callable[[int], str], budget: Budget, tally: Tally | None = None
) -> list[tuple[int, int]]:
    """(row, number of matches that hold a letter or digit) for every chunk that matches (``text_of(row)``: its
    text), most matches first, then in index order; a chunk whose only matches are separators (0) comes last.
    ``tally`` adds up both kinds of match."""
    compiled = compile_pattern(pattern)
    found: list[tuple[int, int]] = []
    tally = tally if tally is not None else Tally()
    for row in rows:
        count, separators = count_matches(compiled, text_of(row), budget)
        tally.meaningful += count
        tally.separators += separators
        if count or separators:
            found.append((row, count))
    found.sort(key=lambda item: -item[1])
    return found
