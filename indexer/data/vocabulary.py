"""The domain's vocabulary (``indexer/data/vocabulary.toml``) read through one schema: each concept with its statements,
row labels, XBRL tags, search terms and the words jieba keeps whole; the question routes; the judgements.

An unknown field, a concept that is not defined, a pattern that does not compile or a word given two homes is a
:class:`VocabularyError` that names where it is. Every use (get_financials, search expansion, routing, the
tokenizer's user words, the XBRL check) reads the vocabulary from here.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache, cached_property
from importlib import resources
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from indexer.data.section_kinds import CONTENT_LABELS, SectionKind, section_kinds, title_conflicts

FILE = "vocabulary.toml"
Statement = Literal["income", "balance", "cash_flow", "key_data"]
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_XBRL_TAG = r"^[a-z][a-z0-9-]*:[A-Z][A-Za-z0-9]*$"  # us-gaap:Revenues


class VocabularyError(ValueError):
    """The vocabulary file does not hold what its schema says: the message names the entry and the field."""


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from exc
    return pattern


Pattern = Annotated[str, Field(min_length=1), AfterValidator(_compiles)]
Word = Annotated[str, Field(min_length=1, pattern=r"^\S(?:.*\S)?$")]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Concept(_Entry):
    """One concept: a statement line (it has labels) or a search word only (a ratio, a topic: terms, no labels)."""

    statements: tuple[Statement, ...] = ()
    labels: tuple[Pattern, ...] = Field(default=(), description="matched whole against a normalised row label")
    xbrl: tuple[Annotated[str, Field(pattern=_XBRL_TAG)], ...] = ()
    terms: tuple[Word, ...] = Field(default=(), description="equivalent words for search and `items`, both languages")
    keep_whole: tuple[Word, ...] = Field(default=(), description="words jieba keeps whole (index time)")
    unrouted: tuple[Word, ...] = Field(default=(), description="terms a question means something else by")

    @model_validator(mode="after")
    def _whole(self) -> Concept:
        if bool(self.labels) != bool(self.statements):
            raise ValueError("labels and statements go together: a statement line has both, a search word neither")
        if not self.labels and not self.terms:
            raise ValueError("a concept needs labels (a statement line) or terms (a search word)")
        if self.xbrl and not self.labels:
            raise ValueError("xbrl tags belong to a statement line: give it statements and labels")
        if set(self.unrouted) - set(self.terms):
            raise ValueError(
                f"unrouted names words that are not its terms: {sorted(set(self.unrouted) - set(self.terms))}"
            )
        return self


class Route(_Entry):
    """A question matching ``pattern`` (or the question cue named ``cue``) prefers ``sections``, in order."""

    sections: tuple[Annotated[str, Field(pattern=r"^[a-z][a-z_]*$")], ...] = Field(min_length=1)
    pattern: Pattern | None = None
    cue: str | None = Field(default=None, description="a key of question_cues: its words, shared with routing")

    @model_validator(mode="after")
    def _one_pattern(self) -> Route:
        if (self.pattern is None) == (self.cue is None):
            raise ValueError("a route has a pattern or a cue, one of the two")
        return self


class QuestionCues(_Entry):
    """Words that make a question of a kind (search/routing.py), shared with the routes that name them."""

    causal: Pattern = Field(description="why, reasons, drivers, what a change is attributed to")


class Judgement(_Entry):
    """A question matching ``pattern`` is also searched with ``terms``, the line items printed where it is answered."""

    pattern: Pattern
    terms: tuple[Word, ...] = Field(min_length=1)


class StatementTitles(_Entry):
    """What may stand before any statement's title: "Consolidated", "Condensed Consolidated" …; 合并/母公司."""

    before: Pattern
    before_zh: Pattern
    parent: Pattern = Field(description="a title that makes a statement or note the parent company's alone")
    parent_asked: Pattern = Field(description="a question that asks for the parent company's own figures")
    group_column: Pattern = Field(description="a column header over the group's figures, beside the parent's")
    parent_column: Pattern = Field(description="a column header over the parent company's own figures")


Key = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]


class StatementEntry(_Entry):
    """A primary statement (or its notes): its titles, whether its pages take its label, the rows it prints."""

    titles: tuple[Pattern, ...] = Field(min_length=1, description="English, after statement_titles.before")
    titles_zh: tuple[Pattern, ...] = Field(default=(), description="Chinese, after statement_titles.before_zh")
    page_label: bool = Field(default=True, description="false: the outline's only; its pages keep the label before")
    rows: dict[str, Pattern] = Field(default_factory=dict, description="row kind → how its label starts")
    outline_titles: tuple[Pattern, ...] = Field(default=(), description="an outline entry's title that holds one")
    reports: dict[Key, Pattern] = Field(default_factory=dict, description="read_section key → a whole-line title")
    long: bool = Field(default=False, description="its label carries over pages until the next heading")


