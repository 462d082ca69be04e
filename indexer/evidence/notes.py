"""Each note to the financial statements as its own outline entry, found by its heading as printed.

A note's heading is a short line that starts with the note's number: ``Note 8 — Leases``, ``NOTE 8: LEASES``,
``8. Leases``, ``(8) Leases``, ``8 Leases``; in a 年报's 附注 ``1、货币资金`` under ``七、合并财务报表项目注释``.
What is not one: a figure's row (``1. 期初余额 283,095,211.14``), a footnote or a list item that reads as a sentence, a
cross-reference (``Note 22 of this Form 10-Q``), an entry of an index of the notes (it ends in a page number), a
running heading that repeats a note on each of its pages. Notes are numbered 1, 2, 3 … in order, so of the
candidate lines the run whose numbers go up one at a time (a skipped number at most: a heading run into another
column's text) with the most headings is kept. A heading printed alike on the line next to another is a list's row
(一、账面原值 / 二、累计折旧 in a table) and counts for nothing; between runs as long, the one whose headings are
printed alike (the word 'Note', the separator, capitals, the type's height) wins — a numbered list inside Note 1
breaks that sameness and drops out. A statement heading printed between two notes, repeating a statement printed
before them, is a note's sub-heading: it leaves the outline the tools show.

Keys: ``note_8`` for a note of the (first) notes section; ``parent_note_8`` for one of a later notes section (the
parent company's own). In a 年报 each part of the 附注 after the statements is an entry ``notes_N`` (N its number,
七 → ``notes_7``); the items of the consolidated part (合并财务报表项目注释) are ``note_1`` …, those of the parent
company's (母公司财务报表主要项目注释) ``parent_note_1`` ….
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from pydantic import BaseModel

from indexer.core.models import Line
from indexer.core.sections import NUMBERED, parent_only
from indexer.core.text import CJK, ENDS_WITH_PAGE_REF, normal_words
from indexer.evidence.outline import Section, _chinese_number, outline, statement_title

MAX_GAP = 2  # a note's number may follow the previous one's by this much (a heading run into another column)
# A 年报's 附注 prints every part and item of its template, each numbered, none skipped (an item that does not
# apply is printed with 不适用): its runs skip no number.
MIN_NOTES = 3  # fewer headings in a run are not the notes
MAX_TITLE_CHARS = 100
_PREFIXED = re.compile(r"^(note)\s*([0-9]{1,3})(\s*[.:—–-]\s*|\s+)(\S.*)$", re.I)
_BRACKETED = re.compile(r"^()\(([0-9]{1,3})\)(\s*)(\S.*)$")
_BARE = re.compile(r"^()([0-9]{1,3})(\s*[.:—–-]\s*|\s+)(\S.*)$")
_NEXT_NOTE = re.compile(r"\s(?=note\s*\d{1,3}\s*[.:—–-]\s)", re.I)  # two columns' headings run into one line
_FIGURE = re.compile(r"\$|\d,\d{3}|\d\.\d")
_SENTENCE_END = re.compile(r"(?:[a-z][.:]|[,;])$")
_ZH_PART = re.compile(r"^([一二三四五六七八九十]+)、\s*(\S.{1,30})$")
_ZH_ITEM = re.compile(r"^([0-9]{1,3})\s*[、.．]\s*(\S.{0,40})$")
_ZH_END = re.compile(r"[。：:；;，,]$")
_ITEMISED = re.compile(r"项目(?:注释|附注)|报表(?:注释|附注)")
_PARENT = re.compile(r"\bcompany\b|\bparent\b|母公司", re.I)
_GROUP = re.compile(r"consolidated|combined|\bgroup\b", re.I)
PARENT_PREFIX = "parent_note"  # the key of a note of the parent company's own notes
_CONTINUED = re.compile(r"(?:[(（]\s*+)?(?:continued|cont'?d|续)\s*+[)）]?", re.I)


@dataclass(frozen=True)
class _Head:
    page: int
    line: int
    number: int
    title: str
    form: tuple[str, str, bool, int] = ("", "", False, 0)  # how it is printed: word, separator, capitals, height


_Reader = Callable[[int, list[Line], int, int], list[_Head]]  # (page, its body, first line, stop line) → headings


def _separator(text: str) -> str:
    mark = text.strip()
    return "-" if mark in ("—", "–") else mark


def _english(text: str) -> tuple[int, str, tuple[str, str, bool]] | None:
    """(number, title, form) of a note heading line, else None."""
    found = _PREFIXED.match(text) or _BRACKETED.match(text) or _BARE.match(text)
    if found is None:
        return None
    word, number, separator, title = found.groups()
    if len(title) > MAX_TITLE_CHARS or _FIGURE.search(title) or _SENTENCE_END.search(title):
        return None
    if ENDS_WITH_PAGE_REF.search(text):
        return None  # an index of the notes: each with its page
    if not (title[:1].isupper() or (title[:1].isdigit() and separator.strip() and separator[-1:].isspace())):
        return None  # "3 months ended …", "of this Form 10-Q": text going on; "11.2 Revenue": a sub-section
    if not word and found.re is _BARE and not separator.strip() and not NUMBERED.match(text):
        return None  # "17 This meant …": a footnote (a bare number and a space: the numbered headings' own rule)
    mark = "(" if found.re is _BRACKETED else _separator(separator)
    return int(number), title, (word.lower(), mark, title.upper() == title)


def _heads_on(number: int, body: list[Line], start: int, stop: int) -> list[_Head]:
    """The note headings among lines ``start`` to ``stop`` of a page's body; a line holding two (the headings of
    two columns run together, "Note 15 - Deposits Note 16 - Leases") starts both."""
    found = []
    for index in range(start, stop):
        text = " ".join(body[index].text.split())
        height = round(body[index].box.bottom - body[index].box.top)
        for piece in _NEXT_NOTE.split(text) if _PREFIXED.match(text) else [text]:
            head = _english(piece)
            if head is None:
                break
            found.append(_Head(number, index, head[0], piece, (*head[2], height)))
    return found


def _repeats(heads: list[_Head]) -> list[_Head]:
    """The headings without the repeats of one printed before with its number and title (a running heading, "Note
    5 — Fair Value (continued)" atop each page of the note): the first is where the note starts."""
    seen: set[tuple[int, str]] = set()
    kept = []
    for head in heads:
        title = normal_words(_CONTINUED.sub("", head.title))
        if (head.number, title) not in seen:
            seen.add((head.number, title))
            kept.append(head)
    return kept


def _run(heads: list[_Head], max_gap: int = MAX_GAP) -> list[_Head]:
    """The run of headings whose numbers go up by one (``max_gap`` at most) with the most headings that have text
    under them — one printed alike on the line next to another is a list's row or an index entry, and counts for
    nothing — then the most alike. A run starts at the first heading of its number (a list inside Note 1 numbers
    from 1 again); between runs still as good, the later headings (the notes go on after a list inside one)."""
    heads = _repeats(heads)
    at = {(head.page, head.line, head.form) for head in heads}
    best: list[tuple[int, int] | None] = []
    previous = [-1] * len(heads)
    seen: dict[int, list[int]] = {}
    for i, head in enumerate(heads):
        listed = (head.page, head.line - 1, head.form) in at or (head.page, head.line + 1, head.form) in at
        best.append(None if head.number in seen else (int(not listed), -int(listed)))
        for gap in range(1, max_gap + 1):
            for j in seen.get(head.number - gap, []):
                earlier = best[j]
                if earlier is None:
                    continue
                unlike = (heads[j].form != head.form) + (gap > 1) + listed
                score = (earlier[0] + (not listed), earlier[1] - unlike)
                current = best[i]
                if current is None or score >= current:
                    best[i], previous[i] = score, j
        seen.setdefault(head.number, []).append(i)
    ends = [(score, i) for i, score in enumerate(best) if score is not None]
    if not ends or max(ends)[0][0] < MIN_NOTES:
        return []
    end = max(ends)[1]
    run = []
    while end != -1:
        run.append(heads[end])
        end = previous[end]
    return run[::-1]


def _scan(bodies: list[list[Line]], start: tuple[int, int], stop: tuple[int, int], read: _Reader) -> list[_Head]:
    """The headings ``read`` finds from (page, line) ``start`` up to ``stop`` (not included)."""
    found = []
    for number in range(start[0], min(stop[0], len(bodies)) + 1):
        body = bodies[number - 1]
        first = start[1] if number == start[0] else 0
        last = stop[1] if number == stop[0] else len(body)
        found.extend(read(number, body, first, min(last, len(body))))
    return found


def _position(section: Section) -> tuple[int, int]:
    return section.page_start, section.line


def _end_of(sections: list[Section], position: int, pages: int, notes_too: bool = False) -> tuple[int, int]:
    """Where the section at ``position`` ends: the next one above its level (or another notes section)."""
    level = sections[position].level
    following = next(
        (s for s in sections[position + 1 :] if s.level < level or (notes_too and s.kind == "notes")), None
    )
    return _position(following) if following is not None else (pages + 1, 0)


def _note(head: _Head, level: int, key: str, kind: str = "note") -> Section:
    return Section(
        title=head.title, level=level, page_start=head.page, page_end=head.page, kind=kind, key=key, line=head.line
    )


def _english_notes(bodies: list[list[Line]], sections: list[Section]) -> tuple[list[Section], list[Section]]:
    """The notes of each notes section (up to the end of the section above it, or the next notes section: a
    statement heading inside a note does not end the notes), and the statement headings that fall between two
    notes and repeat a statement printed before them (a note's sub-heading)."""
    added: list[Section] = []
    inside: list[Section] = []
    keys: set[str] = set()
    for position, notes in enumerate(sections):
        if notes.kind != "notes" or notes.key != "notes":
            continue
        stop = _end_of(sections, position, len(bodies), notes_too=True)
        run = _run(_scan(bodies, (notes.page_start, notes.line + 1), stop, _heads_on))
        later = bool(added) and bool(_PARENT.search(notes.title)) and not _GROUP.search(notes.title)
        prefix = PARENT_PREFIX if later else "note"
        for head in run:
            if f"{prefix}_{head.number}" not in keys:
                keys.add(f"{prefix}_{head.number}")
                added.append(_note(head, notes.level + 1, f"{prefix}_{head.number}"))
        before = {s.key for s in sections[:position] if s.kind == "statement"}
        inside += [
            s for s in sections[position + 1 :]
            if s.kind == "statement" and s.key in before and not _PARENT.search(s.title)
            and any((a.page, a.line) < _position(s) < (b.page, b.line) for a, b in pairwise(run))
        ]  # fmt: skip
    return added, inside


def _printed_title(pages: list[list[Line]], number: int) -> str | None:
    """The notes' title printed on page ``number`` or the one before, running header included."""
    for lines in pages[max(number - 2, 0) : number]:
        for line in lines:
            text = " ".join(line.text.split())
            if statement_title(text) == "notes":
                return text
    return None


def _unheaded_notes(pages: list[list[Line]], bodies: list[list[Line]], sections: list[Section]) -> list[Section]:
    """Where no notes heading starts a section (it is printed as the pages' running header, or not at all), the
    notes after the last statement, up to the end of the section above it: from Note 1 (or 2: the first heading
    run into other text), under their title where one is printed on the first note's page or the one before —
    else, where they say 'Note', beside the statements."""
    statements = [i for i, s in enumerate(sections) if s.kind == "statement"]
    if not statements or any(s.kind == "notes" for s in sections) or CJK.search(sections[statements[-1]].title):
        return []
    last = sections[statements[-1]]
    run = _run(
        _scan(bodies, (last.page_start, last.line + 1), _end_of(sections, statements[-1], len(bodies)), _heads_on)
    )
    if not run or run[0].number > 2:
        return []
    title = _printed_title(pages, run[0].page)
    if title is None and not run[0].form[0]:
        return []  # neither the notes' title nor 'Note 1': a numbered list after the statements
    first = run[0]
    heading = [] if title is None else [_note(_Head(first.page, first.line, 0, title), last.level, "notes", "notes")]
    return heading + [_note(head, last.level + bool(heading), f"note_{head.number}") for head in run]


def _zh_part(number: int, body: list[Line], start: int, stop: int) -> list[_Head]:
    found = []
    for index in range(start, stop):
        text = " ".join(body[index].text.split())
        part = _ZH_PART.match(text)
        if part and NUMBERED.match(text) and not _ZH_END.search(text) and not re.search(r"\d", part.group(2)):
            found.append(_Head(number, index, _chinese_number(part.group(1)), text))
    return found


def _zh_item(number: int, body: list[Line], start: int, stop: int) -> list[_Head]:
    found = []
    for index in range(start, stop):
        text = " ".join(body[index].text.split())
        item = _ZH_ITEM.match(text)
        if item and CJK.search(item.group(2)) and not _FIGURE.search(text) and not _ZH_END.search(text):
            separator = "、" if "、" in text[: len(item.group(1)) + 3] else "."
            found.append(_Head(number, index, int(item.group(1)), text, ("", separator, False, 0)))
    return found


def _chinese_notes(bodies: list[list[Line]], sections: list[Section]) -> list[Section]:
    """A 年报's 附注: its parts (三、公司基本情况 … 十八、补充资料) after the last primary statement, up to the end of
    the 节 that holds them; the items (1、货币资金 …) of the consolidated and the parent company's parts."""
    statements = [i for i, s in enumerate(sections) if s.kind == "statement" and CJK.search(s.title)]
    if not statements:
        return []
    last = sections[statements[-1]]
    stop = _end_of(sections, statements[-1], len(bodies))
    parts = _run(_scan(bodies, (last.page_start, last.line + 1), stop, _zh_part), max_gap=1)
    added: list[Section] = []
    for at, part in enumerate(parts):
        following = parts[at + 1] if at + 1 < len(parts) else None
        added.append(_note(part, last.level, f"notes_{part.number}", kind="notes"))
        if not _ITEMISED.search(part.title):
            continue
        prefix = PARENT_PREFIX if _PARENT.search(part.title) else "note"
        end = (following.page, following.line) if following is not None else stop
        items = _run(_scan(bodies, (part.page, part.line + 1), end, _zh_item), max_gap=1)
        added += [
            _note(item, last.level + 1, f"{prefix}_{item.number}")
            for item in items
            if all(s.key != f"{prefix}_{item.number}" for s in added)
        ]  # fmt: skip
    return added


def _with_ends(sections: list[Section], pages: int) -> list[Section]:
    """Each section ending on the page before the next one at its level or above starts (on that page if text
    precedes that heading), as the outline does; a heading that shares its line with the next one's (two notes
    run into one line) ends where that next one does."""
    out = []
    for position, section in enumerate(sections):
        following = next(
            (s for s in sections[position + 1 :] if s.level <= section.level and _position(s) != _position(section)),
            None,
        )
        end = pages if following is None else following.page_start - (following.line == 0)
        out.append(section.model_copy(update={"page_end": max(end, section.page_start)}))
    return out


def with_notes(pages: list[list[Line]], sections: list[Section]) -> list[Section]:
    """The outline ``sections`` of a document (its pages' lines, furniture marked) with each note of its notes to
    the financial statements as an entry one level below its notes section (see the module's keys)."""
    bodies = [[line for line in lines if not line.furniture] for lines in pages]
    added, inside = _english_notes(bodies, sections)
    added += _unheaded_notes(pages, bodies, sections) + _chinese_notes(bodies, sections)
    if not added:
        return parent_marked(sections)
    kept = [s for s in sections if all(s is not i for i in inside)]
    merged = sorted([(s, 0) for s in kept] + [(s, 1) for s in added], key=lambda p: (*_position(p[0]), p[1]))
    return parent_marked(_with_ends([s for s, _ in merged], len(pages)))


def parent_marked(sections: list[Section]) -> list[Section]:
    """``sections`` with the parent company's own marked: a statement or notes titled for it (core/sections.py's
    ``parent_only``), a parent_note, and each note under notes titled for it."""
    out: list[Section] = []
    enclosing: list[Section] = []  # the marked notes sections the next notes may sit under
    for section in sections:
        enclosing = [s for s in enclosing if s.level < section.level]
        under = section.kind == "note" and any(s.kind == "notes" for s in enclosing)
        marked = parent_only(section.title) or section.key.startswith(PARENT_PREFIX) or under
        section = section.model_copy(update={"parent_only": True}) if marked else section
        if marked:
            enclosing.append(section)
        out.append(section)
    return out


class Outlines(BaseModel):
    """A document's outline, computed once (at build time, kept beside its pages): ``statements``, the sections its
    statements are read from; ``sections``, the same with each note of its notes an entry (what get_outline shows)."""

    statements: list[Section]
    sections: list[Section]

    def kept(self) -> dict[str, list[dict[str, object]]]:
        """Both outlines as the index keeps them: each section whole, its heading's line too (which answers omit)."""
        return {name: [s.model_dump() | {"line": s.line} for s in getattr(self, name)]
                for name in ("statements", "sections")}  # fmt: skip


def document_outlines(pages: list[list[Line]]) -> Outlines:
    """Both outlines of a document from its pages' lines (furniture marked)."""
    statements = outline(pages)
    return Outlines(statements=statements, sections=with_notes(pages, statements))
