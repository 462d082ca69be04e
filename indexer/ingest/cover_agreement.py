"""Company, form and period end by agreement: a value is established when two independent places in the filing
print it, and each comes back with where it was read.

The places a filer's name is printed, each read on its own: the cover, the running headers and footers, the
auditor's report addressee ("To the Shareholders and Board of Directors of X", 致X全体股东), the statements'
headings ("X and Subsidiaries" over "Consolidated Balance Sheets"), the signature block ("Pursuant to the
requirements of …"), and a 年报's company profile (公司的中文名称). A candidate must be a name: not a heading word
("Management's"), a role ("Chief Executive Officer") or a description ("a German stock corporation").

A form is established when a page past the cover names it too ("this Annual Report on Form 10-K", a 年报's running
header), and a period end when a page past the cover prints the same date (a statement's column header).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from indexer.core.fiscal import dates_in
from indexer.core.legal_forms import FORMS_ZH, forms_pattern
from indexer.core.models import Line, Page, Place
from indexer.core.sections import boilerplate_page
from indexer.core.text import CJK
from indexer.evidence.outline import statement_title

PLACE_CHARS = 120  # a place's printed text, cut
HEADING_REACH = 4  # lines above a statement's title where its entity is printed ("X and Subsidiaries")
AGREEING_PLACES = 2
BAND = 0.08  # the top and bottom of a page, where running headers and footers are printed

_ADDRESSEE = re.compile(
    r"^(?=.{0,300}$)(?:(?:independent\s+)?(?:statutory\s+)?auditor['’]?s['’]?\s+report\s+)?to\s+the\s+"
    r"(?:board\s+of\s+directors|(?:share|stock)holders|members|owners|general\s+meeting|annual\s+general\s+meeting)"
    r"\b.{0,80}?\bof\b|^致.{2,40}全体股东",
    re.I,
)
# Where a filing names itself in a sentence: the auditor's addressee ("To the Members of X", "… to the General
# Meeting of X"), the directors' report ("The directors of X present their report", "The Directors present their
# report on X"). The name runs to its legal form, else to the first bracket, comma or colon.
_SELF_NAMING = re.compile(
    r"^(?=.{0,300}$)(?:(?:(?:independent\s+)?(?:statutory\s+)?(?:auditor['’]?s['’]?\s+)?report\s+"
    r"(?:of\s+the\s+(?:independent\s+)?(?:statutory\s+)?auditors?\s+)?)?to\s+the\s+(?:(?:share|stock)holders|members|owners|(?:annual\s+)?general\s+meeting|"
    r"board\s+of\s+directors)(?:\s+and\s+(?:the\s+)?(?:board\s+of\s+directors|(?:share|stock)holders))?\s+of\s+"
    r"|the\s+directors\s+of\s+(?=.{2,80}?\s(?:\(|present|submit|have|are\s+pleased))"
    r"|the\s+directors\s+present\s+their\s+(?:annual\s+)?report.{0,60}?\s(?:on|of)\s+)"
    r"(?P<name>\S.{1,80})",
    re.I,
)
# a name's last word: a legal form (core/legal_forms.py; "Company" among them, "Co" not: "The Co-operative Bank"),
# or a word names of trusts and banks end in
_FORMS = rf"(?:{forms_pattern(generic=False, dotless=True)}|company|trust|bancorp|bancshares)"
_NAME_WITH_FORM = re.compile(rf"^(.{{1,80}}?\b{_FORMS}\b\.?(?:,?\s+{_FORMS}\b\.?)*)", re.I)
_DEFINED_TERM = re.compile(r"\(\s*(?:the\b|[“\"'‘])", re.I)
_NAME_END = re.compile(r"(?<!\s)\s*(?:[(,:;“\"]|\s(?:and\s+(?:its\s+)?subsidiaries|for\s+the|as\s+(?:of|at))\b)", re.I)
_PROFILE = re.compile(r"^公司的?中文名称")
# What a name is not: a heading or a possessive heading word, a role, a description that starts with an article.
_NOT_A_NAME = re.compile(
    r"^(?:a|an)\s|^the\s+(?:company|group|entity|parent|partnership|fund|trust|bank|registrant)[\s.,;:]*$|"
    r"^(?:management|directors?|chair(?:man|woman|person)?|auditors?|shareholders?|chief|board|report|"
    r"annual|consolidated|notes?|independent|our|we|item|part|table|contents|index|results|highlights|financial|"
    r"statements?|corporate|strategic|overview|formerly|previously)\b|"
    r"^to\s+the\s+(?:members|shareholders|stockholders|unitholders|board|directors|owners)\b|"  # an addressee line
    r"\b(?:stock\s+corporation|incorporated\s+in|organi[sz]ed\s+under|(?:formerly|previously)\s+(?:known\s+as|named))\b",
    re.I,
)
_LEGAL_TAIL = re.compile(
    rf"(?=.{{0,80}}$)(?:,?\s+(?:{forms_pattern(generic=True)}|and\s+(?:its\s+)?subsidiaries)\.?)+$|"
    rf"(?:{'|'.join(FORMS_ZH)})$",
    re.I,
)
_SMALL_CAPS = re.compile(r"\b([A-Z]) (?=[A-Z]{2,}\b)")  # "MGM R ESORTS I NTERNATIONAL"
_NOT_WORD = re.compile(r"\W+")
_APOSTROPHE = re.compile(r"['’]")


@dataclass(frozen=True)
class Settled:
    """A value with the places that print it; established when two independent places agree."""

    value: str | None
    verified: bool
    places: tuple[Place, ...]


def is_name(candidate: str) -> bool:
    """A name, not a heading or a description: capitalised, or printed with its legal form ("salesforce.com, inc.")."""
    text = candidate.strip()
    shaped = any(c.isupper() or CJK.match(c) for c in text) or bool(_LEGAL_TAIL.search(text))
    return 2 <= len(text) <= 100 and not _NOT_A_NAME.search(text) and shaped


def _named_in(text: str, below: str) -> str | None:
    """The name a self-naming line prints (``below``: the next line, where an addressee ends with "of" or names the
    company on the line under it)."""
    found = _SELF_NAMING.match(text)
    if found is not None:
        name = found.group("name")
    elif _ADDRESSEE.match(text) and text.rstrip(" :").lower().endswith((" of", "directors", "holders", "members")):
        name = below  # "To the Stockholders and Board of Directors" over "Atreca, Inc.:"
    else:
        return None
    with_form = _NAME_WITH_FORM.match(name)
    if with_form and _DEFINED_TERM.search(with_form.group(1)):  # "Acme (the Company": a defined term, no form
        with_form = None
    end = _NAME_END.search(name)
    name = with_form.group(1) if with_form else name[: end.start()] if end else name
    name = name.strip(" :;,")
    return name if is_name(name) and (with_form or name[:1].isupper()) else None


# Distinct names weighed, at most: a filing names itself in a handful of ways; each name is looked for in every naming
# place, so a page printing thousands of "To the members of …" lines costs this many names, not thousands.
MAX_NAMES = 40


def self_named(pages: list[Page]) -> list[str]:
    """The names a filing gives itself in its auditor's addressee and its directors' report, in order (the first
    MAX_NAMES)."""
    names: dict[str, None] = {}
    for page in pages:
        body = [" ".join(line.text.split()) for line in page.lines if not line.furniture]
        for text, below in zip(body, [*body[1:], ""], strict=False):
            if (name := _named_in(text, below)) is not None:
                names.setdefault(unsplit(name))
                if len(names) >= MAX_NAMES:
                    return list(names)
    return list(names)


def _names(candidates: list[str | None]) -> list[str]:
    """The distinct candidates that read as names, in order, the first MAX_NAMES."""
    return list(dict.fromkeys(c.strip() for c in candidates if c and is_name(c)))[:MAX_NAMES]


def unsplit(name: str) -> str:
    """Small capitals joined again when a name has several split words ("MGM R ESORTS I NTERNATIONAL")."""
    return _SMALL_CAPS.sub(r"\1", name) if len(_SMALL_CAPS.findall(name)) >= 2 else name


def _plain(text: str) -> str:
    """Case, punctuation, apostrophes and split small capitals aside, padded so names match as whole words."""
    bare = _APOSTROPHE.sub("", unsplit(text)).replace("&", " ").casefold()
    return f" {' '.join(_NOT_WORD.sub(' ', bare).split())} "


def core(name: str) -> str:
    """The distinctive part of a name: no article, no legal form, no "and subsidiaries"."""
    text = re.sub(r"^the\s+", "", " ".join(name.split()), flags=re.I)
    text = _LEGAL_TAIL.sub("", text).strip(" ,.")
    return _plain(text)


def _long_enough(key: str) -> bool:
    letters = key.strip()
    return len(letters) >= (2 if any(CJK.match(c) for c in letters) else 3)


def _place(where: str, page: Page, line: Line) -> Place:
    return Place(where=where, page=page.number, text=" ".join(line.text.split())[:PLACE_CHARS], bbox=line.box)


def _page_places(page: Page, cover: bool) -> Iterator[Place]:
    """The lines of one page that sit where a filer's own name is printed, each with what place it is."""
    body = [line for line in page.lines if not line.furniture]
    if cover:
        yield from (_place("cover", page, line) for line in page.lines)
        return
    for line in page.lines:
        if line.furniture or not BAND * page.height < line.box.top < (1 - BAND) * page.height:
            yield _place("header" if line.box.top < page.height / 2 else "footer", page, line)
    for index, line in enumerate(body):
        text = " ".join(line.text.split())
        if _ADDRESSEE.match(text) or _PROFILE.match(text):
            where = "profile" if _PROFILE.match(text) else "auditor_report"
            yield from (_place(where, page, near) for near in body[index : index + 2])
        elif _SELF_NAMING.match(text):
            yield _place("auditor_report" if re.search(r"\bto\s+the\b", text, re.I) else "directors_report", page, line)
        elif statement_title(text) not in (None, "notes"):
            yield from (_place("statement_heading", page, near) for near in body[max(0, index - HEADING_REACH) : index])
    if boilerplate_page([line.text for line in body]) == "signatures":
        yield from (_place("signature", page, line) for line in body)


