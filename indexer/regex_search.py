"""Regex mode: find chunks whose text matches a pattern (case-insensitive), bounded in time.

Uses the ``regex`` package, whose matching functions take a ``timeout``: a catastrophic pattern such as
``(a+)+$`` stops at the deadline with a clear error instead of hanging the server.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import regex

from indexer.errors import QueryError
from indexer.models import Chunk

MAX_PATTERN_CHARS = 500
TIME_BUDGET_S = 2.0


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    if not pattern.strip():
        raise QueryError(r"the regular expression is empty; pass a pattern such as '\$[\d,]+\s*million'")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise QueryError(f"the regular expression has {len(pattern)} characters; keep it under {MAX_PATTERN_CHARS}")
    try:
        return regex.compile(pattern, regex.IGNORECASE | regex.V1)
    except regex.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise QueryError(
            f"invalid regular expression {pattern!r}: {exc.msg}{where}; fix it, or search with use_regex=false"
        ) from exc


def regex_matches(
    pattern: str, rows: Iterable[int], chunks: list[Chunk], budget_s: float = TIME_BUDGET_S
) -> list[tuple[int, int]]:
    """(row, number of matches) for every chunk that matches, most matches first, then in index order."""
    compiled = compile_pattern(pattern)
    deadline = time.monotonic() + budget_s
    found: list[tuple[int, int]] = []
    for row in rows:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise QueryError(_too_slow(pattern, budget_s))
        try:
            count = sum(1 for _ in compiled.finditer(chunks[row].text, timeout=remaining))
        except TimeoutError as exc:
            raise QueryError(_too_slow(pattern, budget_s)) from exc
        if count:
            found.append((row, count))
    found.sort(key=lambda item: -item[1])
    return found


def _too_slow(pattern: str, budget_s: float) -> str:
    return (
        f"the regular expression {pattern!r} took longer than {budget_s:.0f}s over the filings and was stopped; "
        "simplify it (avoid nested repetition such as (a+)+) or narrow it with documents/company"
    )
