"""Section awareness: label pages with the part of a filing they belong to, and map questions to sections.

Page labels come from headings (short lines that start with a statement or part title); a label carries over to
the following pages until the next heading, so the pages of MD&A or of the notes keep theirs.
"""

from __future__ import annotations

import functools
import re

from indexer.core.models import Line
from indexer.core.statement_names import LABEL_OF_STATEMENT
from indexer.core.text import CJK
from indexer.data import data_lines
from indexer.data.section_kinds import SectionKind
from indexer.data.vocabulary import vocabulary


@functools.cache
def headings() -> list[tuple[str, re.Pattern[str]]]:
    """(label, pattern) of each statement's heading: a line that starts with one of its titles in the vocabulary,
    "Consolidated" or 合并 before it or not. The other parts are read from their own tables (:func:`find_heading`)."""
    words = vocabulary()
    before, before_zh = words.statement_titles.before, words.statement_titles.before_zh
    found = []
    for label, statement in words.statements.items():
        if not statement.page_label:
            continue
        forms = [f"^{before}(?:{'|'.join(statement.titles)})"]
        forms += [f"^{before_zh}?(?:{'|'.join(statement.titles_zh)})"] if statement.titles_zh else []
        found.append((label, re.compile("|".join(forms), re.I)))
    return found


@functools.cache
def _labelled_kinds() -> tuple[SectionKind, ...]:
    return tuple(kind for kind in vocabulary().section_kinds if kind.page_label)


@functools.cache
def long_sections() -> frozenset[str]:
    """Labels that carry over pages until the next heading (the vocabulary's ``long``): MD&A, the notes … (a
    statement's or a table's lasts one more page at most)."""
    words = vocabulary()
    long = [name for name, section in words.sections.items() if section.long]
    return frozenset(long + [name for name, statement in words.statements.items() if statement.long])


_ITEM_PREFIX = re.compile(r"^(?:item\s*\d{1,2}[a-c]?|part\s+[ivx]+|第\s*[一二三四五六七八九十]+\s*节)[\s.:—–-]*", re.I)


def plain_title(text: str) -> str:
    """A title as the section kinds read it: its Item, Part or 节 taken off, single spaces, straight apostrophes."""
    return _ITEM_PREFIX.sub("", " ".join(text.replace("’", "'").split()))


def _read(reader: str, text: str) -> str | None:
    """The label of the first labelled kind that ``reader`` (data/section_kinds.py) takes ``text`` for."""
    return next((kind.name for kind in _labelled_kinds() if kind.reads(reader, text)), None)


_MAX_HEADING_WORDS = 14
# A heading starts with a capital, a digit or a Chinese character and is not a sentence: no dollar figure, no
# trailing comma or full stop after a lower-case word ("balance sheet date.").
_HEADING_LIKE = re.compile(r"^(?=[A-Z0-9(（\u3400-\u9fff])(?!.*\$)(?!.*[a-z][.,;]$)")
NARRATIVE = "mdna"  # the part that explains the figures: MD&A, an operating and financial review, 管理层讨论与分析

_MAX_TOPIC_WORDS = 8
# A numbered note's heading ("Note 12 — Income Taxes", "12. Segment Information", "十二、所得税"): a new topic.
NUMBERED = re.compile(
    r"^(?:note\s*)?\d{1,2}\s*[.:—–-]?\s+(?=[A-Z])(?!.*\d)(.{3,80})$|^[(（]?[一二三四五六七八九十]+[)）、]\s*(.{2,30})$",
    re.I,
)
# An officer's certification: "I, Corie Barry, certify that:", "… hereby certifies, pursuant to 18 U.S.C. 1350 …".
_CERTIFICATION = re.compile(
    r"\bI,\s+[A-Z][\w.'’\- ]{1,60},\s+(?:hereby\s+)?certify\b|"
    r"\bhereby\s+certif(?:y|ies)\b|\bcertif(?:y|ies),?\s+pursuant\s+to\b"
)
_CERTIFICATION_LAW = re.compile(r"sarbanes[- ]oxley|rule\s+1[35][ad]-14|section\s+(?:302|906|1350)", re.I)
# A page of definitions: headed as a glossary or a list of abbreviations or defined terms (a 年报's 释义), with few
# figures; a 年报's 释义 lists "term 指 meaning" lines.
GLOSSARY = "glossary"
_GLOSSARY_TITLE = re.compile(
    r"^(?:glossary(?:\s+of\s+(?:terms|abbreviations))?|definitions?(?:\s+and\s+abbreviations)?|defined\s+terms|"
    r"abbreviations(?:\s+and\s+(?:acronyms|definitions))?|(?:list\s+of\s+)?(?:abbreviations|acronyms)|释\s*义)$",
    re.I,
)
_DEFINES = re.compile(r"\s指\s")
_FIGURE_LINE = re.compile(r"(?<![\d,])\d[\d,]*+\.\d|(?<![\d,])\d{1,3}(?:,\d{3})+")  # from a run's first digit
GLOSSARY_TITLE_LINES = 6  # the title is among a page's first lines
_SIGNATURES = re.compile(r"^signatures?$", re.I)
_SIGNED = re.compile(r"pursuant to the requirements of|duly (?:caused|authorized)", re.I)
_EXHIBIT_LINE = re.compile(r"^\d{1,3}(?:\.\d{1,3}){1,2}[*†#]*\s+\S|^10[1-4]\.(?:INS|SCH|CAL|DEF|LAB|PRE)\b", re.I)
_EXHIBIT_TITLE = re.compile(r"exhibit index|index to exhibits|exhibits?(?: and financial statement schedules)?$", re.I)
EXHIBIT_LINES = 6  # lines that start with an exhibit number on an exhibit index page