def places(pages: list[Page], cover_pages: set[int]) -> list[Place]:
    """Every line of the filing in a naming place, cover first."""
    return [place for page in pages for place in _page_places(page, page.number in cover_pages)]


def _supports(name: str, found: Iterable[tuple[Place, str]]) -> list[Place]:
    """One place of each kind that prints the name, in order; ``found``: each place with its plain text."""
    key = core(name)
    if not _long_enough(key):
        return []
    squeezed = key.replace(" ", "")
    kept: dict[str, Place] = {}
    for place, text in found:
        if place.where in kept:
            continue
        if key in text or (CJK.search(squeezed) and squeezed in text.replace(" ", "")):
            kept[place.where] = place
    return list(kept.values())


NAMES_KEPT = 3  # other names a filing prints for itself, kept for search when no two places agree


def printed_names(chosen: Settled, candidates: list[str | None], found: list[Place]) -> list[str]:
    """When no two places agree on the company, the other names the filing prints for itself in a naming place (its
    cover, headers, auditor's addressee, directors' report, statements' headings): search finds the filing by each.
    None when the company is established (its own name and aliases are enough)."""
    if chosen.verified:
        return []
    plain = [(place, _plain(place.text)) for place in found]
    taken = {core(chosen.value)} if chosen.value else set()
    kept: list[str] = []
    for name in _names(candidates):
        if core(name) not in taken and _supports(name, plain):
            taken.add(core(name))
            kept.append(name)
    return kept[:NAMES_KEPT]


