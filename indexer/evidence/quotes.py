"""Locate a quoted passage or figure on a page and return the boxes of the text it covers.

Tiers, tried in order (the seed article's, made stricter): ``exact`` (case-insensitive, line breaks as spaces),
``whitespace`` (all whitespace ignored), ``numeric`` (currency symbols, thousands separators, signs in
parentheses, full-width digits and units reconciled: 52.00B = 52 billion = 52,000 million, 1.2亿 = 12,000万),
``alphanumeric`` (letters, digits and CJK only) and ``token`` (the quote's most distinctive token alone: found,
but not verified). A match never straddles a digit boundary, so "1,234" is not found inside "11,234"; a short
quote (a bare figure such as "4%") must occur exactly once on the page.

Tiers are tried lazily (the first that matches ends the search), each is near-linear in the page's length, and the
whole call runs under one time budget (:data:`indexer.core.budget.REQUEST_BUDGET_S`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from indexer.core.budget import REQUEST_BUDGET_S, Budget
from indexer.core.errors import QueryError, shown
from indexer.core.models import Box, Line, Page
from indexer.core.text import CJK_RANGE
from indexer.core.tokenize import normalize_aligned, normalize_text
from indexer.evidence.context import match_context
from indexer.evidence.units import page_multiplier

MAX_QUOTE_CHARS = 2000
SHORT_QUOTE_CHARS = 5  # a quote with fewer letters/digits than this must be unique on the page
MAX_CANDIDATES = 50  # places an ambiguous quote's boxes are given for (a page may print "1" thousands of times)
MAX_NUMERIC_FIGURES = 40  # the numeric tier reconciles quotes of up to this many figures (a table row has ~12)
_KEEP_ALNUM = re.compile(rf"[0-9a-z{CJK_RANGE}]")
_UNIT_WORDS = {
    "thousand": 1000, "k": 1000, "千": 1000, "million": 10**6, "millions": 10**6, "mn": 10**6, "m": 10**6,
    "百万": 10**6, "billion": 10**9, "billions": 10**9, "bn": 10**9, "b": 10**9, "trillion": 10**12,
    "万": 10**4, "亿": 10**8,
}  # fmt: skip
_GAP = r"\s{0,16}+"  # the spaces a sign, a currency and a figure may stand apart: bounded and possessive (linear time)
_NUMBER = re.compile(
    rf"(?P<neg>[(-])?(?:{_GAP}[$¥€£])?{_GAP}(?P<num>\d{{1,3}}(?:,\d{{3}})++(?:\.\d++)?|\d++(?:\.\d++)?)"
    rf"(?:{_GAP}\))?{_GAP}(?P<unit>thousand|millions?|billions?|trillion|bn|mn|[kmb](?![a-z])|千|百万|万|亿)?",
    re.I,
)


@dataclass
class PageText:
    """A page's text (lines joined by newlines) and, for each span's run of characters, where it starts in the text
    and which line and span it came from (characters between runs came from no span: gaps and line breaks)."""

    page: Page
    text: str = ""
    starts: list[int] = field(default_factory=list)  # offset in text of each run, ascending
    runs: list[tuple[int, int]] = field(default_factory=list)  # (line, span) of each run

    @classmethod
    def build(cls, page: Page, only: Callable[[Line], bool] | None = None) -> PageText:
        """The page's text; with ``only``, just the lines it accepts (the others are skipped)."""
        out = cls(page)
        pieces: list[str] = []
        length = 0
        for li, line in enumerate(page.lines):
            if only is not None and not only(line):
                continue
            if pieces:
                pieces.append("\n")
                length += 1
            cursor = 0
            for si, span in enumerate(line.spans):
                start = line.text.find(span.text, cursor)
                if start < 0:
                    continue
                gap = line.text[cursor:start]
                pieces.append(gap)
                length += len(gap)
                out.starts.append(length)
                out.runs.append((li, si))
                pieces.append(span.text)
                length += len(span.text)
                cursor = start + len(span.text)
        out.text = "".join(pieces)
        return out

    def boxes(self, start: int, end: int) -> list[Box]:
        """One box per line for the characters [start, end): each span's part, interpolated by character."""
        per_line: dict[int, Box] = {}
        run = max(bisect_right(self.starts, start) - 1, 0)
        while run < len(self.runs) and self.starts[run] < end:
            li, si = self.runs[run]
            span = self.page.lines[li].spans[si]
            first = max(start - self.starts[run], 0)
            last = min(end - self.starts[run], len(span.text))
            run += 1
            if first >= last:
                continue
            width = (span.box.x1 - span.box.x0) / max(len(span.text), 1)
            box = Box(
                page=self.page.number,
                x0=span.box.x0 + width * first,
                top=span.box.top,
                x1=span.box.x0 + width * last,
                bottom=span.box.bottom,
            )
            per_line[li] = per_line[li].union(box) if li in per_line else box
        return [per_line[li] for li in sorted(per_line)]