def names_kind(label: str, text: str) -> bool:
    """Whether ``text`` (a table's title and the lines above it, a section's title) holds a title of the kind
    labelled ``label``: "Selected Financial Data" and 主要会计数据 name key_figures."""
    kind = next(kind for kind in vocabulary().section_kinds if kind.name == label)
    return kind.reads("title", " ".join(text.replace("’", "'").split()))


def report_key(line: str) -> str | None:
    """The read_section key of an annual report's usual section whose title a whole line is ("Strategic report" →
    strategic_report): the vocabulary's ``reports``."""
    plain = " ".join(line.replace("’", "'").split())
    return next((key for kind in vocabulary().section_kinds if (key := kind.report_key(plain))), None)


def title_label(title: str) -> str | None:
    """The label of the pages under an outline heading, from its title ("Item 1A. Risk Factors" → risk_factors)."""
    return _read("title", plain_title(title))


def topic_heading(text: str) -> tuple[bool, str | None]:
    """Whether a line is a sub-heading (a numbered note, or a known topic as a whole line), and its topic."""
    text = " ".join(text.split())
    numbered = NUMBERED.match(text)
    title = next((g for g in numbered.groups() if g), text) if numbered else text
    title = title.strip(" .:—–-")
    if len(title.split()) > _MAX_TOPIC_WORDS or (not title[:1].isupper() and not CJK.match(title[:1])):
        return False, None
    topic = _read("topic", title)
    return (numbered is not None or topic is not None), topic


# A sub-heading of a discussion (MD&A's "Liquidity and Capital Resources", "Results of Operations"): a short line
# of capitalised words, no figure, no sentence's end, over a line of prose. Small words (the English stopwords)
# may stay lower case. One word alone is no sub-heading: a table's "Eliminations" or "Total" reads as one.
_SUBHEADING_WORDS = (2, 8)
_WORD_CHARS = 4  # … one of them a word this long at least
_PROSE_CHARS = 50  # the line below a sub-heading is a paragraph's: this long at least, in lower-case words


@functools.cache
def _small_words() -> frozenset[str]:
    return frozenset(data_lines("stopwords_en.txt"))


def discussion_subheading(text: str, below: str | None) -> bool:
    """Whether ``text`` is a sub-heading of a discussion, ``below`` the line printed under it."""
    text = " ".join(text.split()).rstrip(":")
    words = text.split()
    if not _SUBHEADING_WORDS[0] <= len(words) <= _SUBHEADING_WORDS[1] or re.search(r"[\d$%.,;()]", text):
        return False
    small = _small_words()
    if not all(w[:1].isupper() or w.lower() in small for w in words) or not words[0][:1].isupper():
        return False
    if not any(len(w) >= _WORD_CHARS for w in words):
        return False  # a row of tab letters ("A B C D E F G") or initials
    return below is not None and len(below) >= _PROSE_CHARS and sum(c.islower() for c in below) > len(below) / 2


def boilerplate_page(texts: list[str]) -> str | None:
    """certification, signatures or exhibits for a page that is one of them (any filer's layout), else None: an
    officer's certification cites the Sarbanes-Oxley Act or its rules and says "certify"; a signatures page is
    headed SIGNATURES and signs "pursuant to the requirements of" the Act; an exhibit index lists exhibit numbers."""
    text = " ".join(texts)
    if _CERTIFICATION.search(text) and _CERTIFICATION_LAW.search(text):
        return "certification"
    if any(_SIGNATURES.match(t.strip()) for t in texts[:8]) and _SIGNED.search(text):
        return "signatures"
    numbered = sum(1 for t in texts if _EXHIBIT_LINE.match(t.strip()))
    if numbered >= EXHIBIT_LINES and (
        any(_EXHIBIT_TITLE.match(t.strip()) for t in texts[:10]) or numbered >= len(texts) // 3
    ):
        return "exhibits"
    return None