class SectionEntry(_Entry):
    """A part of a filing that is no primary statement: its titles as printed, which every reader of a filing's
    parts reads (the outline, the page labels, the sub-headings, the key figures)."""

    titles: tuple[Pattern, ...] = Field(default=(), description="an outline entry's title that holds one")
    headings: tuple[Pattern, ...] = Field(default=(), description="a page's heading line that starts with one")
    topics: tuple[Pattern, ...] = Field(default=(), description="a sub-heading that is one, whole")
    reports: dict[Key, Pattern] = Field(default_factory=dict, description="read_section key → a whole-line title")
    long: bool = Field(default=False, description="its label carries over pages until the next heading")
    page_label: bool = Field(default=True, description="false: the outline's only; its pages keep the label before")

    @model_validator(mode="after")
    def _titled(self) -> SectionEntry:
        if not (self.titles or self.headings or self.topics or self.reports):
            raise ValueError("a section kind needs titles, headings, topics or reports: how would it be recognised?")
        return self


class TokenizerWords(_Entry):
    keep_whole: tuple[Word, ...] = ()


class Vocabulary(_Entry):
    tokenizer: TokenizerWords = TokenizerWords()
    statement_titles: StatementTitles
    statements: dict[str, StatementEntry]
    sections: dict[str, SectionEntry]
    concepts: dict[str, Concept]
    question_cues: QuestionCues
    routes: tuple[Route, ...] = ()
    judgements: tuple[Judgement, ...] = ()

    @model_validator(mode="after")
    def _known_cues(self) -> Vocabulary:
        cues = type(self.question_cues).model_fields
        unknown = sorted({r.cue for r in self.routes if r.cue is not None and r.cue not in cues})
        if unknown:
            raise ValueError(f"routes name question cues that question_cues does not hold: {', '.join(unknown)}")
        return self

    def route_pattern(self, route: Route) -> str:
        """The pattern a question must match to take ``route``: its own, or its cue's."""
        return route.pattern if route.pattern is not None else getattr(self.question_cues, route.cue or "")

    @property
    def page_labels(self) -> frozenset[str]:
        """Every label a page may take: the statements', the sections' and those of pages told by their content."""
        labelled = [n for n, s in self.statements.items() if s.page_label]
        return frozenset([*labelled, *(n for n, s in self.sections.items() if s.page_label), *CONTENT_LABELS])

    @model_validator(mode="after")
    def _routes_go_somewhere(self) -> Vocabulary:
        unknown = sorted({s for route in self.routes for s in route.sections} - self.page_labels)
        if unknown:
            raise ValueError(f"routes name sections no page is labelled with: {', '.join(unknown)}; use one of "
                             f"{', '.join(sorted(self.page_labels))}, or add a [sections.NAME] table")  # fmt: skip
        return self

    @model_validator(mode="after")
    def _one_kind_per_title(self) -> Vocabulary:
        problems = title_conflicts(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @model_validator(mode="after")
    def _one_home(self) -> Vocabulary:
        bad = [name for name in [*self.concepts, *self.statements, *self.sections] if not _NAME.fullmatch(name)]
        if bad:
            raise ValueError(f"concept and statement names are lower_case_words: {', '.join(bad)}")
        homes: dict[str, str] = {}
        for home, words in [("tokenizer", self.tokenizer.keep_whole)] + [
            (f"concepts.{name}", c.keep_whole) for name, c in self.concepts.items()
        ]:
            for word in words:
                if word in homes:
                    raise ValueError(f"keep_whole word {word!r} is in {homes[word]} and in {home}: give it one home")
                homes[word] = home
        return self

    def concept(self, name: str) -> Concept:
        """The concept called ``name``; a :class:`VocabularyError` when there is none (code that names a concept
        asks here, so a concept renamed in the file fails where it is used, not silently)."""
        if name not in self.concepts:
            raise VocabularyError(f"no concept {name!r} in {FILE}")
        return self.concepts[name]

    @cached_property
    def section_kinds(self) -> tuple[SectionKind, ...]:
        """Every section kind with its titles compiled, in the order they are tried (data/section_kinds.py): built
        once per vocabulary, as the outline asks of every line of a filing."""
        return section_kinds(self)

    @property
    def statement_concepts(self) -> dict[str, Concept]:
        """The concepts printed as statement lines (those with labels), in file order."""
        return {name: c for name, c in self.concepts.items() if c.labels}

    @property
    def glossary(self) -> tuple[tuple[str, ...], ...]:
        """Each concept's equivalent terms, lower case, in file order."""
        return tuple(tuple(t.lower() for t in c.terms) for c in self.concepts.values() if c.terms)

    @property
    def user_words(self) -> list[str]:
        """The words jieba keeps whole: the tokenizer's own and each concept's."""
        return [*self.tokenizer.keep_whole, *(w for c in self.concepts.values() for w in c.keep_whole)]


def parse_vocabulary(text: str, source: str = FILE) -> Vocabulary:
    """The vocabulary held by ``text`` (TOML); a :class:`VocabularyError` naming each entry and field that is wrong."""
    try:
        return Vocabulary.model_validate(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise VocabularyError(f"{source} is not valid TOML: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(
            ": ".join([*([".".join(str(part) for part in error["loc"])] if error["loc"] else []),
                       error["msg"].removeprefix("Value error, ")])
            for error in exc.errors(include_url=False)
        )  # fmt: skip
        raise VocabularyError(f"{source}: {problems}") from exc


@cache
def vocabulary() -> Vocabulary:
    """The package's vocabulary, read once."""
    return parse_vocabulary(resources.files(__package__ or "indexer.data").joinpath(FILE).read_text(encoding="utf-8"))