class Located(BaseModel):
    """Where a quote was found on a page, and how closely it matched."""

    model_config = ConfigDict(frozen=True)

    verified: bool = Field(description="True only when the quote was found on the page (or a neighbouring one)")
    match: str = Field(description="exact, whitespace, numeric, alphanumeric, token (partial, unverified) or none")
    matched_text: str = Field(description="the text on the page that matched, as printed")
    boxes: list[Box] = Field(
        serialization_alias="bboxes", description="one box per line of the matched text (all candidates if ambiguous)"
    )
    page: int = Field(description="the page the boxes are on (a neighbouring page when the note says so)")
    note: str = Field(default="", description="why a quote is unverified or ambiguous, or where else it was found")
    context: str = Field(
        default="", description="the table row (label: cells) or the sentence the match is in, at most 200 characters"
    )


def _normalized(text: str, keep: re.Pattern[str] | None, drop_space: bool) -> tuple[str, list[int]]:
    """Normalised text and, for each of its characters, the index of the original character."""
    out: list[str] = []
    index: list[int] = []
    for position, char in enumerate(normalize_text(text)):
        if char == "\n":
            char = " "
        if drop_space and char.isspace():
            continue
        if keep is not None and not keep.match(char):
            continue
        if not drop_space and char.isspace() and out and out[-1] == " ":
            continue
        out.append(char)
        index.append(position)
    return "".join(out), index


def digit_bounded(text: str, start: int, end: int) -> bool:
    """The match neither starts nor ends inside a longer number ("234" in "1,234", "1,23" in "1,234")."""

    def in_number(digit: str, neighbour: str, beyond: str) -> bool:
        return digit.isdigit() and (neighbour.isdigit() or (neighbour in ".," and beyond.isdigit()))

    if end <= start:  # an empty match straddles nothing
        return True
    before = text[start - 1] if start > 0 else ""
    before2 = text[start - 2] if start > 1 else ""
    after = text[end] if end < len(text) else ""
    after2 = text[end + 1] if end + 1 < len(text) else ""
    return not in_number(text[start], before, before2) and not in_number(text[end - 1], after, after2)


def _find_all(
    page_text: str,
    quote: str,
    keep: re.Pattern[str] | None,
    drop_space: bool,
    budget: Budget,
    limit: int | None = None,
) -> list[tuple[int, int]]:
    """Where the normalised quote occurs in the normalised page (spans of the original text), at most ``limit``."""
    norm_page, page_index = _normalized(page_text, keep, drop_space)
    norm_quote, _ = _normalized(quote, keep, drop_space)
    norm_quote = norm_quote.strip()
    if not norm_quote:
        return []
    found: list[tuple[int, int]] = []
    start = norm_page.find(norm_quote)
    while start >= 0 and (limit is None or len(found) < limit):
        budget.remaining()
        begin, end = page_index[start], page_index[start + len(norm_quote) - 1] + 1
        if digit_bounded(page_text, begin, end):
            found.append((begin, end))
        start = norm_page.find(norm_quote, start + 1)
    return found


@dataclass(frozen=True)
class _Number:
    value: Decimal
    start: int
    end: int


def _numbers(text: str, default_multiplier: Decimal = Decimal(1)) -> list[_Number]:
    found = []
    normalized = normalize_aligned(text)  # offsets are the text's
    for match in _NUMBER.finditer(normalized):
        value = Decimal(match.group("num").replace(",", ""))
        unit = (match.group("unit") or "").lower()
        value *= Decimal(str(_UNIT_WORDS[unit])) if unit in _UNIT_WORDS else default_multiplier
        if match.group("neg"):
            value = -value
        found.append(_Number(value, match.start("num"), match.end("unit") if unit else match.end("num")))
    return found


def figures(text: str) -> list[Decimal]:
    """The numbers printed in ``text``, sign applied ('(1,234)' and '-1,234' are negative), unit words applied
    ('52 billion', '1.2亿')."""
    return [number.value for number in _numbers(text)]


def _same(a: Decimal, b: Decimal) -> bool:
    """Equal values, exactly: 52.00 billion == 52,000 million, but 1,234.33 != 1,234.32."""
    return a == b


def _numeric_match(page_text: str, quote: str, budget: Budget) -> list[tuple[int, int]]:
    """The first place the quote's figures occur, in order and close together, with equal values in any notation.

    Candidates are grouped by value, so each next figure is found by bisection: a chain costs one step per figure,
    and at most MAX_NUMERIC_FIGURES figures are reconciled (a longer quote is left to the other tiers)."""
    wanted = _numbers(quote)
    if not wanted or len(wanted) > MAX_NUMERIC_FIGURES:
        return []
    words = [w for w in re.findall(rf"[a-z{CJK_RANGE}]{{3,}}", normalize_text(quote)) if w not in _UNIT_WORDS]
    scale = page_multiplier(page_text)
    candidates = _numbers(page_text) + (_numbers(page_text, scale) if scale != 1 else [])
    by_value: dict[Decimal, list[_Number]] = {}
    for number in sorted(candidates, key=lambda n: n.start):
        by_value.setdefault(abs(number.value), []).append(number)
    starts = {value: [n.start for n in numbers] for value, numbers in by_value.items()}
    if any(abs(n.value) not in by_value for n in wanted):
        return []
    for first in by_value[abs(wanted[0].value)]:
        budget.remaining()
        span_start, span_end, position = first.start, first.end, first.start
        ok = True
        for number in wanted[1:]:
            value = abs(number.value)
            following = bisect_right(starts[value], position)
            if following == len(starts[value]) or starts[value][following] - span_end > 200:
                ok = False
                break
            chosen = by_value[value][following]
            span_end, position = chosen.end, chosen.start
        window = normalize_text(page_text[max(0, span_start - 150) : span_end + 150])
        if ok and all(w in window for w in words):
            return [(span_start, span_end)]
    return []


