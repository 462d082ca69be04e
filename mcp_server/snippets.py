"""The part of a hit's passage an agent reads: the sentence or table row that holds most of the question's matched
terms, with its neighbours while they fit, starting at a sentence or row boundary (not the passage's first
characters cut at a fixed length). A search is most of what an agent reads, so each hit shows what matched and
little else; the page is one get_page away."""

from __future__ import annotations

import re
from collections.abc import Iterable

CUT = "…"
TERM_ROOM = 40  # a cut sentence starts at its beginning when its first term and this much after it fit
# A sentence ends at a full stop, question or exclamation mark or semicolon before a capital, a figure or an opening
# mark (not inside "1.5", "U.S." followed by lower case, "Inc., the"), or after Chinese end punctuation.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z0-9(\"“‘$•])|(?<=[。！？；])")
# A line that ends with a figure (a table row as the PDF prints it: "Revenue  $ 9,583  $ 10,329", "营业收入 1,175.3"),
# or a dash standing for none.
_ROW_END = re.compile(r"(?:(?<![\d,.])\d[\d,.]*+\)?%?|—|–|-)\s*+$")


# A heading: a short line with no closing punctuation ("Revenue", "Liquidity and Capital Resources", "二、营业收入").
_HEADING = re.compile(r"^[^.;:,。；：，]{1,60}$")
_HEADING_WORDS = 8


def units(text: str) -> list[tuple[str, bool]]:
    """The passage as sentences, headings and table rows, in order, each with whether it stands on a line of its
    own (a row or a heading): a line that ends with a figure is a row; a short line without closing punctuation
    before a longer one is a heading; the other lines run together into prose, split into sentences."""
    out: list[tuple[str, bool]] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.extend((s.strip(), False) for s in _SENTENCE_END.split(" ".join(prose)) if s.strip())
            prose.clear()

    lines = [" ".join(line.split()) for line in text.splitlines()]
    for at, line in enumerate(lines):
        following = lines[at + 1] if at + 1 < len(lines) else ""
        heading = _HEADING.match(line) and len(line.split()) <= _HEADING_WORDS and len(following) > len(line)
        if not line:
            flush()
        elif (_ROW_END.search(line) and len(line) <= 160) or (heading and not prose):
            flush()
            out.append((line, True))
        else:
            prose.append(line)
    flush()
    return out


def _score(unit: str, terms: Iterable[str]) -> int:
    folded = unit.casefold()
    return sum(1 for term in terms if term in folded)


def matched_passage(text: str, terms: Iterable[str], limit: int) -> str:
    """The unit of ``text`` holding the most distinct ``terms`` (the first when none does), with the units after
    and before it while the whole stays within ``limit`` characters; … marks what was left out. A best unit longer
    than ``limit`` is cut around its first term."""
    pieces = units(text)
    if not pieces:
        return ""
    parts = [part for part, _ in pieces]
    wanted = {t.casefold() for t in terms if t.strip()}
    scores = [_score(part, wanted) for part in parts]
    best = max(range(len(parts)), key=lambda i: (scores[i], -i))
    first = last = best
    size = len(parts[best])
    if size > limit:
        return _around(parts[best], wanted, limit, best > 0, best < len(parts) - 1)
    grew = True
    while grew:
        grew = False
        for side in (last + 1, first - 1):  # the sentence after first: it goes on from the match
            if 0 <= side < len(parts) and (side > last or side < first) and size + 1 + len(parts[side]) <= limit:
                size += 1 + len(parts[side])
                first, last = min(first, side), max(last, side)
                grew = True
    shown = parts[first]
    for at in range(first + 1, last + 1):  # a row or a heading keeps its own line
        shown += ("\n" if pieces[at][1] or pieces[at - 1][1] else " ") + parts[at]
    return (CUT if first > 0 else "") + shown + (CUT if last < len(parts) - 1 else "")


def _around(unit: str, terms: set[str], limit: int, before: bool, after: bool) -> str:
    """``unit`` cut to ``limit`` characters: from its start when its first term fits, else from a word boundary a
    little before that term."""
    folded = unit.casefold()
    at = min((folded.find(t) for t in terms if t in folded), default=0)
    start = 0 if at + TERM_ROOM <= limit else unit.rfind(" ", 0, at - limit // 4) + 1  # the sentence's start
    piece = unit[start : start + limit].rsplit(" ", 1)[0] if start + limit < len(unit) else unit[start:]
    return (CUT if before or start > 0 else "") + piece + (CUT if after or start + len(piece) < len(unit) else "")