@functools.cache
def _parent() -> re.Pattern[str]:
    return re.compile(vocabulary().statement_titles.parent, re.I)


@functools.lru_cache(maxsize=4096)  # search asks it of every fused passage's heading: a few hundred per index
def parent_only(title: str | None) -> bool:
    """Whether a statement's or note's title makes it the parent company's alone (母公司资产负债表, "Parent
    Company Balance Sheets"), not the group's: the vocabulary's ``statement_titles.parent``."""
    return bool(title) and bool(_parent().search(" ".join(title.split())))  # type: ignore[union-attr]


@functools.cache
def _parent_asked() -> re.Pattern[str]:
    return re.compile(vocabulary().statement_titles.parent_asked, re.I)


def asks_parent(question: str) -> bool:
    """Whether a question asks for the parent company's own figures (母公司, "parent company", "stand-alone"):
    otherwise it means the group's, which a filing's consolidated statements print."""
    return bool(_parent_asked().search(question))


def glossary_page(texts: list[str]) -> bool:
    """Whether a page defines terms: a glossary, definitions or abbreviations title among its first lines and few
    figures, and on a page of Chinese definitions ("term 指 meaning") most lines defining."""
    lines = [" ".join(t.split()) for t in texts if t.strip()]
    if len(lines) < 5 or sum(1 for t in lines if _FIGURE_LINE.search(t)) > 0.2 * len(lines):
        return False
    titled = any(_GLOSSARY_TITLE.match(_NUMBERING.sub("", t)) for t in lines[:GLOSSARY_TITLE_LINES])
    chinese = sum(1 for t in lines if CJK.search(t)) > len(lines) / 2
    return titled and (not chinese or sum(1 for t in lines if _DEFINES.search(t)) >= 0.4 * len(lines))


_NUMBERING = re.compile(
    r"^(?:[一二三四五六七八九十]+、|[(（]?[一二三四五六七八九十\d]+[)）]|第[一二三四五六七八九十]+节|近三年)\s*"
)


def find_heading(lines: list[Line]) -> tuple[str, str] | None:
    """(section, heading text) of the first heading on a page: a short line that starts with a known title, starts
    with a capital (or a number, or Chinese) and does not read as a sentence that goes on (no trailing comma or
    full stop, no dollar figure): "… reported in the consolidated balance sheets." is not a heading."""
    for line in lines:
        if line.furniture:
            continue
        text = " ".join(line.text.split())
        if len(text.split()) > _MAX_HEADING_WORDS or len(text) > 120 or not _HEADING_LIKE.match(text):
            continue
        bare = _NUMBERING.sub("", _NUMBERING.sub("", text))
        label = next((label for label, pattern in headings() if pattern.match(bare)), None) or _read("heading", bare)
        if label is not None:
            return label, text
    return None


def heading_label(lines: list[Line]) -> str | None:
    found = find_heading(lines)
    return found[0] if found else None


@functools.cache
def _routes() -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    """The vocabulary's question routes, compiled once, then each statement concept's own: its terms route to the
    statements that print it (``goodwill`` and 商誉 to the balance sheet), after the hand routes."""
    words = vocabulary()
    routes = [(re.compile(words.route_pattern(route), re.I), route.sections) for route in words.routes]
    for concept in words.statement_concepts.values():
        routed = [term for term in concept.terms if term not in concept.unrouted]
        if routed:
            terms = "|".join(re.escape(term) for term in sorted(routed, key=len, reverse=True))
            labels = tuple(LABEL_OF_STATEMENT[statement] for statement in concept.statements)
            routes.append((re.compile(rf"(?<![a-z0-9])(?:{terms})(?![a-z0-9])", re.I), labels))
    return routes


def question_sections(question: str, first: tuple[str, ...] = (), *, causal: bool = False) -> tuple[str, ...]:
    """Sections to prefer for a question, most specific first (empty when nothing points anywhere): ``first`` (where
    a judgement it asks is answered: search/judgement_routes.py), then where the inputs of the concepts it names are
    printed (the vocabulary's ``routes``). A ``causal`` question ("Why did gross margin improve?") is answered by the
    narrative that explains the figures, not by the statement that prints them: MD&A comes first where it is routed.
    A statement concept's term routes to the statements that print it, after the routes written by hand."""
    found: list[str] = list(first)
    for pattern, sections in _routes():
        if pattern.search(question):
            found.extend(s for s in sections if s not in found)
    if causal and NARRATIVE in found:
        found = [NARRATIVE, *(s for s in found if s != NARRATIVE)]
    return tuple(found)
