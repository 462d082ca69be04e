"""How a section kind's titles (the vocabulary's ``[sections.*]`` tables, and what a statement's table says of the
part it heads) are read: one reading per reader of a filing's parts, each of its own field, and a check that no
reader takes one kind's title for another's.

- **title**: an outline entry's title (its Item, Part or 节 taken off) holds one of the kind's ``titles``;
- **heading**: a page's heading line (its numbering taken off) starts with one of its ``headings``;
- **topic**: a sub-heading is, whole, one of its ``topics``;
- **report**: a line is, whole, the title of one of its ``reports`` (perhaps "(audited)" after): its key.

Kinds are tried in the file's order (sections, then the statements' parts); the first that reads a text takes it.
The texts given are already plain (core/sections.py prepares them: single spaces, straight apostrophes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexer.data.pattern_examples import examples

if TYPE_CHECKING:
    from indexer.data.vocabulary import Vocabulary

# Labels of pages told by what they print, not by a title (core/sections.py: boilerplate_page, glossary_page).
CONTENT_LABELS = ("certification", "signatures", "exhibits", "glossary")
WHOLE_TAIL = r"\s*(?:[(（][^)）]{0,30}[)）])?[.:]?"  # "Remuneration report (audited)", "Governance:"


READERS = ("title", "heading", "topic", "report")


def _either(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I) if patterns else None


@dataclass(frozen=True)
class SectionKind:
    """One kind's titles, headings, topics and reports, each compiled once."""

    name: str
    home: str  # where it is written: sections.risk_factors, statements.notes
    titles: re.Pattern[str] | None
    headings: re.Pattern[str] | None
    topics: re.Pattern[str] | None
    reports: tuple[tuple[str, re.Pattern[str]], ...]
    page_label: bool
    long: bool

    def reads(self, reader: str, text: str) -> bool:
        """Whether ``reader`` (one of :data:`READERS`) takes ``text`` for this kind."""
        if reader == "title":
            return bool(self.titles and self.titles.search(text))
        if reader == "heading":
            return bool(self.headings and self.headings.match(text))
        if reader == "topic":
            return bool(self.topics and self.topics.fullmatch(text))
        return self.report_key(text) is not None

    def report_key(self, text: str) -> str | None:
        return next((key for key, pattern in self.reports if pattern.fullmatch(text)), None)


def section_kinds(words: Vocabulary) -> tuple[SectionKind, ...]:
    """Every section kind of ``words``, in the order they are tried."""
    kinds = [
        SectionKind(name, f"sections.{name}", _either(s.titles), _either(s.headings), _either(s.topics),
                    _whole(s.reports), s.page_label, s.long)
        for name, s in words.sections.items()
    ]  # fmt: skip
    kinds += [
        SectionKind(name, f"statements.{name}", _either(s.outline_titles), None, None, _whole(s.reports),
                    s.page_label, s.long)
        for name, s in words.statements.items()
        if s.reports or s.outline_titles
    ]  # fmt: skip
    return tuple(kinds)


def _whole(reports: dict[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((key, re.compile(rf"(?:{pattern}){WHOLE_TAIL}", re.I)) for key, pattern in reports.items())


def _written(words: Vocabulary) -> list[tuple[str, str, str]]:
    """(home, field, pattern) of everything a kind is recognised by, the statements' own titles among them."""
    found = []
    for name, s in words.sections.items():
        fields = [("titles", s.titles), ("headings", s.headings), ("topics", s.topics)]
        found += [(f"sections.{name}", field, t) for field, patterns in fields for t in patterns]
        found += [(f"sections.{name}", f"reports.{k}", t) for k, t in s.reports.items()]
    for name, statement in words.statements.items():
        own = (*statement.titles, *statement.titles_zh, *statement.outline_titles)
        found += [(f"statements.{name}", "titles", t) for t in own]
        found += [(f"statements.{name}", f"reports.{k}", t) for k, t in statement.reports.items()]
    return found


def title_conflicts(words: Vocabulary) -> list[str]:
    """Each title, heading, topic or report of one kind that a reader takes for another kind's (empty when none):
    every way through every pattern is run through every reader, and the first kind each reader gives must be the
    pattern's own kind or none."""
    kinds = section_kinds(words)
    keys = [key for kind in kinds for key, _ in kind.reports]
    found = [f"reports key {key!r} is given twice: a key names one section" for key in sorted(set(keys)) if
             keys.count(key) > 1]  # fmt: skip
    for home, field, pattern in _written(words):
        for text in examples(pattern):
            firsts = ((reader, _first(kinds, reader, text)) for reader in READERS)
            clash = next(((reader, kind) for reader, kind in firsts if kind is not None and kind.home != home), None)
            if clash is not None:
                found.append(f"{home}.{field}: {text!r} ({pattern!r}) is read as {clash[1].home}'s by the {clash[0]} "
                             "reader: give it one kind, or make one of the two patterns narrower")  # fmt: skip
                break
    return found


def _first(kinds: tuple[SectionKind, ...], reader: str, text: str) -> SectionKind | None:
    return next((kind for kind in kinds if kind.reads(reader, text)), None)