def settle_company(candidates: list[str | None], found: list[Place]) -> Settled:
    """The first candidate (the cover's reading) when two places print it; else the first name that two places
    print; else the first name, not established."""
    names = _names(candidates)
    if not names:
        return Settled(next((c for c in candidates if c), None), False, ())
    plain = [(place, _plain(place.text)) for place in found]
    supported = [(name, _supports(name, plain)) for name in names]
    agreed = [(name, where) for name, where in supported if len(where) >= AGREEING_PLACES]
    name, where = agreed[0] if agreed else supported[0]
    return Settled(name, bool(agreed), tuple(where))


def settle_form(form: str | None, pattern: re.Pattern[str] | None, pages: list[Page], cover: set[int]) -> Settled:
    """The cover's form, established when a page past the cover names it as well."""
    if form is None or pattern is None:
        return Settled(form, False, ())
    for page in pages:
        if page.number in cover:
            continue
        for line in page.lines:
            if pattern.search(line.text):
                return Settled(form, True, (_place("header" if line.furniture else "text", page, line),))
    return Settled(form, False, ())


def settle_period_end(end: str | None, pages: list[Page], cover: set[int]) -> Settled:
    """The cover's period end, established when a page past the cover prints the same date."""
    if end is None:
        return Settled(None, False, ())
    for page in pages:
        if page.number in cover or end not in dates_in(page.text):
            continue
        line = next((line for line in page.lines if end in dates_in(line.text)), None)
        if line is not None:
            titled = any(statement_title(" ".join(other.text.split())) for other in page.lines)
            return Settled(end, True, (_place("statement_heading" if titled else "text", page, line),))
    return Settled(end, False, ())