def _distinctive_token(quote: str) -> str | None:
    tokens = re.findall(rf"\d[\d,.]*\d|[A-Za-z]{{6,}}|[{CJK_RANGE}]{{3,}}", quote)
    tokens = [t for t in tokens if len(re.sub(r"\D", "", t)) >= 3 or not t[0].isdigit()]
    return max(tokens, key=len) if tokens else None


def check_quote(quote: str) -> str:
    text = " ".join(quote.split())
    if not text:
        raise QueryError("the quote is empty; pass the exact text or figure to verify, e.g. '394,328' or a sentence")
    if len(text) > MAX_QUOTE_CHARS:
        raise QueryError(
            f"the quote has {len(text)} characters; quote at most {MAX_QUOTE_CHARS} (one figure or sentence at a time)"
        )
    return quote.strip()


def quote_budget(seconds: float = REQUEST_BUDGET_S) -> Budget:
    return Budget(
        seconds,
        f"matching the quote took longer than {seconds:g}s (the limit for one call) and was stopped; quote one "
        "figure or one sentence at a time",
    )


def locate(
    page_of: Callable[[int], Page], count: int, number: int, quote: str, budget: Budget | None = None
) -> Located:
    """Locate on page ``number`` (of ``count``, read with ``page_of``); if it is not there, on the page before and
    after, which the note then names. The whole call runs within ``budget`` (default: REQUEST_BUDGET_S)."""
    quote = check_quote(quote)
    budget = budget or quote_budget()
    found = locate_on_page(page_of(number), quote, budget)
    if found.verified or found.match not in ("none", "token"):
        return found
    for neighbour in (number - 1, number + 1):
        if 1 <= neighbour <= count:
            other = locate_on_page(page_of(neighbour), quote, budget)
            if other.verified:
                note = f"not on page {number}; found on the neighbouring page {neighbour}"
                return other.model_copy(update={"page": neighbour, "note": note})
    return found


def _tiers(text: str, quote: str, short: bool, budget: Budget) -> Iterator[tuple[str, list[tuple[int, int]]]]:
    """Each tier's matches, computed only when the tiers before it found nothing; a short quote tries the exact
    tier only, and needs every occurrence (it must be unique); a longer one needs the first."""
    limit = None if short else 1
    yield "exact", _find_all(text, quote, None, False, budget, limit)
    if short:
        return
    yield "whitespace", _find_all(text, quote, None, True, budget, limit)
    yield "numeric", _numeric_match(text, quote, budget)
    yield "alphanumeric", _find_all(text, quote, _KEEP_ALNUM, True, budget, limit)


def locate_on_page(page: Page, quote: str, budget: Budget | None = None) -> Located:
    """Find ``quote`` on one page; see the module docstring for the tiers and the rules for short quotes."""
    budget = budget or quote_budget()
    text = PageText.build(page)
    letters = len(_normalized(quote, _KEEP_ALNUM, True)[0])
    short = letters < SHORT_QUOTE_CHARS
    for name, spans in _tiers(text.text, quote, short, budget):
        if not spans:
            continue
        if short and len(spans) > 1:
            boxes = [b for s, e in spans[:MAX_CANDIDATES] for b in text.boxes(s, e)]
            note = f"ambiguous: {shown(quote)} occurs {len(spans)} times on page {page.number}; quote more of it"
            if len(spans) > MAX_CANDIDATES:
                note += f" (boxes of the first {MAX_CANDIDATES})"
            return Located(verified=False, match=name, matched_text=quote, boxes=boxes, page=page.number, note=note)
        start, end = spans[0]
        boxes = text.boxes(start, end)
        return Located(
            verified=True, match=name, matched_text=text.text[start:end], boxes=boxes, page=page.number,
            context=match_context(page, text.text, start, end, boxes),
        )  # fmt: skip
    token = None if short else _distinctive_token(quote)
    if token:
        spans = _find_all(text.text, token, None, True, budget, limit=2)
        if len(spans) == 1:
            start, end = spans[0]
            note = f"only the token {shown(token)} of the quote was found on page {page.number}; the rest differs"
            boxes = text.boxes(start, end)
            return Located(
                verified=False, match="token", matched_text=text.text[start:end], boxes=boxes, page=page.number,
                note=note, context=match_context(page, text.text, start, end, boxes),
            )  # fmt: skip
    return Located(
        verified=False,
        match="none",
        matched_text="",
        boxes=[],
        page=page.number,
        note=f"not found on page {page.number}",
    )
